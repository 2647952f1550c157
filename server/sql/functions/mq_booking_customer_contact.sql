-- SPDX-License-Identifier: AGPL-3.0-or-later
-- The booking inherits the contact from its order when it is written (like the sales facts of 006: the confirm
-- transaction needs no change).
CREATE OR REPLACE FUNCTION mq_booking_customer_contact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.customer_email IS NULL AND NEW.customer_phone IS NULL THEN
        SELECT o.customer_email, o.customer_phone INTO NEW.customer_email, NEW.customer_phone
          FROM orders o WHERE o.order_id = NEW.order_id;
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER bookings_customer_contact BEFORE INSERT ON bookings
    FOR EACH ROW EXECUTE FUNCTION mq_booking_customer_contact();
