-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Ends a lease (DELETE /api/v1/leases/{id}). Returns o_decision, o_data (mq_lease_json), o_show and o_freed (the
-- seats this call put back on sale, ascending):
--   returned        the lease's own device (p_device) gave it back: it has reported every sale it made, so the
--                   seats still leased go back to available; a manager ending a lease past its expiry does the
--                   same (the desk's "release unreported seats"). Again: returned, nothing freed.
--   revoked         a manager ended a lease that has not expired: no more leases of it are granted and its seats
--                   stay leased (the device may have sold them offline) until the device reports and returns,
--                   or the lease expires and a manager releases what is unreported.
--   lease_not_found {}: no such lease, or another device's (p_manager false)
-- The lease row is locked first and the seats in canonical order, like every seat writer.
CREATE OR REPLACE FUNCTION mq_return_lease(p_lease uuid, p_actor text, p_device bigint, p_manager boolean,
                                           OUT o_decision text, OUT o_data jsonb, OUT o_show bigint, OUT o_freed text[])
LANGUAGE plpgsql AS $$
DECLARE
    v_lease seat_leases%ROWTYPE;
BEGIN
    o_freed := '{}';
    o_data := '{}';
    SELECT * INTO v_lease FROM seat_leases WHERE lease_id = p_lease FOR UPDATE;
    IF NOT FOUND OR (NOT p_manager AND v_lease.device_id IS DISTINCT FROM p_device) THEN
        o_decision := 'lease_not_found';
        RETURN;
    END IF;
    o_show := v_lease.show_id;
    IF v_lease.returned_at IS NULL AND v_lease.device_id IS DISTINCT FROM p_device AND v_lease.expires_at > now() THEN
        IF v_lease.revoked_at IS NULL THEN
            UPDATE seat_leases SET revoked_at = clock_timestamp(), revoked_by = p_actor WHERE lease_id = p_lease;
            INSERT INTO outbox (event_type, aggregate_id, payload)
            VALUES ('lease.revoked', p_lease::text, jsonb_build_object('lease_id', p_lease, 'show_id', v_lease.show_id,
                                                                       'device_id', v_lease.device_id));
        END IF;
        o_decision := 'revoked';
        o_data := mq_lease_json(p_lease);
        RETURN;
    END IF;
    IF v_lease.returned_at IS NULL THEN
        PERFORM 1 FROM show_seats WHERE show_id = v_lease.show_id AND seat_id = ANY (v_lease.seat_ids) ORDER BY seat_id FOR UPDATE;
        WITH freed AS (
            UPDATE show_seats
               SET status = 'available', leased_to = NULL, lease_expires_at = NULL, version = version + 1
             WHERE show_id = v_lease.show_id AND seat_id = ANY (v_lease.seat_ids) AND status::text = 'leased' AND leased_to = p_lease
            RETURNING seat_id)
        SELECT coalesce(array_agg(seat_id ORDER BY seat_id), '{}') INTO o_freed FROM freed;
        UPDATE seat_leases SET returned_at = clock_timestamp(), returned_by = p_actor WHERE lease_id = p_lease;
        INSERT INTO outbox (event_type, aggregate_id, payload)
        VALUES ('lease.returned', p_lease::text, jsonb_build_object('lease_id', p_lease, 'show_id', v_lease.show_id,
                                                                    'device_id', v_lease.device_id, 'seat_ids', to_jsonb(o_freed)));
    END IF;
    o_decision := 'returned';
    o_data := mq_lease_json(p_lease);
END;
$$;
