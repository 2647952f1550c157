-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 12: each kiosk's latest reconciliation summary, sent with its heartbeat,
-- so the manager desk's fleet page shows what the kiosk found after an outage (tickets confirmed, voided or
-- unknown; payments confirmed or to refund; the items that need a person). Only the latest is kept: the kiosk
-- keeps its full reports, the server keeps what a manager needs to act on. The heartbeat route checks the shape.
ALTER TABLE devices
    ADD COLUMN reconciliation jsonb CHECK (reconciliation IS NULL OR jsonb_typeof(reconciliation) = 'object'),
    ADD COLUMN reconciliation_received_at timestamptz;
