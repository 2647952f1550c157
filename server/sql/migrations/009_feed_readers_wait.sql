-- A feed reader must see every event committed before its request: mq_publish_feed used to give up (-1) when
-- another publisher (the outbox relay, another reader) held the publisher lock, and the reader then paged before
-- that publisher's numbers were committed, so a freshly committed event could be missing from a read that
-- started after its commit. Readers now pass p_wait => true and queue behind the running publisher (its lock is
-- held only to its commit, a few milliseconds); background publishers keep the non-blocking default.
DROP FUNCTION IF EXISTS mq_publish_feed(integer);
-- mq_publish_feed: server/sql/functions/mq_publish_feed.sql
