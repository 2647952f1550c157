-- Releases and expiries say which seats they freed (issue 6 §3), so that the server pushes the live seat-map delta
-- from the write's own result, as it does for holds and sales, instead of waiting for a re-read of the whole show.
-- Same statements, same lock order as before; only the return values change (hence DROP + CREATE).

-- Releases a hold at once. Idempotent: releasing a released or expired hold succeeds and changes nothing.
-- Returns the hold's show and the seats this call freed (ascending; empty when it freed none), or a row of NULLs
-- when the hold does not exist or belongs to someone else.
DROP FUNCTION mq_release_hold(text, uuid);
CREATE FUNCTION mq_release_hold(p_owner text, p_hold uuid, OUT o_show_id bigint, OUT o_freed text[])
LANGUAGE plpgsql AS $$
DECLARE
    v_hold holds%ROWTYPE;
BEGIN
    SELECT * INTO v_hold FROM holds WHERE hold_id = p_hold AND owner = p_owner FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    PERFORM 1 FROM show_seats WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
      ORDER BY seat_id FOR UPDATE;
    WITH freed AS (
        UPDATE show_seats
           SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = version + 1
         WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
           AND status = 'held' AND held_by = p_hold
        RETURNING seat_id)
    SELECT coalesce(array_agg(seat_id ORDER BY seat_id), '{}') INTO o_freed FROM freed;
    IF v_hold.released_at IS NULL THEN
        -- clock_timestamp() after the seats are locked and freed, not now(): a request that saw these seats
        -- held did so before this point, so the recorded live interval covers every such observation.
        UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = p_hold;
        INSERT INTO outbox (event_type, aggregate_id, payload)
        VALUES ('hold.released', p_hold::text,
                jsonb_build_object('hold_id', p_hold, 'show_id', v_hold.show_id, 'seat_ids', to_jsonb(o_freed),
                                   'reason', 'released'));
    END IF;
    o_show_id := v_hold.show_id;
END;
$$;

-- Frees the seats of expired holds, at most p_batch holds per call (as in 014: found through holds_unswept,
-- locked rows skipped, seats in canonical order, a hold marked swept once none of its seats is held by it).
-- Returns one row per show with the seats freed (ascending); no row when nothing was freed.
DROP FUNCTION mq_reap_expired_holds(integer);
CREATE FUNCTION mq_reap_expired_holds(p_batch integer) RETURNS TABLE (o_show_id bigint, o_freed text[])
LANGUAGE plpgsql AS $$
DECLARE
    v_holds uuid[];
BEGIN
    SELECT array_agg(hold_id) INTO v_holds
      FROM (SELECT hold_id FROM holds
             WHERE released_at IS NULL AND swept_at IS NULL AND expires_at <= clock_timestamp()
             ORDER BY expires_at
             LIMIT p_batch
             FOR UPDATE SKIP LOCKED) AS due;
    IF v_holds IS NOT NULL THEN
        RETURN QUERY
        WITH expired AS (
            SELECT ss.show_id, ss.seat_id, ss.held_by
              FROM holds h JOIN show_seats ss ON ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
             WHERE h.hold_id = ANY (v_holds)
               AND ss.status = 'held' AND ss.held_by = h.hold_id AND ss.hold_expires_at <= clock_timestamp()
             ORDER BY ss.show_id, ss.seat_id
             FOR UPDATE OF ss SKIP LOCKED),
        freed AS (
            UPDATE show_seats ss
               SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = ss.version + 1
              FROM expired e
             WHERE ss.show_id = e.show_id AND ss.seat_id = e.seat_id
               AND ss.status = 'held' AND ss.held_by = e.held_by AND ss.hold_expires_at <= clock_timestamp()
            RETURNING ss.show_id, ss.seat_id, e.held_by),
        events AS (
            INSERT INTO outbox (event_type, aggregate_id, payload)
            SELECT 'hold.expired', held_by::text,
                   jsonb_build_object('hold_id', held_by, 'show_id', show_id,
                                      'seat_ids', jsonb_agg(seat_id ORDER BY seat_id))
              FROM freed GROUP BY held_by, show_id
            RETURNING 1)
        SELECT f.show_id, array_agg(f.seat_id ORDER BY f.seat_id) FROM freed f GROUP BY f.show_id;

        UPDATE holds h SET swept_at = clock_timestamp()
         WHERE h.hold_id = ANY (v_holds)
           AND NOT EXISTS (SELECT 1 FROM show_seats ss
                            WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                              AND ss.status = 'held' AND ss.held_by = h.hold_id);
    END IF;
    DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT p_batch);
END;
$$;
