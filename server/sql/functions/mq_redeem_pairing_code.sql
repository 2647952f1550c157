-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Redeem a pairing code (migration 036): the one way the server's role creates a device. Runs with the owner's
-- rights (SECURITY DEFINER, a fixed search_path) and does exactly this: the code whose hash is p_code_hash, if
-- unused and not expired, becomes used and its device is created with the token hash p_token_hash.
-- Decisions: paired, unknown_code, code_used, code_expired, name_taken (a device of that name was enrolled
-- meanwhile). The row lock makes two redeems of one code one paired and one code_used.
CREATE OR REPLACE FUNCTION mq_redeem_pairing_code(p_code_hash text, p_token_hash text)
RETURNS TABLE (decision text, device_id bigint, device_name text, device_role text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    code record;
    created bigint;
BEGIN
    SELECT * INTO code FROM pairing_codes p WHERE p.code_hash = p_code_hash FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown_code'::text, NULL::bigint, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF code.used_at IS NOT NULL THEN
        RETURN QUERY SELECT 'code_used'::text, NULL::bigint, code.device_name, code.role;
        RETURN;
    END IF;
    IF code.expires_at <= now() THEN
        RETURN QUERY SELECT 'code_expired'::text, NULL::bigint, code.device_name, code.role;
        RETURN;
    END IF;
    -- Of the only venue, as marquee-admin device add enrols one; in a database of several venues the operator
    -- gives it one with device venue (a code carries no venue yet).
    INSERT INTO devices AS d (name, role, token_hash, venue_id)
        VALUES (code.device_name, code.role, p_token_hash, (SELECT min(v.venue_id) FROM venues v HAVING count(*) = 1))
        ON CONFLICT (name) DO NOTHING RETURNING d.device_id INTO created;
    IF created IS NULL THEN
        RETURN QUERY SELECT 'name_taken'::text, NULL::bigint, code.device_name, code.role;
        RETURN;
    END IF;
    UPDATE pairing_codes SET used_at = now(), device_id = created WHERE pairing_id = code.pairing_id;
    RETURN QUERY SELECT 'paired'::text, created, code.device_name, code.role;
END;
$$;
-- Only the roles granted it (the server's, ServerRole::grant) may call it, not every role of the cluster.
REVOKE ALL ON FUNCTION mq_redeem_pairing_code(text, text) FROM PUBLIC;
