-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 6: sales-report facts on bookings, till shifts and the cash drawer, cash tendered and
-- change, split (cash + card) payments, staff PINs, session inactivity lock and re-authentication, house holds.

-- ── Sales reports ────────────────────────────────────────────────────────────────────────────────────────────
-- What each booking was sold through, copied from its order and show when the booking row is written (trigger
-- below, so the confirm transaction needs no change). The sales report then reads one covering index range of
-- bookings instead of joining orders and shows per row: a year of 1,000,000 tickets stays well under 200 ms
-- (docs/performance.md, the table's "Every report < 200 ms with 1,000,000 tickets").
ALTER TABLE bookings
    ADD COLUMN channel   text,
    ADD COLUMN device_id bigint,
    ADD COLUMN staff_id  bigint,
    ADD COLUMN movie_id  bigint,
    ADD COLUMN tickets   integer;
-- mq_booking_sales_facts: server/sql/functions/mq_booking_sales_facts.sql

UPDATE bookings b SET channel = o.channel, device_id = o.device_id, staff_id = o.staff_id, movie_id = s.movie_id,
                      tickets = cardinality(b.seat_ids)
  FROM orders o, shows s WHERE o.order_id = b.order_id AND s.show_id = b.show_id;

CREATE INDEX bookings_sales ON bookings (created_at)
    INCLUDE (amount_minor, currency, tickets, channel, device_id, show_id, movie_id);
-- Refunds are reported by when they were asked for, grouped like the booking they give money back for.
CREATE INDEX refunds_created ON refunds (created_at);

-- ── Shifts and the cash drawer ───────────────────────────────────────────────────────────────────────────────
-- A cashier's shift at a till: opened with a float, closed with the counted cash. The Z-report is computed from
-- the orders, refunds and drawer operations of the shift and stored on close, so a later reprint shows what
-- was signed off.
CREATE TABLE shifts (
    shift_id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    staff_id            bigint NOT NULL REFERENCES staff,
    device_id           bigint REFERENCES devices,     -- the till, when the app names it
    currency            char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    opening_float_minor bigint NOT NULL CHECK (opening_float_minor >= 0),
    opened_at           timestamptz NOT NULL DEFAULT now(),
    opened_by           text NOT NULL,                  -- "session:<id>"
    closed_at           timestamptz,
    closed_by           text,
    counted_cash_minor  bigint CHECK (counted_cash_minor >= 0),
    z_report            jsonb,
    CHECK ((closed_at IS NULL) = (counted_cash_minor IS NULL) AND (closed_at IS NULL) = (z_report IS NULL))
);
-- One open shift per cashier: two concurrent "open" calls cannot both win.
CREATE UNIQUE INDEX shifts_one_open ON shifts (staff_id) WHERE closed_at IS NULL;
CREATE INDEX shifts_opened ON shifts (opened_at);

CREATE TABLE drawer_operations (
    operation_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    shift_id     bigint NOT NULL REFERENCES shifts,
    kind         text NOT NULL CHECK (kind IN ('cash_in', 'cash_out', 'no_sale')),
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    reason       text NOT NULL DEFAULT '',
    actor        text NOT NULL,
    at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'no_sale') = (amount_minor = 0))
);
CREATE INDEX drawer_operations_shift ON drawer_operations (shift_id);

-- Orders taken at a till belong to the cashier's open shift (set when the order is written). cash_minor is the
-- part paid in cash: all of a cash order, part of a split order (the rest is the card intent), 0 for card.
-- tendered/change are what the customer handed over and got back for that cash part.
ALTER TABLE orders
    ADD COLUMN shift_id       bigint REFERENCES shifts,
    ADD COLUMN cash_minor     bigint NOT NULL DEFAULT 0 CHECK (cash_minor >= 0 AND cash_minor <= amount_minor),
    ADD COLUMN tendered_minor bigint CHECK (tendered_minor >= 0),
    ADD COLUMN change_minor   bigint CHECK (change_minor >= 0);
UPDATE orders SET cash_minor = amount_minor WHERE provider = 'cash';
ALTER TABLE orders
    ADD CONSTRAINT orders_tender_adds_up CHECK (tendered_minor IS NULL OR tendered_minor = cash_minor + change_minor),
    ADD CONSTRAINT orders_cash_is_cash CHECK (provider <> 'cash' OR cash_minor = amount_minor);
CREATE INDEX orders_shift ON orders (shift_id) WHERE shift_id IS NOT NULL;
-- mq_order_shift: server/sql/functions/mq_order_shift.sql

-- A refund gives the cash part back from a drawer and the rest through the card provider. Card first: the
-- cash part only covers what the card part cannot (a cancellation fee is kept from the card side first).
-- The cash leaves the drawer of the requester's open shift, or else of the shift that took the sale if it is
-- still open; with neither (a manager at the desk, a kiosk's order) it is in no drawer.
ALTER TABLE refunds
    ADD COLUMN cash_minor bigint NOT NULL DEFAULT 0 CHECK (cash_minor >= 0),
    ADD COLUMN shift_id   bigint REFERENCES shifts;
UPDATE refunds r SET cash_minor = r.amount_minor FROM orders o WHERE o.order_id = r.order_id AND o.provider = 'cash';
-- mq_refund_till: server/sql/functions/mq_refund_till.sql
CREATE INDEX refunds_shift ON refunds (shift_id) WHERE shift_id IS NOT NULL;

-- ── Staff PINs, inactivity lock, re-authentication ───────────────────────────────────────────────────────────
ALTER TABLE staff ADD COLUMN pin_hash text;   -- PBKDF2 like the password (core/tokenhash)
ALTER TABLE sessions
    ADD COLUMN last_active_at  timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN elevated_until  timestamptz,   -- refunds, overrides and drawer operations need this in the future
    ADD COLUMN failed_reauths  integer NOT NULL DEFAULT 0;

-- ── House holds ──────────────────────────────────────────────────────────────────────────────────────────────
-- Seats a manager keeps back for house use are ordinary holds (owner 'house', mq_place_hold, so sold seats are
-- never touched) with a long TTL, released explicitly. note says why.
ALTER TABLE holds ADD COLUMN note text;
