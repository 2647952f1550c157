-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 11: the sales report's rollup per UTC day and per UTC month, kept exact by
-- triggers in the writing transaction, so a whole year reads ~15,000 pre-summed rows instead of every booking
-- (docs/perf/journal.md, "sales, occupancy and shifts over a year with 1,000,000 tickets"); a show's bookings in
-- one index range for occupancy; the shift list by till in one index range.

-- ── Sales per UTC day and month, per grouping ────────────────────────────────────────────────────────────────
-- One row per (dimension, grain, period, key, currency): what bookings created in that UTC day (grain 'day') or
-- month (grain 'month', period_start = the 1st) and refunds asked for in it add up to, under each grouping of
-- GET /api/v1/reports/sales. A refund counts when it was asked for and under its booking's show, movie, channel
-- and device (as the report always did). The 'day' grouping sums the 'channel' rows: every booking and refund is
-- in exactly one of them. The report takes whole months from month rows, the other whole days from day rows
-- and the part-days at either end from bookings and refunds themselves (server/store/reportrepository.cpp).
--   dimension 'show'    key_id = show_id
--   dimension 'movie'   key_id = movie_id
--   dimension 'channel' key_text = channel
--   dimension 'device'  key_id = device_id, 0 for a sale without a device
-- Not a cache: the triggers below change it in the same transaction as the booking or refund row (INSERT ... ON
-- CONFLICT DO UPDATE adds, so concurrent writers serialise on the row and never lose an increment). A row whose
-- sales moved to another day (an edited created_at) stays with zero counts; the report skips such groups.
CREATE TABLE sales_rollup (
    dimension     text NOT NULL CHECK (dimension IN ('show', 'movie', 'channel', 'device')),
    grain         text NOT NULL CHECK (grain IN ('day', 'month')),
    period_start  date NOT NULL CHECK (grain = 'day' OR extract(day FROM period_start) = 1),
    key_id        bigint NOT NULL DEFAULT 0,
    key_text      text NOT NULL DEFAULT '',
    currency      char(3) NOT NULL,
    revenue_minor bigint NOT NULL,
    tickets       bigint NOT NULL,
    bookings      bigint NOT NULL,
    refunds       bigint NOT NULL,
    refunds_minor bigint NOT NULL,
    PRIMARY KEY (dimension, grain, period_start, key_id, key_text, currency)
) WITH (fillfactor = 80); -- room for HOT updates: the increments change no indexed column
-- mq_sales_rollup_add: server/sql/functions/sales_rollup.sql
-- mq_sales_rollup_refund: server/sql/functions/sales_rollup.sql
-- mq_sales_rollup_bookings: server/sql/functions/sales_rollup.sql
-- mq_sales_rollup_refunds: server/sql/functions/sales_rollup.sql
-- mq_sales_rollup_rebuild: server/sql/functions/sales_rollup.sql

-- ── Occupancy ──────────────────────────────────────────────────────────────────────────────────────────────
-- The sell order of a show's seats: its bookings and when they were made, in one index-only range (a 40,000-seat
-- show has ~7,500 bookings; one primary-key lookup each cost several times more).
CREATE INDEX bookings_show ON bookings (show_id) INCLUDE (booking_id, created_at);

-- ── Shifts ───────────────────────────────────────────────────────────────────────────────────────────────────
-- The shift list filtered by till reads one index range (closed shifts come from their stored Z-report).
CREATE INDEX shifts_device_opened ON shifts (device_id, opened_at);

-- marquee:after-functions
SELECT mq_sales_rollup_rebuild();
