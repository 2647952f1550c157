-- Faster holds (issue 2 §7, issue 6 §2): HOT seat updates, a reaper that finds expired holds through the holds
-- table, and mq_place_holds, which decides a batch of hold requests for one show in one transaction (group
-- commit; the server coalesces concurrent requests, see HoldBatcher). Every decision is still the conditional
-- UPDATE on show_seats, all-or-nothing per request, rows locked in canonical order.

-- No query needs these any more (every reader of show_seats goes by show_id or (show_id, seat_id), the primary
-- key; hold(), the reaper and the tests find a hold's seats through holds.seat_ids). Without them no column a
-- hold, release or sale changes is indexed, so those updates are HOT: no index entry is written per seat.
DROP INDEX show_seats_expiring;
DROP INDEX show_seats_holder;
DROP INDEX show_seats_status;

-- A hold the reaper has finished with: none of its seats is held by it any more. Until then (and while neither
-- released nor converted) it is in holds_unswept, where the reaper finds it once expires_at has passed.
ALTER TABLE holds ADD COLUMN swept_at timestamptz;
UPDATE holds h SET swept_at = now()
 WHERE h.released_at IS NULL AND h.expires_at <= now()
   AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                    AND ss.status = 'held' AND ss.held_by = h.hold_id);
CREATE INDEX holds_unswept ON holds (expires_at) WHERE released_at IS NULL AND swept_at IS NULL;

-- Decides hold requests for one show in one transaction. Request i is p_owners[i], p_keys[i] (NULL or '': no
-- Idempotency-Key), p_hashes[i] and the next p_seat_counts[i] entries of p_seats. Returns one row per request,
-- (o_index = i, o_status, o_body), with exactly the answer mq_place_hold gives alone: each request is its own
-- all-or-nothing unit, decided in order, and sees the claims of the requests before it.
CREATE FUNCTION mq_place_holds(p_show bigint, p_ttl_s integer, p_owners text[], p_keys text[], p_hashes text[],
                               p_seats text[], p_seat_counts integer[])
RETURNS TABLE (o_index integer, o_status integer, o_body jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    v_show    shows%ROWTYPE;
    v_open    boolean;
    v_next    integer := 1;
    v_seats   text[];
    v_found   integer;
    v_claimed integer;
    v_now     timestamptz;
    v_hold    uuid;
    v_expires timestamptz;
    v_stored  idempotency_keys%ROWTYPE;
    v_key     text;
BEGIN
    SELECT * INTO v_show FROM shows WHERE show_id = p_show;
    v_open := FOUND AND now() < v_show.starts_at AND now() <= v_show.sales_close_at AND now() >= v_show.sales_open_at;
    IF v_open THEN
        -- Every seat of the batch, locked once in canonical (byte) order: the batch queues behind (or ahead of)
        -- other writers like any single hold and never deadlocks with them; within the batch nothing waits.
        -- This only orders the locks; the conditional UPDATE below decides.
        PERFORM 1 FROM show_seats WHERE show_id = p_show AND seat_id = ANY (p_seats) ORDER BY seat_id FOR UPDATE;
    END IF;

    FOR i IN 1 .. coalesce(cardinality(p_owners), 0) LOOP
        o_index := i;
        o_status := NULL;
        o_body := NULL;
        SELECT coalesce(array_agg(s ORDER BY s), '{}') INTO v_seats
          FROM unnest(p_seats[v_next : v_next + p_seat_counts[i] - 1]) AS s;
        v_next := v_next + p_seat_counts[i];
        v_key := nullif(p_keys[i], '');

        IF v_key IS NOT NULL THEN
            -- A concurrent request with the same key holds this lock until it commits: report it in flight. (The
            -- same key twice in one batch takes the lock twice and gets the first one's stored answer.)
            IF NOT pg_try_advisory_xact_lock(hashtextextended(p_owners[i] || E'\x1f' || v_key, 7)) THEN
                o_status := 409;
                o_body := jsonb_build_object('error', 'request_in_progress',
                                           'message', 'A request with this Idempotency-Key is still being processed.');
                RETURN NEXT;
                CONTINUE;
            END IF;
            SELECT * INTO v_stored FROM idempotency_keys
             WHERE owner = p_owners[i] AND key = v_key AND expires_at > now();
            IF FOUND THEN
                IF v_stored.request_hash <> p_hashes[i] THEN
                    o_status := 422;
                    o_body := jsonb_build_object('error', 'idempotency_key_reused',
                                               'message', 'This Idempotency-Key was used with a different request.');
                ELSE
                    o_status := v_stored.response_status;
                    o_body := v_stored.response_body;
                END IF;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;

        IF v_show.show_id IS NULL THEN
            o_status := 404;
            o_body := jsonb_build_object('error', 'show_not_found', 'message', 'There is no show with this id.');
            RETURN NEXT;
            CONTINUE; -- nothing to remember: the same request would get the same answer
        END IF;

        IF NOT v_open THEN
            o_status := 422;
            o_body := jsonb_build_object('error', 'sales_closed',
                                       'message', CASE WHEN now() < v_show.sales_open_at
                                                       THEN 'Sales for this show have not opened yet.'
                                                       ELSE 'Sales for this show are closed.' END);
        ELSE
            SELECT count(*) INTO v_found FROM show_seats WHERE show_id = p_show AND seat_id = ANY (v_seats);
            IF v_found <> cardinality(v_seats) OR v_found = 0 THEN
                o_status := 400;
                o_body := jsonb_build_object('error', 'unknown_seat',
                    'message', 'Some seat ids do not exist in this show.',
                    'unknown_seats', (SELECT coalesce(jsonb_agg(s ORDER BY s), '[]') FROM unnest(v_seats) AS s
                                       WHERE NOT EXISTS (SELECT 1 FROM show_seats ss
                                                          WHERE ss.show_id = p_show AND ss.seat_id = s)));
                RETURN NEXT;
                CONTINUE; -- a client error: not remembered, nothing changed
            END IF;

            -- All-or-nothing in one conditional statement: the rows are claimed only if every one of them is
            -- available or held by an expired hold at v_now (one instant for the whole request, so an expiry
            -- between two evaluations cannot split it). The TTL starts once the rows are ours.
            v_now := clock_timestamp();
            v_hold := gen_random_uuid();
            v_expires := v_now + make_interval(secs => p_ttl_s);
            UPDATE show_seats
               SET status = 'held', held_by = v_hold, hold_expires_at = v_expires, version = version + 1
             WHERE show_id = p_show AND seat_id = ANY (v_seats)
               AND (status = 'available' OR (status = 'held' AND hold_expires_at <= v_now))
               AND NOT EXISTS (SELECT 1 FROM show_seats t
                                WHERE t.show_id = p_show AND t.seat_id = ANY (v_seats)
                                  AND NOT (t.status = 'available' OR (t.status = 'held' AND t.hold_expires_at <= v_now)));
            GET DIAGNOSTICS v_claimed = ROW_COUNT;
            IF v_claimed = 0 THEN
                o_status := 409;
                o_body := jsonb_build_object('error', 'seats_unavailable',
                    'message', 'Some of these seats were just taken; none of them is held for you.',
                    'held_seats', (SELECT coalesce(jsonb_agg(seat_id ORDER BY seat_id), '[]') FROM show_seats
                                    WHERE show_id = p_show AND seat_id = ANY (v_seats)
                                      AND NOT (status = 'available' OR (status = 'held' AND hold_expires_at <= v_now))));
            ELSIF v_claimed <> cardinality(v_seats) THEN
                -- Cannot happen (the rows are locked by this transaction); if it ever did, nothing of the batch
                -- may stand: the error rolls everything back and the server decides each request alone.
                RAISE EXCEPTION 'hold of % seats claimed % of them', cardinality(v_seats), v_claimed;
            ELSE
                -- created_at is taken after the claim, not now() (see mq_place_hold in 001_core.sql), so that
                -- [created_at, min(expires_at, released_at)) of the holds of one seat never overlap.
                INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at)
                VALUES (v_hold, p_show, p_owners[i], v_seats, clock_timestamp(), v_expires);
                o_status := 200;
                o_body := jsonb_build_object('hold_id', v_hold, 'show_id', p_show, 'seat_ids', to_jsonb(v_seats),
                                           'expires_at', to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
                INSERT INTO outbox (event_type, aggregate_id, payload)
                VALUES ('hold.placed', v_hold::text,
                        jsonb_build_object('hold_id', v_hold, 'show_id', p_show, 'seat_ids', to_jsonb(v_seats),
                                           'expires_at', o_body->'expires_at'));
            END IF;
        END IF;

        IF v_key IS NOT NULL THEN
            INSERT INTO idempotency_keys (owner, key, request_hash, response_status, response_body, expires_at)
            VALUES (p_owners[i], v_key, p_hashes[i], o_status, o_body, now() + interval '24 hours')
            ON CONFLICT (owner, key) DO UPDATE
               SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
                   response_body = EXCLUDED.response_body, created_at = now(), expires_at = EXCLUDED.expires_at;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;

-- One request alone is a batch of one: the same logic in one place (and no subtransaction per hold any more).
CREATE OR REPLACE FUNCTION mq_place_hold(p_owner text, p_idem_key text, p_request_hash text, p_show bigint,
                                         p_seats text[], p_ttl_s integer, OUT o_status integer, OUT o_body jsonb)
LANGUAGE sql AS $$
    SELECT b.o_status, b.o_body
      FROM mq_place_holds(p_show, p_ttl_s, ARRAY[p_owner], ARRAY[p_idem_key], ARRAY[p_request_hash], p_seats,
                          ARRAY[coalesce(cardinality(p_seats), 0)]) AS b;
$$;

-- Frees the seats of expired holds, at most p_batch holds per call, found through holds_unswept (show_seats has
-- no index on expiry any more). Holds and seats a live transaction has locked are skipped, to be freed by a
-- later sweep; seats are locked in canonical order like every other writer. A hold is marked swept once none of
-- its seats is held by it (an order that extended it in the meantime moved its expires_at: it stays unswept).
-- Returns the number of seats freed.
CREATE OR REPLACE FUNCTION mq_reap_expired_holds(p_batch integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_holds   uuid[];
    v_count   integer;
BEGIN
    SELECT array_agg(hold_id) INTO v_holds
      FROM (SELECT hold_id FROM holds
             WHERE released_at IS NULL AND swept_at IS NULL AND expires_at <= clock_timestamp()
             ORDER BY expires_at
             LIMIT p_batch
             FOR UPDATE SKIP LOCKED) AS due;
    v_count := 0;
    IF v_holds IS NOT NULL THEN
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
        SELECT count(*) INTO v_count FROM freed;

        UPDATE holds h SET swept_at = clock_timestamp()
         WHERE h.hold_id = ANY (v_holds)
           AND NOT EXISTS (SELECT 1 FROM show_seats ss
                            WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                              AND ss.status = 'held' AND ss.held_by = h.hold_id);
    END IF;
    DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT p_batch);
    RETURN v_count;
END;
$$;
