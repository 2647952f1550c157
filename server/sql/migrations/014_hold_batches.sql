-- Faster holds: HOT seat updates, a reaper that finds expired holds through the holds
-- table, and mq_place_holds, which decides a batch of hold requests for one show in one transaction (group
-- commit; the server coalesces concurrent requests, see HoldBatcher). Every decision is still the conditional
-- UPDATE on show_seats, all-or-nothing per request, rows locked in canonical order.

-- No query needs these any more (every reader of show_seats goes by show_id or (show_id, seat_id), the primary
-- key; hold(), the reaper and the tests find a hold's seats through holds.seat_ids). Without them no column a
-- hold, release or sale changes is indexed, so those updates are HOT: no index entry is written per seat.
DROP INDEX show_seats_expiring;
DROP INDEX show_seats_holder;
DROP INDEX show_seats_status;

-- A hold the reaper has finished with: none of its seats is held by it any more. Until then (and while neither
-- released nor converted) it is in holds_unswept, where the reaper finds it once expires_at has passed.
ALTER TABLE holds ADD COLUMN swept_at timestamptz;
UPDATE holds h SET swept_at = now()
 WHERE h.released_at IS NULL AND h.expires_at <= now()
   AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                    AND ss.status = 'held' AND ss.held_by = h.hold_id);
CREATE INDEX holds_unswept ON holds (expires_at) WHERE released_at IS NULL AND swept_at IS NULL;
-- mq_place_holds: server/sql/functions/mq_place_holds.sql
-- mq_place_hold: server/sql/functions/mq_place_holds.sql
-- mq_reap_expired_holds: server/sql/functions/mq_reap_expired_holds.sql
