-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 32: every venue sells in one currency, which new shows take when they name none.
--
-- Venues that already have shows take the currency most of their shows use; a venue without shows stays NULL
-- (not known) until a manager or the seed sets it, and a show there must then name its currency.
ALTER TABLE venues ADD COLUMN currency char(3) CHECK (currency ~ '^[A-Z]{3}$');

UPDATE venues v
   SET currency = (SELECT s.currency
                     FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id
                    WHERE sc.venue_id = v.venue_id
                    GROUP BY s.currency
                    ORDER BY count(*) DESC, s.currency
                    LIMIT 1);
