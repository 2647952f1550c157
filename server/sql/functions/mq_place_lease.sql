-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Leases seats of one show to one device: the named p_seats, or (p_seats empty) the p_best free seats nearest
-- the middle of the house. All or nothing, decided like a hold: the seats are locked in canonical order and ONE
-- conditional UPDATE makes them leased, taking a row only if it is available or its hold expired. Returns
-- o_decision and o_data (decisions and data, never HTTP: core/errorcatalogue makes the wire):
--   granted             mq_lease_json of the lease (o_replayed: the one stored under the request's key)
--   seats_taken         {held_seats}: the named seats that are held, leased or sold; none of them was leased
--   not_enough_seats    {available}: fewer than p_best seats are free
--   unknown_seat        {unknown_seats}
--   lease_limit_reached {limit, leased}: the device would have more than its limit of seats leased on the show
--   show_starting       {return_by}: too close to the start (leased seats go back at return_by)
--   key_reused {}, show_not_found {}, sales_not_open {}
-- The limit and the times come from show_lease_settings, else the server's defaults p_limit, p_return_before_s
-- and p_grace_s. One transaction lock per device and show (taken before any seat lock) puts the leases of one
-- device one after the other, so that each counts what the ones before it committed.
CREATE OR REPLACE FUNCTION mq_place_lease(p_lease uuid, p_show bigint, p_device bigint, p_owner text, p_key text, p_hash text,
                                          p_seats text[], p_best integer, p_limit integer, p_return_before_s integer,
                                          p_grace_s integer, OUT o_decision text, OUT o_data jsonb, OUT o_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_show      shows%ROWTYPE;
    v_limit     integer;
    v_before    integer;
    v_grace     integer;
    v_existing  seat_leases%ROWTYPE;
    v_seats     text[];
    v_known     text[];
    v_taken     text[];
    v_leased    integer;
    v_now       timestamptz;
    v_return_by timestamptz;
    v_expires   timestamptz;
    v_claimed   integer;
BEGIN
    o_replayed := false;
    o_data := '{}';
    p_key := nullif(p_key, '');
    IF p_key IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_owner || E'\x1f' || p_key, 13));
        SELECT * INTO v_existing FROM seat_leases WHERE requested_by = p_owner AND idempotency_key = p_key;
        IF FOUND THEN
            IF v_existing.request_hash <> p_hash THEN
                o_decision := 'key_reused';
            ELSE
                o_decision := 'granted';
                o_data := mq_lease_json(v_existing.lease_id);
                o_replayed := true;
            END IF;
            RETURN;
        END IF;
    END IF;

    SELECT * INTO v_show FROM shows WHERE show_id = p_show;
    IF NOT FOUND THEN
        o_decision := 'show_not_found';
        RETURN;
    END IF;
    SELECT coalesce(s.seats_per_device, p_limit), coalesce(s.return_before_s, p_return_before_s), coalesce(s.grace_s, p_grace_s)
      INTO v_limit, v_before, v_grace
      FROM (SELECT 1) AS one LEFT JOIN show_lease_settings s ON s.show_id = p_show;
    v_return_by := v_show.starts_at - make_interval(secs => v_before);
    v_expires := v_show.starts_at + make_interval(secs => v_grace);
    IF now() < v_show.sales_open_at THEN
        o_decision := 'sales_not_open';
        RETURN;
    END IF;
    IF now() >= v_return_by THEN
        o_decision := 'show_starting';
        o_data := jsonb_build_object('return_by', mq_iso(v_return_by));
        RETURN;
    END IF;

    PERFORM pg_advisory_xact_lock(hashtextextended(p_device::text || E'\x1f' || p_show::text, 12));
    SELECT count(*) INTO v_leased
      FROM show_seats ss JOIN seat_leases l ON l.lease_id = ss.leased_to
     WHERE l.device_id = p_device AND l.show_id = p_show AND ss.show_id = p_show;

    IF cardinality(coalesce(p_seats, '{}')) = 0 THEN
        -- N best: free seats nearest the middle of the house, skipping rows another writer has locked (never
        -- waiting, so the order of these locks cannot deadlock with anyone).
        IF v_leased + p_best > v_limit THEN
            o_decision := 'lease_limit_reached';
            o_data := jsonb_build_object('limit', v_limit, 'leased', v_leased);
            RETURN;
        END IF;
        v_now := clock_timestamp();
        EXECUTE 'SELECT coalesce(array_agg(c.seat_id ORDER BY c.seat_id), ''{}'')
                   FROM (SELECT ss.seat_id
                           FROM show_seats ss
                           JOIN shows s ON s.show_id = ss.show_id
                           JOIN screens sc ON sc.screen_id = s.screen_id
                           JOIN seat_layouts sl ON sl.layout_id = sc.layout_id
                           JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ss.seat_id
                          WHERE ss.show_id = $1
                            AND (ss.status::text = ''available'' OR (ss.status::text = ''held'' AND ss.hold_expires_at <= $2))
                          ORDER BY (ls.x - sl.width / 2.0) ^ 2 + (ls.y - sl.height * 0.6) ^ 2, ss.seat_id
                          LIMIT $3
                          FOR UPDATE OF ss SKIP LOCKED) AS c'
           INTO v_seats USING p_show, v_now, p_best;
        IF cardinality(v_seats) < p_best THEN
            o_decision := 'not_enough_seats';
            o_data := jsonb_build_object('available', cardinality(v_seats));
            RETURN;
        END IF;
    ELSE
        SELECT array_agg(DISTINCT s COLLATE "C" ORDER BY s COLLATE "C") INTO v_seats FROM unnest(p_seats) AS s;
        EXECUTE 'SELECT coalesce(array_agg(l.seat_id), ''{}''), coalesce(array_agg(l.seat_id) FILTER (WHERE NOT l.free), ''{}'')
                   FROM (SELECT seat_id, (status::text = ''available'' OR (status::text = ''held'' AND hold_expires_at <= clock_timestamp())) AS free
                           FROM show_seats WHERE show_id = $1 AND seat_id = ANY ($2) ORDER BY seat_id FOR UPDATE) AS l'
           INTO v_known, v_taken USING p_show, v_seats;
        v_now := clock_timestamp();
        IF cardinality(v_seats) <> cardinality(p_seats) OR NOT v_seats <@ v_known THEN
            o_decision := 'unknown_seat';
            o_data := jsonb_build_object('unknown_seats', (SELECT coalesce(jsonb_agg(s ORDER BY s), '[]') FROM unnest(v_seats) AS s
                                                            WHERE NOT s = ANY (v_known)));
            RETURN;
        END IF;
        IF cardinality(v_taken) > 0 THEN
            o_decision := 'seats_taken';
            o_data := jsonb_build_object('held_seats', (SELECT jsonb_agg(s ORDER BY s) FROM unnest(v_taken) AS s));
            RETURN;
        END IF;
        IF v_leased + cardinality(v_seats) > v_limit THEN
            o_decision := 'lease_limit_reached';
            o_data := jsonb_build_object('limit', v_limit, 'leased', v_leased);
            RETURN;
        END IF;
    END IF;

    EXECUTE 'UPDATE show_seats
                SET status = ''leased'', leased_to = $3, lease_expires_at = $4, held_by = NULL, hold_expires_at = NULL,
                    version = version + 1
              WHERE show_id = $1 AND seat_id = ANY ($2)
                AND (status::text = ''available'' OR (status::text = ''held'' AND hold_expires_at <= $5))'
      USING p_show, v_seats, p_lease, v_expires, v_now;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
    IF v_claimed <> cardinality(v_seats) THEN
        -- Cannot happen (the rows are locked by this transaction); if it did, nothing of it may stand.
        RAISE EXCEPTION 'lease of % seats claimed % of them', cardinality(v_seats), v_claimed;
    END IF;
    INSERT INTO seat_leases (lease_id, show_id, device_id, requested_by, seat_ids, created_at, return_by, expires_at,
                             idempotency_key, request_hash)
    VALUES (p_lease, p_show, p_device, p_owner, v_seats, least(clock_timestamp(), v_return_by), v_return_by, v_expires, p_key, p_hash);
    o_decision := 'granted';
    o_data := mq_lease_json(p_lease);
    INSERT INTO outbox (event_type, aggregate_id, payload) VALUES ('lease.granted', p_lease::text, o_data);
END;
$$;
