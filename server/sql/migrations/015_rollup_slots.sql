-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 15 (issue 7): concurrent sales no longer queue on one rollup row. Every confirm added its share to
-- the same few sales_rollup rows (its show's, its movie's, its channel's and its device's for the day and the
-- month) and held their row locks until it committed, so confirms serialised: 8 concurrent confirms of one show
-- ran at 20/s with the rollup against 120/s without it (docs/performance.md, "Sales rollup under concurrent
-- confirms"). Each key now has up to 8 sub-rows (slot): a writer adds to the slot of its connection
-- (pg_backend_pid() % 8), so writers on different connections mostly touch different rows. Readers sum the
-- slots (the sales report groups by key anyway; sales_rollup_totals for anything that wants one row a key).

ALTER TABLE sales_rollup ADD COLUMN slot smallint NOT NULL DEFAULT 0 CHECK (slot BETWEEN 0 AND 7);
ALTER TABLE sales_rollup DROP CONSTRAINT sales_rollup_pkey;
ALTER TABLE sales_rollup ADD PRIMARY KEY (dimension, grain, period_start, key_id, key_text, currency, slot);

-- As in 011, with the slot of this connection: the lock order inside one call (day then month; show → movie →
-- channel → device) is unchanged, and one transaction always uses one slot.
CREATE OR REPLACE FUNCTION mq_sales_rollup_add(p_sign integer, p_at timestamptz, p_show bigint, p_movie bigint, p_channel text, p_device bigint,
                                              p_currency char(3), p_revenue bigint, p_tickets bigint, p_bookings bigint, p_refunds bigint,
                                              p_refunded bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO sales_rollup AS d (dimension, grain, period_start, key_id, key_text, currency, slot, revenue_minor, tickets, bookings, refunds,
                                   refunds_minor)
    SELECT v.dimension, g.grain, date_trunc(g.grain, p_at AT TIME ZONE 'UTC')::date, v.key_id, v.key_text, p_currency, pg_backend_pid() % 8,
           p_sign * p_revenue, p_sign * p_tickets, p_sign * p_bookings, p_sign * p_refunds, p_sign * p_refunded
      FROM (VALUES (1, 'day'), (2, 'month')) AS g(n, grain),
           (VALUES (1, 'show', p_show, ''), (2, 'movie', coalesce(p_movie, 0), ''), (3, 'channel', 0, coalesce(p_channel, '')),
                   (4, 'device', coalesce(p_device, 0), '')) AS v(n, dimension, key_id, key_text)
     ORDER BY g.n, v.n
    ON CONFLICT (dimension, grain, period_start, key_id, key_text, currency, slot) DO UPDATE
       SET revenue_minor = d.revenue_minor + EXCLUDED.revenue_minor, tickets = d.tickets + EXCLUDED.tickets,
           bookings = d.bookings + EXCLUDED.bookings, refunds = d.refunds + EXCLUDED.refunds,
           refunds_minor = d.refunds_minor + EXCLUDED.refunds_minor;
$$;

-- One row a key, the slots summed (one slot alone may be negative: a sale added on one connection and refunded
-- on another).
CREATE VIEW sales_rollup_totals AS
SELECT dimension, grain, period_start, key_id, key_text, currency, sum(revenue_minor)::bigint AS revenue_minor, sum(tickets)::bigint AS tickets,
       sum(bookings)::bigint AS bookings, sum(refunds)::bigint AS refunds, sum(refunds_minor)::bigint AS refunds_minor
  FROM sales_rollup GROUP BY dimension, grain, period_start, key_id, key_text, currency;
