-- SPDX-License-Identifier: AGPL-3.0-or-later
-- The reaper's sweep of up to p_batch leases past their expiry, neither returned nor swept, skipping leases
-- another instance has locked. A lease whose seats were all sold is closed (returned, by "system:expiry"). A
-- lease with seats still leased is marked unreported and its seats stay leased: the device may have sold them
-- offline and not reported yet, so they are never resold silently (rule 4) — the desk lists them, the device's
-- upload and return settle them, a manager may release them. Returns how many leases it swept.
CREATE OR REPLACE FUNCTION mq_sweep_leases(p_batch integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_lease  seat_leases%ROWTYPE;
    v_left   integer;
    v_swept  integer := 0;
BEGIN
    FOR v_lease IN SELECT * FROM seat_leases
                    WHERE returned_at IS NULL AND unreported_at IS NULL AND expires_at <= clock_timestamp()
                    ORDER BY expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED LOOP
        SELECT count(*) INTO v_left FROM show_seats WHERE show_id = v_lease.show_id AND leased_to = v_lease.lease_id;
        IF v_left = 0 THEN
            UPDATE seat_leases SET returned_at = clock_timestamp(), returned_by = 'system:expiry' WHERE lease_id = v_lease.lease_id;
            INSERT INTO outbox (event_type, aggregate_id, payload)
            VALUES ('lease.returned', v_lease.lease_id::text,
                    jsonb_build_object('lease_id', v_lease.lease_id, 'show_id', v_lease.show_id, 'device_id', v_lease.device_id,
                                       'seat_ids', '[]'::jsonb));
        ELSE
            UPDATE seat_leases SET unreported_at = clock_timestamp() WHERE lease_id = v_lease.lease_id;
            INSERT INTO outbox (event_type, aggregate_id, payload)
            VALUES ('lease.unreported', v_lease.lease_id::text, mq_lease_json(v_lease.lease_id));
        END IF;
        v_swept := v_swept + 1;
    END LOOP;
    RETURN v_swept;
END;
$$;
