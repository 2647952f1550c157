-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 39: seat-block leases. A lease gives one device (a till) the exclusive right to sell a named set
-- of seats of one show until expires_at (the show's start plus a grace period), online and offline. Its seats
-- are `leased` in show_seats (leased_to, lease_expires_at), taken by one conditional UPDATE like a hold
-- (mq_place_lease) and given back by the device (mq_return_lease); the device's offline sales become bookings
-- through lease_sales (mq_lease_sale) and the ordinary order and booking path. docs/sync.md has the lifecycle.
--
-- The migrations run in one transaction, and PostgreSQL refuses to use an enum value added in the transaction
-- that is still open: every statement below compares status::text, never the new value itself.
ALTER TYPE seat_status ADD VALUE IF NOT EXISTS 'leased';

CREATE TABLE seat_leases (
    lease_id       uuid PRIMARY KEY,
    show_id        bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    device_id      bigint NOT NULL REFERENCES devices,  -- the device that may sell the seats
    requested_by   text NOT NULL,                       -- "device:7" or "session:12" (a cashier at that till)
    seat_ids       text[] COLLATE "C" NOT NULL CHECK (cardinality(seat_ids) > 0),
    created_at     timestamptz NOT NULL,
    return_by      timestamptz NOT NULL,                -- an online device hands unsold seats back by then
    expires_at     timestamptz NOT NULL,                -- no sale under the lease after this (start + grace)
    returned_at    timestamptz,                         -- closed: unsold seats back on sale, no more sales
    returned_by    text,
    revoked_at     timestamptz,                         -- a manager revoked it; seats stay until the device reports
    revoked_by     text,
    unreported_at  timestamptz,                         -- expired with seats neither sold nor returned
    idempotency_key text,
    request_hash   text NOT NULL,
    CHECK (created_at <= return_by AND return_by <= expires_at),
    CHECK ((returned_at IS NULL) = (returned_by IS NULL) AND (revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE UNIQUE INDEX seat_leases_key ON seat_leases (requested_by, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX seat_leases_show ON seat_leases (show_id, created_at);
CREATE INDEX seat_leases_device_open ON seat_leases (device_id, show_id) WHERE returned_at IS NULL;
CREATE INDEX seat_leases_due ON seat_leases (expires_at) WHERE returned_at IS NULL AND unreported_at IS NULL;

ALTER TABLE show_seats
    ADD COLUMN leased_to        uuid,
    ADD COLUMN lease_expires_at timestamptz,
    ADD CONSTRAINT show_seats_leased CHECK ((status::text = 'leased') = (leased_to IS NOT NULL AND lease_expires_at IS NOT NULL));
CREATE INDEX show_seats_lease ON show_seats (leased_to) WHERE leased_to IS NOT NULL;

-- One row per offline (or online) sale a device made under a lease, keyed by its own sequence number: the upload
-- is idempotent (same content: the same answer; other content under the same number: refused). The sale becomes
-- a hold of its seats (hold_id, leased -> held in the same transaction as this row), then an ordinary cash order
-- and booking; order_id and booking_id are recorded once they exist, so a retry after a crash resumes there.
CREATE TABLE lease_sales (
    lease_id       uuid NOT NULL REFERENCES seat_leases ON DELETE CASCADE,
    device_seq     bigint NOT NULL CHECK (device_seq > 0),
    request_hash   text NOT NULL,
    seat_ids       text[] COLLATE "C" NOT NULL,
    amount_minor   bigint NOT NULL CHECK (amount_minor >= 0),
    currency       char(3) NOT NULL,
    tendered_minor bigint NOT NULL CHECK (tendered_minor >= amount_minor),
    sold_at        timestamptz NOT NULL,
    tickets        jsonb NOT NULL,       -- what the device printed: [{ticket_id, seat_id, code}]
    hold_id        uuid NOT NULL,
    order_id       uuid,
    booking_id     uuid,
    received_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lease_id, device_seq)
);
CREATE UNIQUE INDEX lease_sales_hold ON lease_sales (hold_id);

-- A manager's lease settings for one show; a NULL column (or no row) takes the server's default
-- (--lease-seats-per-device, --lease-return-before, --lease-grace).
CREATE TABLE show_lease_settings (
    show_id           bigint PRIMARY KEY REFERENCES shows ON DELETE CASCADE,
    seats_per_device  integer CHECK (seats_per_device >= 0),
    return_before_s   integer CHECK (return_before_s >= 0),
    grace_s           integer CHECK (grace_s >= 0),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    updated_by        text NOT NULL
);
-- mq_place_lease, mq_return_lease, mq_lease_sale, mq_sweep_leases: server/sql/functions/
