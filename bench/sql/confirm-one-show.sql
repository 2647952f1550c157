-- SPDX-License-Identifier: AGPL-3.0-or-later
-- One confirm of a kiosk order for show :show as pgbench runs it (scripts/bench-confirms): the writes of
-- BookingRepository::confirm that reach the sales rollup (the booking INSERT fires its triggers) and the order and
-- hold updates after it, one round trip each, in one transaction. The hold and the order are made in the same
-- transaction (a real confirm finds them made).
BEGIN;
WITH h AS (INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at)
           VALUES (gen_random_uuid(), :show, 'device:1', '{S1,S2}', now(), now() + interval '8 minutes') RETURNING hold_id),
     o AS (INSERT INTO orders (order_id, hold_id, show_id, owner, channel, seat_ids, amount_minor, currency, state, provider, created_at, updated_at, expires_at)
           SELECT gen_random_uuid(), hold_id, :show, 'device:1', 'kiosk', '{S1,S2}', 2500, 'EUR', 'PAID', 'paysim', now(), now(), now() + interval '15 minutes' FROM h
           RETURNING order_id, hold_id)
SELECT quote_literal(order_id) AS order_id, quote_literal(hold_id) AS hold_id, quote_literal(gen_random_uuid()) AS booking_id FROM o \gset
INSERT INTO bookings (booking_id, booking_ref, order_id, show_id, seat_ids, amount_minor, currency, state)
VALUES (:booking_id::uuid, upper(substr(md5(random()::text), 1, 12)), :order_id::uuid, :show, '{S1,S2}', 2500, 'EUR', 'confirmed');
UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = :hold_id::uuid AND released_at IS NULL;
UPDATE orders SET state = 'CONFIRMED', updated_at = now() WHERE order_id = :order_id::uuid;
UPDATE orders SET confirm_decision = 'confirmed', confirm_data = '{"state":"CONFIRMED"}'::jsonb, booking_id = :booking_id::uuid WHERE order_id = :order_id::uuid;
COMMIT;
