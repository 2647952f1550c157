-- SPDX-License-Identifier: AGPL-3.0-or-later
-- A new order of a cashier belongs to the cashier's open shift (the Z-report counts it there); a cash order's cash
-- share is its whole amount.
CREATE OR REPLACE FUNCTION mq_order_shift() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.provider = 'cash' THEN
        NEW.cash_minor := NEW.amount_minor;
    END IF;
    IF NEW.staff_id IS NOT NULL AND NEW.shift_id IS NULL THEN
        SELECT shift_id INTO NEW.shift_id FROM shifts WHERE staff_id = NEW.staff_id AND closed_at IS NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER orders_shift BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION mq_order_shift();
