-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 15: concurrent sales no longer queue on one rollup row. Every confirm added its share to
-- the same few sales_rollup rows (its show's, its movie's, its channel's and its device's for the day and the
-- month) and held their row locks until it committed, so confirms serialised: 8 concurrent confirms of one show
-- ran at 20/s with the rollup against 120/s without it (docs/perf/journal.md, "Sales rollup under concurrent
-- confirms"). Each key now has up to 8 sub-rows (slot): a writer adds to the slot of its connection
-- (pg_backend_pid() % 8), so writers on different connections mostly touch different rows. Readers sum the
-- slots (the sales report groups by key anyway; sales_rollup_totals for anything that wants one row a key).

ALTER TABLE sales_rollup ADD COLUMN slot smallint NOT NULL DEFAULT 0 CHECK (slot BETWEEN 0 AND 7);
ALTER TABLE sales_rollup DROP CONSTRAINT sales_rollup_pkey;
ALTER TABLE sales_rollup ADD PRIMARY KEY (dimension, grain, period_start, key_id, key_text, currency, slot);
-- mq_sales_rollup_add: server/sql/functions/sales_rollup.sql
-- sales_rollup_totals: server/sql/functions/sales_rollup.sql
