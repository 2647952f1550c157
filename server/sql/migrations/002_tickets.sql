-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 2: ticket signing keys, tickets, revocations, check-ins, and the outbox's commit-order guard.

-- Per-venue Ed25519 keys. The newest unretired key of a venue signs new tickets; every key verifies until its
-- not_after (tickets signed with it are never valid beyond that, see TicketRepository). private_key is the raw
-- 32-byte seed: it never leaves the server (no endpoint reads it); see docs/tickets.md for production storage.
CREATE TABLE signing_keys (
    key_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY CHECK (key_id < 4294967296),
    venue_id    bigint NOT NULL REFERENCES venues,
    public_key  bytea NOT NULL CHECK (length(public_key) = 32),
    private_key bytea NOT NULL CHECK (length(private_key) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    not_after   timestamptz NOT NULL,
    retired_at  timestamptz,
    CHECK (created_at < not_after)
);
CREATE INDEX signing_keys_venue ON signing_keys (venue_id, created_at DESC);
-- At most one signing (unretired) key per venue: two concurrent "create the first key" calls cannot both win.
CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys (venue_id) WHERE retired_at IS NULL;

-- booking_id has no foreign key on purpose: bookings arrive in 003_orders.sql.
CREATE TABLE tickets (
    ticket_id   uuid PRIMARY KEY,
    booking_id  uuid NOT NULL,
    show_id     bigint NOT NULL REFERENCES shows,
    seat_id     text COLLATE "C" NOT NULL,
    key_id      bigint NOT NULL REFERENCES signing_keys,
    qr          text NOT NULL UNIQUE,
    state       text NOT NULL DEFAULT 'valid' CHECK (state IN ('valid', 'revoked')),
    valid_from  timestamptz NOT NULL,
    valid_until timestamptz NOT NULL,
    issued_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    reason      text,
    replaced_by uuid REFERENCES tickets,
    CHECK ((state = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX tickets_booking ON tickets (booking_id);
-- One valid ticket per seat of a show: a reissue revokes the old one in the same transaction.
CREATE UNIQUE INDEX tickets_one_valid_per_seat ON tickets (show_id, seat_id) WHERE state = 'valid';

-- The public revocation list, read incrementally by door scanners (GET /api/v1/revocations?after=cursor).
-- cursor is NULL until mq_publish_feed() numbers the row after its transaction committed (see below), so a
-- scanner paging by cursor never skips a revocation whose transaction committed late.
CREATE TABLE revocations (
    revocation_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    cursor        bigint UNIQUE,
    ticket_id     uuid NOT NULL REFERENCES tickets,
    revoked_at    timestamptz NOT NULL DEFAULT now(),
    reason        text NOT NULL DEFAULT ''
);
CREATE INDEX revocations_unpublished ON revocations (revocation_id) WHERE cursor IS NULL;

-- Every scan ever uploaded, keyed by the scanner's nonce so that an offline upload can be retried safely: the
-- same nonce always gets the stored answer. The first successful scan of a ticket is the one whose insert
-- into checkin_firsts wins (primary key), never a check-then-act.
CREATE TABLE checkins (
    checkin_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    nonce            text NOT NULL UNIQUE CHECK (length(nonce) BETWEEN 1 AND 128),
    request_hash     text NOT NULL,  -- the same nonce with another scan is refused, not answered
    ticket_id        uuid,           -- NULL when the QR could not be attributed (bad signature, unknown key)
    scanned_at       timestamptz NOT NULL,
    received_at      timestamptz NOT NULL DEFAULT now(),
    device           text NOT NULL,  -- the caller's owner string: "device:3", "session:9"
    result           text NOT NULL CHECK (result IN ('ok', 'already_redeemed', 'revoked', 'invalid_signature',
                                                     'unknown_key', 'wrong_show', 'not_yet_valid', 'expired')),
    first_scanned_at timestamptz,
    response         jsonb NOT NULL
);
CREATE INDEX checkins_ticket ON checkins (ticket_id);

CREATE TABLE checkin_firsts (
    ticket_id  uuid PRIMARY KEY REFERENCES tickets,
    scanned_at timestamptz NOT NULL,
    nonce      text NOT NULL,
    device     text NOT NULL
);

-- The outbox gap: identity values are taken at insert, not at commit, so event 105 can become visible before
-- event 104 commits; a reader paging by event_id would step over 104 for ever. (Filtering on the inserting
-- transaction's id below pg_snapshot_xmin() alone does not close it either: a transaction with a younger xid can
-- insert a smaller event_id.) Instead the feed is numbered after commit: mq_publish_feed() gives every committed,
-- not yet numbered row a feed_position from one sequence, one publisher at a time (advisory lock held to its
-- commit), in event_id order. Positions are only ever handed to committed rows and become visible atomically, in
-- increasing batches, so "feed_position > cursor" never misses a row; a late-committing event simply gets a later
-- position. Causal order is kept: an event whose transaction waited for another's commit is numbered no earlier.
ALTER TABLE outbox ADD COLUMN feed_position bigint;
CREATE UNIQUE INDEX outbox_feed_position ON outbox (feed_position);
CREATE INDEX outbox_unpublished ON outbox (event_id) WHERE feed_position IS NULL;

CREATE SEQUENCE feed_positions;
-- mq_publish_feed: server/sql/functions/mq_publish_feed.sql

-- Consumers of the outbox (webhook subscribers, the notification spool): how far each has got, and which events
-- it has already handled, so that a redelivery after a crash is recognised (dedupe by event id).
CREATE TABLE outbox_consumers (
    consumer    text PRIMARY KEY,
    cursor      bigint NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE outbox_deliveries (
    consumer     text NOT NULL,
    event_id     bigint NOT NULL,
    delivered_at timestamptz NOT NULL DEFAULT now(),
    attempts     integer NOT NULL DEFAULT 1,
    PRIMARY KEY (consumer, event_id)
);
