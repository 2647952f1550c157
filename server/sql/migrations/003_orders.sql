-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 3: orders, payments and provider events, bookings, refunds.
-- An order turns a frozen hold into money; a booking is what the money bought. The order state machine lives in
-- core/orderstate.cpp; the CHECK below only keeps the spelling honest. Money is bigint minor units + currency.

CREATE TABLE orders (
    order_id          uuid PRIMARY KEY,
    hold_id           uuid NOT NULL REFERENCES holds,
    show_id           bigint NOT NULL REFERENCES shows,
    owner             text NOT NULL,                 -- the hold's owner: "device:<id>" or "session:<id>"
    channel           text NOT NULL CHECK (channel IN ('kiosk', 'till', 'api')),
    device_id         bigint,
    staff_id          bigint,
    seat_ids          text[] COLLATE "C" NOT NULL,
    amount_minor      bigint NOT NULL CHECK (amount_minor >= 0),
    currency          char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    state             text NOT NULL CHECK (state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'CONFIRMED', 'FAILED',
                                                     'EXPIRED', 'CANCELLED', 'REFUND_PENDING', 'REFUNDED')),
    provider          text NOT NULL CHECK (provider IN ('paysim', 'cash')),
    payment_intent_id text UNIQUE,
    failure_reason    text,
    booking_id        uuid,
    -- The stored answer of confirm (status + body): a repeated confirm returns it unchanged.
    result_status     integer,
    result_body       jsonb,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    expires_at        timestamptz NOT NULL              -- end of the payment window
);
-- One live order per hold; a failed, expired or abandoned order leaves the hold free for another try.
CREATE UNIQUE INDEX orders_live_hold ON orders (hold_id) WHERE state NOT IN ('FAILED', 'EXPIRED', 'CANCELLED');
CREATE INDEX orders_unsettled ON orders (state, updated_at) WHERE state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING');
CREATE INDEX orders_owner ON orders (owner, created_at);

-- What the provider said about each payment intent (one per order).
CREATE TABLE payments (
    payment_intent_id text PRIMARY KEY,
    order_id          uuid NOT NULL UNIQUE REFERENCES orders,
    provider          text NOT NULL,
    amount_minor      bigint NOT NULL CHECK (amount_minor >= 0),
    currency          char(3) NOT NULL,
    status            text NOT NULL CHECK (status IN ('requires_payment', 'succeeded', 'failed', 'canceled', 'refunded')),
    decline_reason    text,
    captured_at       timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Every webhook event received, once per provider event id: the webhook's idempotency.
CREATE TABLE payment_events (
    provider          text NOT NULL,
    event_id          text NOT NULL,
    event_type        text NOT NULL,
    payment_intent_id text NOT NULL,
    payload           jsonb NOT NULL,
    received_at       timestamptz NOT NULL DEFAULT now(),
    processed_at      timestamptz,
    PRIMARY KEY (provider, event_id)
);

CREATE TABLE bookings (
    booking_id      uuid PRIMARY KEY,
    booking_ref     text NOT NULL UNIQUE CHECK (booking_ref ~ '^[A-Z0-9]{6,12}$'),
    order_id        uuid NOT NULL UNIQUE REFERENCES orders,
    show_id         bigint NOT NULL REFERENCES shows,
    seat_ids        text[] COLLATE "C" NOT NULL,
    amount_minor    bigint NOT NULL CHECK (amount_minor >= 0),
    currency        char(3) NOT NULL,
    state           text NOT NULL CHECK (state IN ('confirmed', 'cancelled')),
    customer_email  text,
    customer_phone  text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    cancelled_at    timestamptz,
    cancelled_by    text,
    cancel_reason   text,
    policy_override boolean NOT NULL DEFAULT false
);

-- One row per booked seat. The partial unique index is a second lock on the door: whatever a bug upstream
-- might do, PostgreSQL refuses two live bookings of one seat.
CREATE TABLE booking_seats (
    booking_id uuid NOT NULL REFERENCES bookings,
    show_id    bigint NOT NULL,
    seat_id    text COLLATE "C" NOT NULL,
    active     boolean NOT NULL DEFAULT true,
    PRIMARY KEY (booking_id, seat_id)
);
CREATE UNIQUE INDEX booking_seats_one_live ON booking_seats (show_id, seat_id) WHERE active;

-- Money given back. At most one refund per order, so a refund can never be issued twice.
CREATE TABLE refunds (
    refund_id          uuid PRIMARY KEY,
    order_id           uuid NOT NULL UNIQUE REFERENCES orders,
    booking_id         uuid REFERENCES bookings,
    payment_intent_id  text NOT NULL,
    provider           text NOT NULL,
    provider_refund_id text,
    amount_minor       bigint NOT NULL CHECK (amount_minor >= 0),
    currency           char(3) NOT NULL,
    reason             text NOT NULL,
    status             text NOT NULL CHECK (status IN ('pending', 'succeeded')),
    requested_by       text NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    completed_at       timestamptz
);
