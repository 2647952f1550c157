-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 1: catalog, seat layouts, live show seats, holds, idempotency keys, auth, outbox.
-- Money is always bigint minor units next to an ISO 4217 currency. Timestamps are timestamptz (UTC on the wire).

CREATE TABLE cities (
    city_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name      text NOT NULL UNIQUE,
    country   text NOT NULL DEFAULT '',
    time_zone text NOT NULL DEFAULT 'UTC'
);

CREATE TABLE venues (
    venue_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    city_id  bigint NOT NULL REFERENCES cities,
    name     text NOT NULL,
    address  text NOT NULL DEFAULT '',
    UNIQUE (city_id, name)
);

-- A seat layout is the physical plan of a screen or arena; shows copy its seats into show_seats.
CREATE TABLE seat_layouts (
    layout_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name      text NOT NULL,
    width     integer NOT NULL CHECK (width > 0),
    height    integer NOT NULL CHECK (height > 0),
    -- The screen or stage edge: {"label":"SCREEN","x1":..,"y1":..,"x2":..,"y2":..}
    stage     jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE layout_rows (
    layout_id bigint NOT NULL REFERENCES seat_layouts ON DELETE CASCADE,
    row_label text COLLATE "C" NOT NULL,
    sort_key  integer NOT NULL,
    label_x   integer NOT NULL,
    label_y   integer NOT NULL,
    PRIMARY KEY (layout_id, row_label)
);

CREATE TABLE layout_seats (
    layout_id  bigint NOT NULL REFERENCES seat_layouts ON DELETE CASCADE,
    seat_id    text COLLATE "C" NOT NULL CHECK (length(seat_id) BETWEEN 1 AND 32),
    row_label  text COLLATE "C" NOT NULL,
    number     integer NOT NULL,
    x          integer NOT NULL,
    y          integer NOT NULL,
    tier       text NOT NULL,
    attributes text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (layout_id, seat_id),
    FOREIGN KEY (layout_id, row_label) REFERENCES layout_rows (layout_id, row_label)
);

CREATE TABLE screens (
    screen_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue_id  bigint NOT NULL REFERENCES venues,
    name      text NOT NULL,
    layout_id bigint NOT NULL REFERENCES seat_layouts,
    UNIQUE (venue_id, name)
);

CREATE TABLE movies (
    movie_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title       text NOT NULL,
    kind        text NOT NULL DEFAULT 'movie' CHECK (kind IN ('movie', 'event')),
    runtime_min integer NOT NULL CHECK (runtime_min > 0),
    rating      text NOT NULL DEFAULT '',
    genres      text[] NOT NULL DEFAULT '{}',
    synopsis    text NOT NULL DEFAULT ''
);

CREATE TABLE shows (
    show_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    movie_id       bigint NOT NULL REFERENCES movies,
    screen_id      bigint NOT NULL REFERENCES screens,
    starts_at      timestamptz NOT NULL,
    sales_open_at  timestamptz NOT NULL,
    sales_close_at timestamptz NOT NULL,
    currency       char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    waiting_room   boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (sales_open_at <= sales_close_at AND sales_close_at <= starts_at)
);
CREATE INDEX shows_movie_starts ON shows (movie_id, starts_at);
CREATE INDEX shows_starts ON shows (starts_at);

CREATE TABLE show_prices (
    show_id      bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    tier         text NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    PRIMARY KEY (show_id, tier)
);

CREATE TYPE seat_status AS ENUM ('available', 'held', 'booked');

-- The live state of every seat of every show. The only arbiter of who holds or owns a seat is a conditional
-- UPDATE on this table (compare-and-set on status, holder and expiry), see mq_place_hold().
CREATE TABLE show_seats (
    show_id         bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    seat_id         text COLLATE "C" NOT NULL,
    status          seat_status NOT NULL DEFAULT 'available',
    held_by         uuid,
    hold_expires_at timestamptz,
    booking_id      uuid,
    version         bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (show_id, seat_id),
    CHECK ((status = 'held') = (held_by IS NOT NULL AND hold_expires_at IS NOT NULL)),
    CHECK ((status = 'booked') = (booking_id IS NOT NULL))
) WITH (fillfactor = 80); -- room for HOT updates: status flips never touch an indexed column but status
CREATE INDEX show_seats_status ON show_seats (show_id, status);
CREATE INDEX show_seats_expiring ON show_seats (hold_expires_at) WHERE status = 'held';
CREATE INDEX show_seats_holder ON show_seats (held_by) WHERE held_by IS NOT NULL;

-- Who may hold: enrolled devices and staff sessions. Only SHA-256 hashes of bearer tokens are stored.
CREATE TABLE devices (
    device_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL UNIQUE,
    role         text NOT NULL CHECK (role IN ('kiosk', 'till')),
    token_hash   text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz,
    revoked_at   timestamptz
);

CREATE TABLE staff (
    staff_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL UNIQUE,
    role          text NOT NULL CHECK (role IN ('cashier', 'manager', 'admin')),
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);

CREATE TABLE sessions (
    session_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    staff_id       bigint NOT NULL REFERENCES staff,
    token_hash     text NOT NULL UNIQUE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    ended_at       timestamptz
);

CREATE TABLE holds (
    hold_id     uuid PRIMARY KEY,
    show_id     bigint NOT NULL REFERENCES shows,
    owner       text NOT NULL, -- "device:<id>" or "session:<id>"
    seat_ids    text[] COLLATE "C" NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    released_at timestamptz
);
CREATE INDEX holds_owner ON holds (owner, created_at);

-- Stored responses for requests that carried an Idempotency-Key, scoped to the caller.
CREATE TABLE idempotency_keys (
    owner           text NOT NULL,
    key             text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash    text NOT NULL,
    response_status integer NOT NULL,
    response_body   jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (owner, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Transactional outbox: every state change others care about is written here in the same transaction.
CREATE TABLE outbox (
    event_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_type   text NOT NULL,
    aggregate_id text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Places an all-or-nothing hold in one round trip and one transaction.
-- Returns the HTTP status and JSON body to send; with an idempotency key the result is stored and replayed.
CREATE FUNCTION mq_place_hold(p_owner text, p_idem_key text, p_request_hash text, p_show bigint,
                              p_seats text[], p_ttl_s integer, OUT o_status integer, OUT o_body jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    v_show      shows%ROWTYPE;
    v_seats     text[];
    v_found     integer;
    v_claimed   text[];
    v_hold      uuid := gen_random_uuid();
    v_expires   timestamptz;
    v_stored    idempotency_keys%ROWTYPE;
BEGIN
    IF p_idem_key IS NOT NULL THEN
        -- A concurrent request with the same key holds this lock until it commits: report it in flight.
        IF NOT pg_try_advisory_xact_lock(hashtextextended(p_owner || E'\x1f' || p_idem_key, 7)) THEN
            o_status := 409;
            o_body := jsonb_build_object('error', 'request_in_progress',
                                       'message', 'A request with this Idempotency-Key is still being processed.');
            RETURN;
        END IF;
        SELECT * INTO v_stored FROM idempotency_keys
         WHERE owner = p_owner AND key = p_idem_key AND expires_at > now();
        IF FOUND THEN
            IF v_stored.request_hash <> p_request_hash THEN
                o_status := 422;
                o_body := jsonb_build_object('error', 'idempotency_key_reused',
                                           'message', 'This Idempotency-Key was used with a different request.');
            ELSE
                o_status := v_stored.response_status;
                o_body := v_stored.response_body;
            END IF;
            RETURN;
        END IF;
    END IF;

    SELECT * INTO v_show FROM shows WHERE show_id = p_show;
    IF NOT FOUND THEN
        o_status := 404;
        o_body := jsonb_build_object('error', 'show_not_found', 'message', 'There is no show with this id.');
        RETURN; -- nothing to remember: the same request would get the same answer
    END IF;

    SELECT array_agg(s ORDER BY s) INTO v_seats FROM unnest(p_seats) AS s;

    IF now() >= v_show.starts_at OR now() > v_show.sales_close_at OR now() < v_show.sales_open_at THEN
        o_status := 422;
        o_body := jsonb_build_object('error', 'sales_closed',
                                   'message', CASE WHEN now() < v_show.sales_open_at
                                                   THEN 'Sales for this show have not opened yet.'
                                                   ELSE 'Sales for this show are closed.' END);
    ELSE
        -- Lock the rows in canonical (byte) order so that overlapping multi-seat holds queue up instead of
        -- deadlocking. This only orders the locks; the conditional UPDATE below decides.
        PERFORM 1 FROM show_seats WHERE show_id = p_show AND seat_id = ANY (v_seats) ORDER BY seat_id FOR UPDATE;
        GET DIAGNOSTICS v_found = ROW_COUNT;
        IF v_found <> cardinality(v_seats) THEN
            o_status := 400;
            o_body := jsonb_build_object('error', 'unknown_seat',
                'message', 'Some seat ids do not exist in this show.',
                'unknown_seats', (SELECT jsonb_agg(s ORDER BY s) FROM unnest(v_seats) AS s
                                   WHERE NOT EXISTS (SELECT 1 FROM show_seats ss
                                                      WHERE ss.show_id = p_show AND ss.seat_id = s)));
            RETURN; -- a client error: not remembered, nothing changed
        END IF;

        -- The TTL starts once the rows are ours, not when the request arrived: time spent queueing behind
        -- other holders' row locks must not eat into (or, under load, use up) the customer's hold.
        v_expires := clock_timestamp() + make_interval(secs => p_ttl_s);
        BEGIN
            WITH claimed AS (
                UPDATE show_seats
                   SET status = 'held', held_by = v_hold, hold_expires_at = v_expires, version = version + 1
                 WHERE show_id = p_show AND seat_id = ANY (v_seats)
                   AND (status = 'available' OR (status = 'held' AND hold_expires_at <= clock_timestamp()))
                RETURNING seat_id)
            SELECT coalesce(array_agg(seat_id), '{}') INTO v_claimed FROM claimed;
            IF cardinality(v_claimed) <> cardinality(v_seats) THEN
                -- Undo the partial claim: the whole block rolls back, the variables survive.
                RAISE EXCEPTION USING ERRCODE = 'MQ409';
            END IF;
        EXCEPTION WHEN SQLSTATE 'MQ409' THEN
            o_status := 409;
            o_body := jsonb_build_object('error', 'seats_unavailable',
                'message', 'Some of these seats were just taken; none of them is held for you.',
                'held_seats', (SELECT coalesce(jsonb_agg(s ORDER BY s), '[]') FROM unnest(v_seats) AS s
                                WHERE s <> ALL (v_claimed)));
        END;

        IF o_status IS NULL THEN
            -- created_at is taken after the claim (not now(), the start of the transaction, which may precede
            -- the previous holder's release or expiry while this request waited for the row locks), so that
            -- [created_at, min(expires_at, released_at)) of the holds of one seat never overlap.
            INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at)
            VALUES (v_hold, p_show, p_owner, v_seats, clock_timestamp(), v_expires);
            o_status := 200;
            o_body := jsonb_build_object('hold_id', v_hold, 'show_id', p_show, 'seat_ids', to_jsonb(v_seats),
                                       'expires_at', to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
            INSERT INTO outbox (event_type, aggregate_id, payload)
            VALUES ('hold.placed', v_hold::text,
                    jsonb_build_object('hold_id', v_hold, 'show_id', p_show, 'seat_ids', to_jsonb(v_seats),
                                       'expires_at', o_body->'expires_at'));
        END IF;
    END IF;

    IF p_idem_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (owner, key, request_hash, response_status, response_body, expires_at)
        VALUES (p_owner, p_idem_key, p_request_hash, o_status, o_body, now() + interval '24 hours')
        ON CONFLICT (owner, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
               response_body = EXCLUDED.response_body, created_at = now(), expires_at = EXCLUDED.expires_at;
    END IF;
END;
$$;

-- Releases a hold at once. Idempotent: releasing a released or expired hold succeeds and changes nothing.
-- Returns the hold's show, or NULL when the hold does not exist or belongs to someone else.
CREATE FUNCTION mq_release_hold(p_owner text, p_hold uuid) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_hold holds%ROWTYPE;
    v_freed text[];
BEGIN
    SELECT * INTO v_hold FROM holds WHERE hold_id = p_hold AND owner = p_owner FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM show_seats WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
      ORDER BY seat_id FOR UPDATE;
    WITH freed AS (
        UPDATE show_seats
           SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = version + 1
         WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
           AND status = 'held' AND held_by = p_hold
        RETURNING seat_id)
    SELECT coalesce(array_agg(seat_id ORDER BY seat_id), '{}') INTO v_freed FROM freed;
    IF v_hold.released_at IS NULL THEN
        -- clock_timestamp() after the seats are locked and freed, not now(): a request that saw these seats
        -- held did so before this point, so the recorded live interval covers every such observation.
        UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = p_hold;
        INSERT INTO outbox (event_type, aggregate_id, payload)
        VALUES ('hold.released', p_hold::text,
                jsonb_build_object('hold_id', p_hold, 'show_id', v_hold.show_id, 'seat_ids', to_jsonb(v_freed),
                                   'reason', 'released'));
    END IF;
    RETURN v_hold.show_id;
END;
$$;

-- Frees the seats of expired holds in small batches, skipping rows a live transaction has locked.
-- Seats are locked in canonical order, like every other writer. Returns the number of seats freed.
CREATE FUNCTION mq_reap_expired_holds(p_batch integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_count integer;
BEGIN
    WITH expired AS (
        SELECT show_id, seat_id, held_by FROM show_seats
         WHERE status = 'held' AND hold_expires_at <= clock_timestamp()
         ORDER BY show_id, seat_id
         LIMIT p_batch
         FOR UPDATE SKIP LOCKED),
    freed AS (
        UPDATE show_seats ss
           SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = ss.version + 1
          FROM expired e
         WHERE ss.show_id = e.show_id AND ss.seat_id = e.seat_id
           AND ss.status = 'held' AND ss.hold_expires_at <= clock_timestamp()
        RETURNING ss.show_id, ss.seat_id, e.held_by),
    events AS (
        INSERT INTO outbox (event_type, aggregate_id, payload)
        SELECT 'hold.expired', held_by::text,
               jsonb_build_object('hold_id', held_by, 'show_id', show_id,
                                  'seat_ids', jsonb_agg(seat_id ORDER BY seat_id))
          FROM freed GROUP BY held_by, show_id
        RETURNING 1)
    SELECT count(*) INTO v_count FROM freed;
    DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT p_batch);
    RETURN v_count;
END;
$$;
