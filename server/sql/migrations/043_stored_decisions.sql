-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 43: every answer the database keeps for a retry is a decision and its data, never HTTP.
--
-- A repeated confirm of an order gets the answer its first confirm got, for the life of the order; a repeated hold
-- request under an Idempotency-Key gets its first decision for 24 hours. Both were stored as an HTTP status and a
-- body (orders.result_status/result_body; idempotency_keys.response_status/response_body, the latter only by
-- servers older than schema 30). They become decisions with their data, which the server turns into status, code
-- and message through its one catalogue (core/errorcatalogue) on every replay:
--   orders.confirm_decision   'confirmed' (confirm_data: the booking as confirm answered it), or the refusal the
--                             order ended in: payment_not_started, payment_failed, order_expired, order_cancelled,
--                             order_failed, hold_lost (confirm_data: what the refusal names, e.g. order_id, state)
--   idempotency_keys.decision granted, seats_taken, sales_closed, sales_not_open (as mq_place_holds decides them)
-- The catalogue renders each of them as the stored bytes were, so a stored answer replays byte for byte.
--
-- The conversion below recognises a stored body by its status, its code and its sentence (the sentences these
-- answers have had since they were first stored); it is the only place SQL reads them, and only to know which
-- decision an old row was. A row it does not recognise stops the upgrade (nothing is changed): a replay that
-- answered differently could tell a paying customer something else than the first answer did.

-- Orders: the stored confirm answer.
ALTER TABLE orders ADD COLUMN confirm_decision text, ADD COLUMN confirm_data jsonb;

UPDATE orders SET confirm_decision = 'confirmed', confirm_data = result_body WHERE result_status = 200;
UPDATE orders o
   SET confirm_decision = k.decision, confirm_data = o.result_body - 'error' - 'message'
  FROM (VALUES ('payment_not_started', 502, 'payment_provider_unavailable', 'The payment provider did not answer.'),
               ('payment_failed', 402, 'payment_failed', 'The payment was declined; the seats were released.'),
               ('order_expired', 409, 'order_expired', 'Nobody paid within the payment window; the seats were released.'),
               ('order_cancelled', 409, 'order_cancelled', 'The hold was released before paying; the order was cancelled.'),
               ('order_failed', 409, 'order_failed', 'The payment could not be started.'),
               ('hold_lost', 409, 'hold_lost', 'The seats were released before the payment completed; the payment is being refunded.'))
       AS k (decision, status, code, sentence)
 WHERE o.result_status = k.status AND o.result_body ->> 'error' = k.code AND o.result_body ->> 'message' = k.sentence;

DO $$
DECLARE
    v_order text;
BEGIN
    SELECT order_id::text INTO v_order FROM orders WHERE result_status IS NOT NULL AND confirm_decision IS NULL LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the stored confirm answer of order % is not one this server can replay; nothing was migrated', v_order;
    END IF;
END;
$$;

ALTER TABLE orders
    DROP COLUMN result_status,
    DROP COLUMN result_body,
    ADD CONSTRAINT orders_confirm_answer CHECK ((confirm_decision IS NULL) = (confirm_data IS NULL));

-- Hold requests under an Idempotency-Key: what servers older than schema 30 stored. Expired rows are never
-- replayed (and the reaper deletes them): they go now. (Schema 30's rule of one answer per row, a decision or a
-- status and body, goes first: a converted row has both until the status and body are dropped.)
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_one_answer;
DELETE FROM idempotency_keys WHERE decision IS NULL AND expires_at <= now();
UPDATE idempotency_keys SET decision = 'granted', decision_data = response_body
 WHERE decision IS NULL AND response_status = 200;
UPDATE idempotency_keys k
   SET decision = d.decision, decision_data = k.response_body - 'error' - 'message'
  FROM (VALUES ('seats_taken', 409, 'seats_unavailable', 'Some of these seats were just taken; none of them is held for you.'),
               ('sales_closed', 422, 'sales_closed', 'Sales for this show are closed.'),
               ('sales_not_open', 422, 'sales_closed', 'Sales for this show have not opened yet.'))
       AS d (decision, status, code, sentence)
 WHERE k.decision IS NULL AND k.response_status = d.status AND k.response_body ->> 'error' = d.code
   AND k.response_body ->> 'message' = d.sentence;

DO $$
DECLARE
    v_key text;
BEGIN
    SELECT owner || ' ' || key INTO v_key FROM idempotency_keys WHERE decision IS NULL LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the hold answer stored under the key % is not one this server can replay; nothing was migrated', v_key;
    END IF;
END;
$$;

ALTER TABLE idempotency_keys
    DROP COLUMN response_status,
    DROP COLUMN response_body,
    ALTER COLUMN decision SET NOT NULL,
    ALTER COLUMN decision_data SET NOT NULL;
-- mq_place_holds (server/sql/functions/mq_place_holds.sql) no longer knows stored statuses and bodies.
