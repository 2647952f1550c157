-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Decides hold requests for one show in one transaction (the server's HoldBatcher collects them). Request i is
-- p_owners[i], p_keys[i] (NULL or '': no Idempotency-Key), p_hashes[i] and the next p_seat_counts[i] entries of
-- p_seats; p_seat_limits[i] > 0 bounds the live held seats its owner may have on the show (NULL or 0: no bound).
-- Returns one row per request: o_index = i, o_decision, o_data and o_replayed. Decisions and data, never
-- HTTP: the server's catalogue (core/errorcatalogue, server/holds/holdanswer.cpp) makes the wire of each.
--   granted         {hold_id, show_id, seat_ids, expires_at}
--   seats_taken     {held_seats}: the request's seats that are held or sold; none of them is held for it
--   unknown_seat    {unknown_seats}: seats the show does not have (or none, or one named twice)
--   key_reused      {}: the Idempotency-Key was used with another request
--   in_flight       {}: a request with this Idempotency-Key is being decided right now
--   show_not_found  {}, sales_closed {}, sales_not_open {}
--   hold_limit_reached {limit, held}: granting would give the owner more than p_seat_limits[i] live held seats
--                   on the show (held: how many it has, this batch's earlier grants included)
-- o_replayed: the decision is the one stored under the request's Idempotency-Key (made by an earlier request).
-- Each request is its own all-or-nothing unit, decided in order, seeing the claims of the requests before it:
--   - one statement locks every seat of the batch in canonical order and reads the rows it locked;
--   - each request is decided against those rows with array operators;
--   - ONE conditional UPDATE then claims the seats of every request granted, and it is the only thing that makes
--     a seat held: it takes a row only if the row is available or its hold expired at v_now. If it takes fewer
--     rows than were granted (it cannot: the rows are locked), the batch raises and rolls back whole, and the
--     server decides each request alone;
--   - holds, outbox events and stored decisions are written by one INSERT each.
-- The two statements on show_seats run through EXECUTE, so they are planned for their values every time: a
-- generic plan does not know a show has 40,000 seats and would filter all of them instead of probing the seats.
-- Every other statement touches no table or one row by primary key and keeps its cached plan.
-- The return type changed (decisions instead of HTTP statuses and bodies): CREATE OR REPLACE cannot change it.
DROP FUNCTION IF EXISTS mq_place_hold(text, text, text, bigint, text[], integer);
DROP FUNCTION IF EXISTS mq_place_hold(text, text, text, bigint, text[], integer, integer);
DROP FUNCTION IF EXISTS mq_place_holds(bigint, integer, text[], text[], text[], text[], integer[]);
DROP FUNCTION IF EXISTS mq_place_holds(bigint, integer, text[], text[], text[], text[], integer[], integer[]);
CREATE FUNCTION mq_place_holds(p_show bigint, p_ttl_s integer, p_owners text[], p_keys text[], p_hashes text[],
                               p_seats text[], p_seat_counts integer[], p_seat_limits integer[] DEFAULT NULL)
RETURNS TABLE (o_index integer, o_decision text, o_data jsonb, o_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_count        integer := coalesce(cardinality(p_owners), 0);
    v_show         shows%ROWTYPE;
    v_open         boolean;
    v_known        text[] := '{}';  -- the seats of the batch that exist, locked by this transaction
    v_states       seat_status[];
    v_expiries     timestamptz[];
    v_holders      uuid[];
    v_taken        text[] := '{}';  -- of those, the ones not free: live holds, sales, and this batch's claims
    v_now          timestamptz;
    v_expires      timestamptz;
    v_expires_text text;
    v_sorted       text[] := '{}';  -- p_seats with each request's seats in canonical order, in their places
    v_next         integer := 1;
    v_seats        text[];
    v_repeats      boolean;
    v_seat         text;
    v_held         text[];
    v_answer       jsonb;
    v_key          text;
    v_id           text;
    v_locked       boolean[] := '{}';
    v_stored       jsonb := '{}';   -- owner \x1f key -> {h: request hash, d: decision, x: data}, live in the
                                    -- table or stored by an earlier request of this batch
    v_decisions    text[] := '{}';
    v_datas        jsonb[] := '{}';
    v_replays      boolean[] := '{}';
    v_won          integer[] := '{}'; -- requests granted a hold, their hold ids, and where their seats are in
    v_won_holds    uuid[] := '{}';    -- v_claim_seats
    v_won_first    integer[] := '{}';
    v_keep         integer[] := '{}'; -- requests whose decision is stored under their Idempotency-Key
    v_claim_seats  text[] := '{}';
    v_claim_holds  uuid[] := '{}';
    v_hold         uuid;
    v_claimed      integer;
    v_bounded      text[];          -- the owners of the batch with a bound on their held seats, sorted
    v_counted      text[];          -- those and the owners of counted lapsed holds among the batch's seats
    v_recount      text[];          -- bounded owners whose running count says the bound might be reached
    v_holding      jsonb := '{}';   -- bounded owner -> live held seats on the show, this batch's grants included
BEGIN
    SELECT * INTO v_show FROM shows WHERE show_id = p_show;
    v_open := FOUND AND now() < v_show.starts_at AND now() <= v_show.sales_close_at AND now() >= v_show.sales_open_at;
    SELECT array_agg(DISTINCT b.owner ORDER BY b.owner) INTO v_bounded
      FROM unnest(p_owners, p_seat_limits) AS b(owner, seat_limit) WHERE b.seat_limit > 0;
    IF v_open THEN
        -- Every seat of the batch, locked once in canonical (byte) order: the batch queues behind (or ahead of)
        -- other writers like any single hold and never deadlocks with them; within the batch nothing waits.
        EXECUTE 'SELECT coalesce(array_agg(l.seat_id), ''{}''), coalesce(array_agg(l.status), ''{}''),
                        coalesce(array_agg(l.hold_expires_at), ''{}''), coalesce(array_agg(l.held_by), ''{}'')
                   FROM (SELECT seat_id, status, hold_expires_at, held_by FROM show_seats
                          WHERE show_id = $1 AND seat_id = ANY ($2) ORDER BY seat_id FOR UPDATE) AS l'
           INTO v_known, v_states, v_expiries, v_holders USING p_show, p_seats;
        -- One instant for the whole batch, taken once the rows are ours: an expiry between two evaluations
        -- cannot split a request, and the TTL starts after the claim is certain.
        v_now := clock_timestamp();
        SELECT coalesce(array_agg(k.seat_id), '{}') INTO v_taken
          FROM unnest(v_known, v_states, v_expiries) AS k(seat_id, state, expiry)
         WHERE NOT (k.state = 'available' OR (k.state = 'held' AND k.expiry <= v_now));
        v_expires := v_now + make_interval(secs => p_ttl_s);
        v_expires_text := to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
        -- The bound is decided here, with the hold, never checked before it. The running count of each bounded
        -- owner (held_seat_counts) is locked after the seats, in owner order, as every other writer of a seat's
        -- holder takes it (the trigger of mq_count_held_seats): concurrent holds of one caller (other batches,
        -- sync batches, other instances) go one after the other, and each reads what the ones before it
        -- committed. Holds of other callers never wait for it. The counts of the owners of lapsed counted holds
        -- whose seats this batch may take are locked here too, so that the claim's trigger takes no lock out of
        -- order.
        IF v_bounded IS NOT NULL OR EXISTS (SELECT 1 FROM unnest(v_states, v_expiries) AS k(state, expiry)
                                             WHERE k.state = 'held' AND k.expiry <= v_now) THEN
            SELECT array_agg(DISTINCT o.owner ORDER BY o.owner) INTO v_counted
              FROM (SELECT unnest(v_bounded) AS owner
                    UNION ALL
                    SELECT h.owner FROM unnest(v_states, v_expiries, v_holders) AS k(state, expiry, holder)
                      JOIN holds h ON h.hold_id = k.holder AND h.counted
                     WHERE k.state = 'held' AND k.expiry <= v_now) AS o;
        END IF;
        IF v_counted IS NOT NULL THEN
            WITH locked AS (
                INSERT INTO held_seat_counts AS c (owner, show_id, held)
                SELECT o.owner, p_show, 0 FROM unnest(v_counted) AS o(owner) ORDER BY o.owner
                ON CONFLICT (owner, show_id) DO UPDATE SET held = c.held
                RETURNING c.owner, c.held)
            SELECT coalesce(jsonb_object_agg(l.owner, l.held) FILTER (WHERE l.owner = ANY (v_bounded)), '{}') INTO v_holding
              FROM locked l;
            -- The running count includes lapsed seats not yet swept or taken: it is exact where it leaves room.
            -- Where a batch's requests of one owner would pass its bound on the running count, the owner's live
            -- held seats are counted: seats still held by one of its holds and not lapsed at v_now (an order's
            -- extension counts; released, swept or sold seats do not).
            SELECT array_agg(r.owner) INTO v_recount
              FROM (SELECT b.owner, sum(b.n) AS n, min(b.seat_limit) AS seat_limit
                      FROM unnest(p_owners, p_seat_counts, p_seat_limits) AS b(owner, n, seat_limit)
                     WHERE b.seat_limit > 0 GROUP BY b.owner) AS r
             WHERE coalesce((v_holding ->> r.owner)::integer, 0) + r.n > r.seat_limit;
            IF v_recount IS NOT NULL THEN
                v_holding := v_holding || (
                    SELECT jsonb_object_agg(o.owner, coalesce(c.seats, 0))
                      FROM unnest(v_recount) AS o(owner)
                      LEFT JOIN (SELECT h.owner, count(*) AS seats
                                   FROM holds h
                                   JOIN show_seats ss ON ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                                                     AND ss.held_by = h.hold_id
                                  WHERE h.owner = ANY (v_recount) AND h.show_id = p_show
                                    AND h.released_at IS NULL AND h.swept_at IS NULL
                                    AND ss.status = 'held' AND ss.hold_expires_at > v_now
                                  GROUP BY h.owner) AS c ON c.owner = o.owner);
            END IF;
        END IF;
    END IF;

    -- A concurrent request with the same Idempotency-Key holds this lock until it commits: it is reported in
    -- flight. (The same key twice in one batch takes the lock twice and gets the first one's decision.)
    FOR i IN 1 .. v_count LOOP
        v_key := nullif(p_keys[i], '');
        v_locked[i] := CASE WHEN v_key IS NULL THEN true
                            ELSE pg_try_advisory_xact_lock(hashtextextended(p_owners[i] || E'\x1f' || v_key, 7)) END;
    END LOOP;

    -- Each request's seats in canonical order, in one statement for the batch (no statement is planned per
    -- request on the way to a decision).
    SELECT coalesce(array_agg(x.seat ORDER BY x.i, x.seat COLLATE "C"), '{}') INTO v_sorted
      FROM (SELECT c.i, p_seats[c.before + g.k] AS seat
              FROM (SELECT c.i, c.n, (sum(c.n) OVER (ORDER BY c.i) - c.n)::integer AS before
                      FROM unnest(p_seat_counts) WITH ORDINALITY AS c(n, i)) AS c,
                   generate_series(1, c.n) AS g(k)) AS x;

    FOR i IN 1 .. v_count LOOP
        v_seats := coalesce(v_sorted[v_next : v_next + p_seat_counts[i] - 1], '{}');
        v_next := v_next + p_seat_counts[i];
        v_repeats := false; -- a seat named twice (sorted: next to each other)
        FOR k IN 2 .. cardinality(v_seats) LOOP
            v_repeats := v_repeats OR v_seats[k] = v_seats[k - 1];
        END LOOP;
        v_key := nullif(p_keys[i], '');
        v_id := p_owners[i] || E'\x1f' || v_key;
        IF v_key IS NOT NULL AND v_locked[i] AND NOT v_stored ? v_id THEN -- the live decision stored under the key
            SELECT jsonb_build_object('h', k.request_hash, 'd', k.decision, 'x', k.decision_data) INTO v_answer
              FROM idempotency_keys k WHERE k.owner = p_owners[i] AND k.key = v_key AND k.expires_at > now();
            IF FOUND THEN
                v_stored := v_stored || jsonb_build_object(v_id, v_answer);
            END IF;
        END IF;

        o_replayed := false;
        o_data := '{}';
        IF v_key IS NOT NULL AND NOT v_locked[i] THEN
            o_decision := 'in_flight';
        ELSIF v_key IS NOT NULL AND v_stored ? v_id THEN
            IF v_stored -> v_id ->> 'h' <> p_hashes[i] THEN
                o_decision := 'key_reused';
            ELSE
                o_decision := v_stored -> v_id ->> 'd';
                o_data := v_stored -> v_id -> 'x';
                o_replayed := true;
            END IF;
        ELSIF v_show.show_id IS NULL THEN
            o_decision := 'show_not_found'; -- nothing to remember: the same request would get the same decision
        ELSIF NOT v_open THEN
            o_decision := CASE WHEN now() < v_show.sales_open_at THEN 'sales_not_open' ELSE 'sales_closed' END;
        ELSIF cardinality(v_seats) = 0 OR v_repeats OR NOT v_seats <@ v_known THEN
            o_decision := 'unknown_seat'; -- a client error: not remembered, nothing changed
            o_data := jsonb_build_object('unknown_seats', (SELECT coalesce(jsonb_agg(s ORDER BY s), '[]') FROM unnest(v_seats) AS s
                                                            WHERE NOT s = ANY (v_known)));
        ELSIF v_seats && v_taken THEN
            v_held := '{}';
            FOREACH v_seat IN ARRAY v_seats LOOP
                IF v_seat = ANY (v_taken) THEN
                    v_held := v_held || v_seat;
                END IF;
            END LOOP;
            o_decision := 'seats_taken';
            o_data := jsonb_build_object('held_seats', to_jsonb(v_held));
        ELSIF coalesce(p_seat_limits[i], 0) > 0
              AND coalesce((v_holding ->> p_owners[i])::integer, 0) + cardinality(v_seats) > p_seat_limits[i] THEN
            o_decision := 'hold_limit_reached';
            o_data := jsonb_build_object('limit', p_seat_limits[i], 'held', coalesce((v_holding ->> p_owners[i])::integer, 0));
        ELSE
            IF coalesce(p_seat_limits[i], 0) > 0 THEN
                v_holding := v_holding || jsonb_build_object(p_owners[i],
                                                             coalesce((v_holding ->> p_owners[i])::integer, 0) + cardinality(v_seats));
            END IF;
            v_hold := gen_random_uuid();
            v_taken := v_taken || v_seats;
            v_claim_holds := v_claim_holds || array_fill(v_hold, ARRAY[cardinality(v_seats)]);
            v_won := v_won || i;
            v_won_holds := v_won_holds || v_hold;
            v_won_first := v_won_first || (cardinality(v_claim_seats) + 1);
            v_claim_seats := v_claim_seats || v_seats;
            o_decision := 'granted';
            o_data := jsonb_build_object('hold_id', v_hold, 'show_id', p_show, 'seat_ids', to_jsonb(v_seats),
                                         'expires_at', v_expires_text);
        END IF;

        -- Stored: every decision the same request would get again (not an in-flight report, a replay, an unknown
        -- show or an unknown seat).
        IF v_key IS NOT NULL AND v_locked[i] AND NOT v_stored ? v_id AND v_show.show_id IS NOT NULL
           AND o_decision <> 'unknown_seat' THEN
            v_keep := v_keep || i;
            v_stored := v_stored || jsonb_build_object(v_id, jsonb_build_object('h', p_hashes[i], 'd', o_decision, 'x', o_data));
        END IF;
        v_decisions[i] := o_decision;
        v_datas[i] := o_data;
        v_replays[i] := o_replayed;
    END LOOP;

    IF cardinality(v_won) > 0 THEN
        -- The holds first: the claim's trigger finds the owner of each seat's new holder (mq_count_held_seats).
        -- created_at is taken after the seats were locked and v_now read, not now() (see mq_place_hold in
        -- 001_core.sql), so that [created_at, min(expires_at, released_at)) of the holds of one seat never overlap.
        INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at, counted)
        SELECT w.hold_id, p_show, p_owners[w.i], v_claim_seats[w.seat_from : w.seat_from + p_seat_counts[w.i] - 1],
               clock_timestamp(), v_expires, coalesce(p_seat_limits[w.i], 0) > 0
          FROM unnest(v_won, v_won_holds, v_won_first) AS w(i, hold_id, seat_from);
        EXECUTE 'UPDATE show_seats ss
                    SET status = ''held'', held_by = c.hold_id, hold_expires_at = $3, version = ss.version + 1
                   FROM unnest($4::text[], $5::uuid[]) AS c(seat_id, hold_id)
                  WHERE ss.show_id = $1 AND ss.seat_id = c.seat_id
                    AND (ss.status = ''available'' OR (ss.status = ''held'' AND ss.hold_expires_at <= $2))'
          USING p_show, v_now, v_expires, v_claim_seats, v_claim_holds;
        GET DIAGNOSTICS v_claimed = ROW_COUNT;
        IF v_claimed <> cardinality(v_claim_seats) THEN
            -- Cannot happen (the rows are locked by this transaction); if it ever did, nothing of the batch may
            -- stand: the error rolls everything back and the server decides each request alone.
            RAISE EXCEPTION 'holds of % seats claimed % of them', cardinality(v_claim_seats), v_claimed;
        END IF;
        -- The event is the grant's data: {hold_id, show_id, seat_ids, expires_at}.
        INSERT INTO outbox (event_type, aggregate_id, payload)
        SELECT 'hold.placed', w.hold_id::text, v_datas[w.i]
          FROM unnest(v_won, v_won_holds) WITH ORDINALITY AS w(i, hold_id, n)
         ORDER BY w.n;
    END IF;
    IF cardinality(v_keep) > 0 THEN
        INSERT INTO idempotency_keys (owner, key, request_hash, decision, decision_data, expires_at)
        SELECT p_owners[k.i], p_keys[k.i], p_hashes[k.i], v_decisions[k.i], v_datas[k.i], now() + interval '24 hours'
          FROM unnest(v_keep) AS k(i)
        ON CONFLICT (owner, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, decision = EXCLUDED.decision, decision_data = EXCLUDED.decision_data,
               created_at = now(), expires_at = EXCLUDED.expires_at;
    END IF;

    FOR i IN 1 .. v_count LOOP
        o_index := i;
        o_decision := v_decisions[i];
        o_data := v_datas[i];
        o_replayed := v_replays[i];
        RETURN NEXT;
    END LOOP;
END;
$$;

-- One request alone is a batch of one: the same logic in one place (and no subtransaction per hold any more).
CREATE FUNCTION mq_place_hold(p_owner text, p_idem_key text, p_request_hash text, p_show bigint, p_seats text[],
                              p_ttl_s integer, p_seat_limit integer DEFAULT 0,
                              OUT o_decision text, OUT o_data jsonb, OUT o_replayed boolean)
LANGUAGE sql AS $$
    SELECT b.o_decision, b.o_data, b.o_replayed
      FROM mq_place_holds(p_show, p_ttl_s, ARRAY[p_owner], ARRAY[p_idem_key], ARRAY[p_request_hash], p_seats,
                          ARRAY[coalesce(cardinality(p_seats), 0)], ARRAY[p_seat_limit]) AS b;
$$;
