-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 35: a device belongs to a venue. Its keys feed (GET /api/v1/keys) holds that venue's ticket
-- keys only, its door refuses another venue's tickets offline and online, and a staff session signed in on it
-- is of its venue too. NULL: a device enrolled before venues were assigned in a database of several venues;
-- it gets no keys until marquee-admin device venue --name NAME --venue ID gives it one.
ALTER TABLE devices ADD COLUMN venue_id bigint REFERENCES venues;
-- A database of one venue: every device is of that venue.
UPDATE devices SET venue_id = (SELECT min(venue_id) FROM venues HAVING count(*) = 1) WHERE venue_id IS NULL;
-- The devices trigger of mq_notify_auth now names venue_id too (a device moved to another venue is looked up anew).

-- A door's check-in of another venue's ticket is stored as wrong_venue.
ALTER TABLE checkins DROP CONSTRAINT checkins_result_check;
ALTER TABLE checkins ADD CONSTRAINT checkins_result_check
    CHECK (result IN ('ok', 'already_redeemed', 'revoked', 'invalid_signature', 'unknown_key', 'wrong_venue', 'wrong_show',
                      'not_yet_valid', 'expired'));
