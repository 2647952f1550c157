-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 23: a held seat keeps the price it was held at (issue 7 §4: "seats already held or sold are never
-- changed by an edit"). Every price a show's tier has had, from when; an order prices each seat at its tier's price
-- when the hold was placed (OrderRepository::create), so a price edit applies to seats held afterwards.
CREATE TABLE show_price_history (
    show_id        bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    tier           text NOT NULL,
    amount_minor   bigint NOT NULL CHECK (amount_minor >= 0),
    effective_from timestamptz NOT NULL,
    PRIMARY KEY (show_id, tier, effective_from)
);
-- Prices from before this migration: in force for every hold already placed.
INSERT INTO show_price_history (show_id, tier, amount_minor, effective_from)
    SELECT show_id, tier, amount_minor, '-infinity' FROM show_prices;

-- Kept by the one place prices are written, so no writer can forget it.
CREATE FUNCTION mq_record_show_price() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER show_prices_history AFTER INSERT OR UPDATE ON show_prices
    FOR EACH ROW EXECUTE FUNCTION mq_record_show_price();
