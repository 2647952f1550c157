-- SPDX-License-Identifier: AGPL-3.0-or-later
-- One admission step of a room, atomically, by whichever server instance gets the room's row first (the others
-- skip it): at the opening shuffle the early arrivals, rank the newer arrivals first-in-first-out, detect the
-- sell-out, and advance the admitted-up-to watermark at the pace the show's seats are actually being taken.
-- Returns 'skipped' (another instance ticked within p_min_interval_ms, or the room is off or sold out),
-- 'before_opening', 'ticked' or 'sold_out'.
CREATE OR REPLACE FUNCTION mq_waiting_room_tick(p_show bigint, p_min_interval_ms integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r           waiting_rooms%ROWTYPE;
    v_now       timestamptz := clock_timestamp();
    v_dt        double precision;
    v_ranked    bigint;
    v_available bigint;
    v_held      bigint;
    v_booked    bigint;
    v_taken     bigint;
    v_rate      double precision;
    v_choosing  bigint;
    v_admit     bigint;
BEGIN
    SELECT * INTO r FROM waiting_rooms
     WHERE show_id = p_show AND enabled AND NOT sold_out
       AND last_tick_at <= v_now - make_interval(secs => p_min_interval_ms / 1000.0)
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 'skipped';
    END IF;
    IF v_now < r.opens_at THEN
        UPDATE waiting_rooms SET last_tick_at = v_now WHERE show_id = p_show;
        RETURN 'before_opening';
    END IF;
    v_dt := CASE WHEN r.last_tick_at = '-infinity' THEN p_min_interval_ms / 1000.0
                 ELSE least(greatest(extract(epoch FROM v_now - r.last_tick_at), 0.001), 5.0) END;

    SELECT count(*) FILTER (WHERE status = 'available' OR (status = 'held' AND hold_expires_at <= v_now)),
           count(*) FILTER (WHERE status = 'held' AND hold_expires_at > v_now),
           count(*) FILTER (WHERE status = 'booked')
      INTO v_available, v_held, v_booked
      FROM show_seats WHERE show_id = p_show;
    v_taken := v_held + v_booked;

    IF NOT r.opened THEN
        -- Everyone who arrived before the opening gets a uniformly random place, drawn now from PostgreSQL's
        -- strong random source (gen_random_uuid): joining early, fast or many times in a row earns no edge.
        WITH shuffled AS (
            SELECT entry_id, row_number() OVER (ORDER BY gen_random_uuid()) AS n
              FROM waiting_room_entries
             WHERE show_id = p_show AND rank IS NULL AND joined_at < r.opens_at)
        UPDATE waiting_room_entries e SET rank = r.ranked_upto + s.n FROM shuffled s WHERE e.entry_id = s.entry_id;
        GET DIAGNOSTICS v_ranked = ROW_COUNT;
        r.ranked_upto := r.ranked_upto + v_ranked;
        r.opened := true;
        r.taken_seats := v_taken; -- seats sold before the room opened are not this room's pace
    END IF;

    -- Later arrivals are ranked in arrival order (the identity column), in bounded batches.
    WITH arrivals AS (
        SELECT entry_id, row_number() OVER (ORDER BY entry_id) AS n
          FROM (SELECT entry_id FROM waiting_room_entries
                 WHERE show_id = p_show AND rank IS NULL ORDER BY entry_id LIMIT 200000) a)
    UPDATE waiting_room_entries e SET rank = r.ranked_upto + a.n FROM arrivals a WHERE e.entry_id = a.entry_id;
    GET DIAGNOSTICS v_ranked = ROW_COUNT;
    r.ranked_upto := r.ranked_upto + v_ranked;

    v_rate := 0.7 * r.taken_rate_per_s + 0.3 * greatest(v_taken - r.taken_seats, 0) / v_dt;

    IF v_available = 0 AND v_held = 0 THEN
        -- Every seat is booked: admission stops for good and every status poll says so from memory.
        UPDATE waiting_rooms
           SET opened = true, ranked_upto = r.ranked_upto, sold_out = true, sold_out_at = v_now, taken_seats = v_taken,
               taken_rate_per_s = v_rate, last_tick_at = v_now, updated_at = v_now
         WHERE show_id = p_show;
        RETURN 'sold_out';
    END IF;

    SELECT count(*) INTO v_choosing FROM waiting_room_entries
     WHERE show_id = p_show AND admitted_at IS NOT NULL AND held_at IS NULL
       AND admitted_at > v_now - make_interval(secs => r.admission_ttl_s);

    -- Admit at 1.5 times the observed pace of seats taken (holds and confirms; a shopper takes one seat or more),
    -- so admission grows while the booking path keeps up, at least at the floor rate, and never with more shoppers
    -- choosing at once than max_in_flight or than seats still free (all remaining seats held: admission pauses).
    v_admit := ceil(greatest(r.min_admit_per_s, 1.5 * v_rate) * v_dt);
    v_admit := least(v_admit, greatest(least(r.max_in_flight::bigint, v_available) - v_choosing, 0),
                     r.ranked_upto - r.admitted_upto);
    IF v_admit > 0 THEN
        UPDATE waiting_room_entries SET admitted_at = v_now
         WHERE show_id = p_show AND rank > r.admitted_upto AND rank <= r.admitted_upto + v_admit;
    END IF;
    UPDATE waiting_rooms
       SET opened = true, ranked_upto = r.ranked_upto, admitted_upto = r.admitted_upto + v_admit,
           admit_rate_per_s = 0.7 * admit_rate_per_s + 0.3 * v_admit / v_dt,
           taken_seats = v_taken, taken_rate_per_s = v_rate, last_tick_at = v_now, updated_at = v_now
     WHERE show_id = p_show;
    RETURN 'ticked';
END;
$$;
