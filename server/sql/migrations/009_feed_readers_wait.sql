-- A feed reader must see every event committed before its request: mq_publish_feed used to give up (-1) when
-- another publisher (the outbox relay, another reader) held the publisher lock, and the reader then paged before
-- that publisher's numbers were committed, so a freshly committed event could be missing from a read that
-- started after its commit. Readers now pass p_wait => true and queue behind the running publisher (its lock is
-- held only to its commit, a few milliseconds); background publishers keep the non-blocking default.
DROP FUNCTION mq_publish_feed(integer);

CREATE FUNCTION mq_publish_feed(p_batch integer, p_wait boolean DEFAULT false) RETURNS integer
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
