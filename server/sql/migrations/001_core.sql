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
-- mq_place_hold: server/sql/functions/mq_place_holds.sql
-- mq_release_hold: server/sql/functions/mq_release_hold.sql
-- mq_reap_expired_holds: server/sql/functions/mq_reap_expired_holds.sql
