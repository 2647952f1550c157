-- SPDX-License-Identifier: AGPL-3.0-or-later
-- One lease as the API shows it (GET /api/v1/leases/{id}, and the answer of every lease write):
-- {lease_id, show_id, device_id, state, seat_ids, leased_seats, sold_seats, sales, created_at, return_by,
--  expires_at, returned_at, revoked_at, unreported_at}. leased_seats: still leased to it (neither sold nor given
-- back); sold_seats: taken by the sales it reported (each becomes one booking). state: returned, unreported,
-- revoked, expired (not swept yet) or active. NULL when there is no such lease. plpgsql, so that nothing here is
-- parsed before the migration that adds 'leased' has committed.
CREATE OR REPLACE FUNCTION mq_lease_json(p_lease uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_lease  seat_leases%ROWTYPE;
    v_leased text[];
    v_sold   text[];
    v_sales  integer;
BEGIN
    SELECT * INTO v_lease FROM seat_leases WHERE lease_id = p_lease;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(array_agg(seat_id ORDER BY seat_id), '{}') INTO v_leased
      FROM show_seats WHERE show_id = v_lease.show_id AND leased_to = p_lease;
    SELECT coalesce(array_agg(s ORDER BY s), '{}') INTO v_sold
      FROM lease_sales ls, unnest(ls.seat_ids) AS s WHERE ls.lease_id = p_lease;
    SELECT count(*) INTO v_sales FROM lease_sales WHERE lease_id = p_lease;
    RETURN jsonb_build_object(
        'lease_id', v_lease.lease_id, 'show_id', v_lease.show_id, 'device_id', v_lease.device_id,
        'state', CASE WHEN v_lease.returned_at IS NOT NULL THEN 'returned'
                      WHEN v_lease.unreported_at IS NOT NULL THEN 'unreported'
                      WHEN v_lease.revoked_at IS NOT NULL THEN 'revoked'
                      WHEN v_lease.expires_at <= now() THEN 'expired'
                      ELSE 'active' END,
        'seat_ids', to_jsonb(v_lease.seat_ids), 'leased_seats', to_jsonb(v_leased), 'sold_seats', to_jsonb(v_sold),
        'sales', v_sales,
        'created_at', mq_iso(v_lease.created_at), 'return_by', mq_iso(v_lease.return_by),
        'expires_at', mq_iso(v_lease.expires_at), 'returned_at', mq_iso(v_lease.returned_at),
        'revoked_at', mq_iso(v_lease.revoked_at), 'unreported_at', mq_iso(v_lease.unreported_at));
END;
$$;

-- A time as the API writes it (UTC, milliseconds, Z); NULL stays NULL (a JSON null in jsonb_build_object).
CREATE OR REPLACE FUNCTION mq_iso(p_at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
$$;
