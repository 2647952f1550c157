-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Kept by the one place prices are written, so no writer can forget it.
CREATE OR REPLACE FUNCTION mq_record_show_price() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.amount_minor = NEW.amount_minor THEN
        RETURN NEW;
    END IF;
    INSERT INTO show_price_history (show_id, tier, amount_minor, effective_from)
        VALUES (NEW.show_id, NEW.tier, NEW.amount_minor, clock_timestamp())
        ON CONFLICT (show_id, tier, effective_from) DO UPDATE SET amount_minor = EXCLUDED.amount_minor;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER show_prices_history AFTER INSERT OR UPDATE ON show_prices
    FOR EACH ROW EXECUTE FUNCTION mq_record_show_price();
