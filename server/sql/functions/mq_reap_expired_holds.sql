-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Frees the seats of up to p_batch holds that have expired and were neither released nor converted, oldest
-- first, skipping holds another reaper has locked (several server instances reap at once). Returns each show and
-- the seats freed there, so that the server pushes the live seat-map delta from the write's own result.
CREATE OR REPLACE FUNCTION mq_reap_expired_holds(p_batch integer) RETURNS TABLE (o_show_id bigint, o_freed text[])
LANGUAGE plpgsql AS $$
DECLARE
    v_holds uuid[];
BEGIN
    SELECT array_agg(hold_id) INTO v_holds
      FROM (SELECT hold_id FROM holds
             WHERE released_at IS NULL AND swept_at IS NULL AND expires_at <= clock_timestamp()
             ORDER BY expires_at
             LIMIT p_batch
             FOR UPDATE SKIP LOCKED) AS due;
    IF v_holds IS NOT NULL THEN
        RETURN QUERY
        WITH expired AS (
            SELECT ss.show_id, ss.seat_id, ss.held_by
              FROM holds h JOIN show_seats ss ON ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
             WHERE h.hold_id = ANY (v_holds)
               AND ss.status = 'held' AND ss.held_by = h.hold_id AND ss.hold_expires_at <= clock_timestamp()
             ORDER BY ss.show_id, ss.seat_id
             FOR UPDATE OF ss SKIP LOCKED),
        freed AS (
            UPDATE show_seats ss
               SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = ss.version + 1
              FROM expired e
             WHERE ss.show_id = e.show_id AND ss.seat_id = e.seat_id
               AND ss.status = 'held' AND ss.held_by = e.held_by AND ss.hold_expires_at <= clock_timestamp()
            RETURNING ss.show_id, ss.seat_id, e.held_by),
        events AS (
            INSERT INTO outbox (event_type, aggregate_id, payload)
            SELECT 'hold.expired', held_by::text,
                   jsonb_build_object('hold_id', held_by, 'show_id', show_id,
                                      'seat_ids', jsonb_agg(seat_id ORDER BY seat_id))
              FROM freed GROUP BY held_by, show_id
            RETURNING 1)
        SELECT f.show_id, array_agg(f.seat_id ORDER BY f.seat_id) FROM freed f GROUP BY f.show_id;

        UPDATE holds h SET swept_at = clock_timestamp()
         WHERE h.hold_id = ANY (v_holds)
           AND NOT EXISTS (SELECT 1 FROM show_seats ss
                            WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
                              AND ss.status = 'held' AND ss.held_by = h.hold_id);
    END IF;
    DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT p_batch);
END;
$$;
