-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Revocation reaches every instance at once: a device revoked, a staff member disabled or a session ended (or
-- its elevation changed) notifies channel marquee_auth when its transaction commits, however it was changed —
-- through the server, marquee-admin or plain SQL. Each instance LISTENs (store::ChangeListener) and drops its
-- cached token lookups, so the next request is decided on the database again. The payload names the table only:
-- a listener drops everything, which is cheap, rather than trusting a payload to say what changed. A device's
-- venue is part of its principal (the keys it is given, the tickets its door admits): moving it notifies too.
CREATE OR REPLACE FUNCTION mq_notify_auth() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('marquee_auth', TG_TABLE_NAME);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER devices_notify_auth AFTER UPDATE OF revoked_at, role, token_hash, venue_id OR DELETE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION mq_notify_auth();
CREATE OR REPLACE TRIGGER staff_notify_auth AFTER UPDATE OF disabled_at, role, password_hash, pin_hash OR DELETE ON staff
    FOR EACH STATEMENT EXECUTE FUNCTION mq_notify_auth();
CREATE OR REPLACE TRIGGER sessions_notify_auth AFTER UPDATE OF ended_at, expires_at, elevated_until OR DELETE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION mq_notify_auth();
