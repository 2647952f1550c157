-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Numbers the outbox events and ticket revocations not yet numbered, in commit order, on one sequence that the
-- event feed (GET /api/v1/events) and the revocation list page by. One publisher at a time (an advisory lock):
-- background publishers skip (-1) when another holds it; feed readers pass p_wait => true and queue behind it, so
-- a read that starts after an event's commit always sees that event. Returns how many rows it numbered.
CREATE OR REPLACE FUNCTION mq_publish_feed(p_batch integer, p_wait boolean DEFAULT false) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_events integer;
    v_revocations integer;
BEGIN
    IF p_wait THEN
        PERFORM pg_advisory_xact_lock(hashtextextended('marquee.feed.publisher', 0));
    ELSIF NOT pg_try_advisory_xact_lock(hashtextextended('marquee.feed.publisher', 0)) THEN
        RETURN -1;
    END IF;
    -- Each statement below takes a fresh snapshot (READ COMMITTED), taken after the lock: it sees every number
    -- the previous publisher committed, so no row is numbered twice.
    WITH pending AS (
        SELECT event_id FROM outbox WHERE feed_position IS NULL ORDER BY event_id LIMIT p_batch),
    numbered AS (
        SELECT event_id, nextval('feed_positions') AS position
          FROM (SELECT event_id FROM pending ORDER BY event_id) ordered)
    UPDATE outbox o SET feed_position = n.position FROM numbered n WHERE o.event_id = n.event_id;
    GET DIAGNOSTICS v_events = ROW_COUNT;
    WITH pending AS (
        SELECT revocation_id FROM revocations WHERE cursor IS NULL ORDER BY revocation_id LIMIT p_batch),
    numbered AS (
        SELECT revocation_id, nextval('feed_positions') AS position
          FROM (SELECT revocation_id FROM pending ORDER BY revocation_id) ordered)
    UPDATE revocations r SET cursor = n.position FROM numbered n WHERE r.revocation_id = n.revocation_id;
    GET DIAGNOSTICS v_revocations = ROW_COUNT;
    RETURN v_events + v_revocations;
END;
$$;
