-- Releases and expiries say which seats they freed, so that the server pushes the live seat-map delta
-- from the write's own result, as it does for holds and sales, instead of waiting for a re-read of the whole show.
-- Same statements, same lock order as before; only the return values change (hence DROP + CREATE).

-- Releases a hold at once. Idempotent: releasing a released or expired hold succeeds and changes nothing.
-- Returns the hold's show and the seats this call freed (ascending; empty when it freed none), or a row of NULLs
-- when the hold does not exist or belongs to someone else.
DROP FUNCTION IF EXISTS mq_release_hold(text, uuid);
-- mq_release_hold: server/sql/functions/mq_release_hold.sql

-- Frees the seats of expired holds, at most p_batch holds per call (as in 014: found through holds_unswept,
-- locked rows skipped, seats in canonical order, a hold marked swept once none of its seats is held by it).
-- Returns one row per show with the seats freed (ascending); no row when nothing was freed.
DROP FUNCTION IF EXISTS mq_reap_expired_holds(integer);
-- mq_reap_expired_holds: server/sql/functions/mq_reap_expired_holds.sql
