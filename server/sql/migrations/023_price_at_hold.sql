-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 23: a held seat keeps the price it was held at (a price edit never changes seats already held or
-- sold). Every price a show's tier has had, from when; an order prices each seat at its tier's price
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
-- mq_record_show_price: server/sql/functions/mq_record_show_price.sql
