-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Copies onto a new booking what the sales reports group by: its order's channel, device (a cashier's sale counts
-- for the till of the shift it was taken in) and staff member, its show's movie and its ticket count, so that
-- the reports read one row per booking and the confirm transaction needs no change.
CREATE OR REPLACE FUNCTION mq_booking_sales_facts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A cashier's sale counts for the till of the shift it was taken in.
    SELECT o.channel, coalesce(o.device_id, sh.device_id), o.staff_id INTO NEW.channel, NEW.device_id, NEW.staff_id
      FROM orders o LEFT JOIN shifts sh ON sh.shift_id = o.shift_id WHERE o.order_id = NEW.order_id;
    SELECT s.movie_id INTO NEW.movie_id FROM shows s WHERE s.show_id = NEW.show_id;
    NEW.tickets := cardinality(NEW.seat_ids);
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER bookings_sales_facts BEFORE INSERT ON bookings
    FOR EACH ROW EXECUTE FUNCTION mq_booking_sales_facts();
