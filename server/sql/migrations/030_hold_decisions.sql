-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 30: a hold's answer under an Idempotency-Key is stored as its decision and data, not as HTTP.
--
-- mq_place_holds decides (granted, seats_taken, sales_closed, …) and the server turns a decision into a status
-- and a body through one catalogue (core/errorcatalogue). What the same request must get again is therefore the
-- decision with its data (hold id, expiry, the seats taken …): `decision` and `decision_data`. Rendering is
-- deterministic, so a replay is byte for byte what the first answer was. Rows an older server stored as a status
-- and a body (response_status, response_body) keep replaying as stored until they expire (24 hours); new rows
-- leave those two columns empty. idempotency_keys is the hold path's alone.
ALTER TABLE idempotency_keys
    ALTER COLUMN response_status DROP NOT NULL,
    ALTER COLUMN response_body DROP NOT NULL,
    ADD COLUMN decision text,
    ADD COLUMN decision_data jsonb,
    ADD CONSTRAINT idempotency_keys_one_answer CHECK (
        CASE WHEN decision IS NULL THEN response_status IS NOT NULL AND response_body IS NOT NULL
             ELSE decision_data IS NOT NULL AND response_status IS NULL AND response_body IS NULL END);
-- mq_place_holds, mq_place_hold: server/sql/functions/mq_place_holds.sql (now returning decisions)
