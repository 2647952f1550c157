-- SPDX-License-Identifier: AGPL-3.0-or-later
-- The sales rollup (tables in migrations 011 and 015), kept exact by triggers in the writing transaction.
--
-- Add (p_sign = 1) or take away (p_sign = -1) one booking's or one refund's share in all four groupings and both
-- grains, in the slot of this connection (concurrent writers add to different rows of one key). The row order is
-- the lock order: every writer locks day then month, show → movie → channel → device; one transaction always
-- uses one slot.
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

-- A refund's share: its own day, amount and currency, its booking's groupings (p_booking's, passed in so a
-- booking trigger can move its refunds with its old or new groupings).
CREATE OR REPLACE FUNCTION mq_sales_rollup_refund(p_sign integer, r refunds, b bookings) RETURNS void LANGUAGE sql AS $$
    SELECT mq_sales_rollup_add(p_sign, r.created_at, b.show_id, b.movie_id, b.channel, b.device_id, r.currency, 0, 0, 0, 1, r.amount_minor);
$$;

CREATE OR REPLACE FUNCTION mq_sales_rollup_bookings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_refund refunds%ROWTYPE;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM mq_sales_rollup_add(-1, OLD.created_at, OLD.show_id, OLD.movie_id, OLD.channel, OLD.device_id, OLD.currency,
                                   OLD.amount_minor, OLD.tickets, 1, 0, 0);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM mq_sales_rollup_add(1, NEW.created_at, NEW.show_id, NEW.movie_id, NEW.channel, NEW.device_id, NEW.currency,
                                   NEW.amount_minor, NEW.tickets, 1, 0, 0);
    END IF;
    -- The booking's refunds are grouped by its show, movie, channel and device: move them along.
    IF TG_OP = 'UPDATE' AND (OLD.show_id, OLD.movie_id, OLD.channel, OLD.device_id) IS DISTINCT FROM
                            (NEW.show_id, NEW.movie_id, NEW.channel, NEW.device_id) THEN
        FOR v_refund IN SELECT * FROM refunds WHERE booking_id = NEW.booking_id LOOP
            PERFORM mq_sales_rollup_refund(-1, v_refund, OLD);
            PERFORM mq_sales_rollup_refund(1, v_refund, NEW);
        END LOOP;
    END IF;
    RETURN NULL;
END;
$$;

-- AFTER the BEFORE trigger bookings_sales_facts has copied channel, device, movie and tickets onto the row.
CREATE OR REPLACE TRIGGER bookings_sales_rollup AFTER INSERT OR DELETE OR UPDATE OF created_at, show_id, movie_id, channel, device_id, currency,
                                                                       amount_minor, tickets ON bookings
    FOR EACH ROW EXECUTE FUNCTION mq_sales_rollup_bookings();

CREATE OR REPLACE FUNCTION mq_sales_rollup_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_booking bookings%ROWTYPE;
BEGIN
    -- A refund without a booking (money returned for an order that never became one) is not in the sales report.
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.booking_id IS NOT NULL THEN
        SELECT * INTO v_booking FROM bookings WHERE booking_id = OLD.booking_id;
        PERFORM mq_sales_rollup_refund(-1, OLD, v_booking);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.booking_id IS NOT NULL THEN
        SELECT * INTO v_booking FROM bookings WHERE booking_id = NEW.booking_id;
        PERFORM mq_sales_rollup_refund(1, NEW, v_booking);
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER refunds_sales_rollup AFTER INSERT OR DELETE OR UPDATE OF created_at, booking_id, currency, amount_minor ON refunds
    FOR EACH ROW EXECUTE FUNCTION mq_sales_rollup_refunds();

-- The rollup from scratch: the backfill of migration 011, and after a bulk load that bypassed the triggers
-- (scripts/bench-reports loads with session_replication_role = replica).
CREATE OR REPLACE FUNCTION mq_sales_rollup_rebuild() RETURNS void LANGUAGE sql AS $$
    LOCK TABLE bookings, refunds IN SHARE MODE; -- no sale or refund may slip between the scan and the swap
    DELETE FROM sales_rollup;
    WITH facts AS (
        SELECT b.created_at AS at, b.show_id, b.movie_id, b.channel, b.device_id, b.currency,
               b.amount_minor AS revenue, b.tickets, 1 AS bookings, 0 AS refunds, 0 AS refunded
          FROM bookings b
        UNION ALL
        SELECT r.created_at, b.show_id, b.movie_id, b.channel, b.device_id, r.currency, 0, 0, 0, 1, r.amount_minor
          FROM refunds r JOIN bookings b ON b.booking_id = r.booking_id)
    INSERT INTO sales_rollup (dimension, grain, period_start, key_id, key_text, currency, revenue_minor, tickets, bookings, refunds,
                              refunds_minor)
    SELECT v.dimension, g.grain, date_trunc(g.grain, f.at AT TIME ZONE 'UTC')::date, v.key_id, v.key_text, f.currency,
           sum(f.revenue), sum(f.tickets), sum(f.bookings), sum(f.refunds), sum(f.refunded)
      FROM facts f
     CROSS JOIN (VALUES ('day'), ('month')) AS g(grain)
     CROSS JOIN LATERAL (VALUES ('show', f.show_id, ''), ('movie', coalesce(f.movie_id, 0), ''), ('channel', 0, coalesce(f.channel, '')),
                                ('device', coalesce(f.device_id, 0), '')) AS v(dimension, key_id, key_text)
     GROUP BY 1, 2, 3, 4, 5, 6;
$$;

-- One row a key, the slots summed (one slot alone may be negative: a sale added on one connection and refunded
-- on another).
CREATE OR REPLACE VIEW sales_rollup_totals AS
SELECT dimension, grain, period_start, key_id, key_text, currency, sum(revenue_minor)::bigint AS revenue_minor, sum(tickets)::bigint AS tickets,
       sum(bookings)::bigint AS bookings, sum(refunds)::bigint AS refunds, sum(refunds_minor)::bigint AS refunds_minor
  FROM sales_rollup GROUP BY dimension, grain, period_start, key_id, key_text, currency;
