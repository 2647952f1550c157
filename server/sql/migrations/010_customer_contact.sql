-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 10: the customer's phone and e-mail, given at the till or kiosk when the order is made,
-- so the box office can find a booking by them (GET /api/v1/customers/bookings?phone=|email=).
--
-- The server stores both already normalised (e-mail trimmed and lower-cased; phone reduced to its digits with a
-- leading + kept), so the search is an equality on a plain btree index, never a scan with lower() or regexp.
ALTER TABLE orders
    ADD COLUMN customer_email text CHECK (customer_email IS NULL OR length(customer_email) <= 254),
    ADD COLUMN customer_phone text CHECK (customer_phone IS NULL OR customer_phone ~ '^\+?[0-9]{6,20}$');
-- mq_booking_customer_contact: server/sql/functions/mq_booking_customer_contact.sql

-- Newest first within one contact: the search reads the index backwards and stops at its limit.
CREATE INDEX bookings_customer_email ON bookings (customer_email, created_at) WHERE customer_email IS NOT NULL;
CREATE INDEX bookings_customer_phone ON bookings (customer_phone, created_at) WHERE customer_phone IS NOT NULL;
