-- SPDX-License-Identifier: AGPL-3.0-or-later
-- A new refund's cash share (all of a cash order's refund; of a mixed one, what exceeds its card share) and the
-- shift it belongs to: the open shift of the cashier who asked for it, else the order's own shift if still open.
CREATE OR REPLACE FUNCTION mq_refund_till() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_order orders%ROWTYPE;
BEGIN
    SELECT * INTO v_order FROM orders WHERE order_id = NEW.order_id;
    NEW.cash_minor := CASE WHEN v_order.provider = 'cash' THEN NEW.amount_minor
                           ELSE greatest(0, NEW.amount_minor - (v_order.amount_minor - v_order.cash_minor)) END;
    NEW.cash_minor := coalesce(NEW.cash_minor, 0);
    SELECT sh.shift_id INTO NEW.shift_id
      FROM sessions se JOIN shifts sh ON sh.staff_id = se.staff_id AND sh.closed_at IS NULL
     WHERE se.session_id = substring(NEW.requested_by FROM '^session:(\d+)$')::bigint;
    IF NEW.shift_id IS NULL THEN
        SELECT sh.shift_id INTO NEW.shift_id FROM shifts sh WHERE sh.shift_id = v_order.shift_id AND sh.closed_at IS NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER refunds_till BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION mq_refund_till();
