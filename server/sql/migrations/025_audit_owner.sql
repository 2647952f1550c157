-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 25: the audit log is owned by a role of its own, so the server's role cannot silence it.
--
-- Until now audit_log and its trigger function were owned by the role that ran the migrations, which is normally
-- the server's own: the triggers of 004 refused UPDATE, DELETE and TRUNCATE, but the owner could DROP or DISABLE
-- them (or replace the function). Here both move to marquee_audit_owner, a role that cannot log in, and the
-- migrating role keeps only SELECT and INSERT on the table. A role that is not a superuser, may not create roles
-- and is not a member of marquee_audit_owner then can neither change nor remove rows, nor touch the triggers.
--
-- What this does NOT protect against: a superuser (the embedded cluster and the test cluster connect as one, so
-- there it only puts the ownership in place), a role with CREATEROLE (it may grant itself the owner role), and
-- the owner of the schema, who may still DROP the whole table (loud: every audited action fails after that).
--
-- Only a role that may create roles can do this. Any other (an external database whose server role is a plain
-- owner) skips it and keeps working as before; the server logs at start that the separation is not in place and
-- `marquee-admin audit-protection` prints the SQL a database administrator runs instead.
DO $$
DECLARE
    me text := current_user;
    can_create boolean;
    is_super boolean;
BEGIN
    SELECT rolsuper, rolsuper OR rolcreaterole INTO is_super, can_create FROM pg_roles WHERE rolname = me;
    IF NOT can_create THEN
        RAISE NOTICE 'audit_log stays owned by %: this role may not create roles (see marquee-admin audit-protection)', me;
        RETURN;
    END IF;
    -- Roles are shared by every database of the cluster: another database (a parallel test run) may create it
    -- at the same moment.
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'marquee_audit_owner') THEN
        BEGIN
            CREATE ROLE marquee_audit_owner NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
    -- A role that is not a superuser may give a table away only to a role it is a member of; it leaves again at
    -- once, or it could act as the owner later.
    IF NOT is_super THEN
        EXECUTE format('GRANT marquee_audit_owner TO %I', me);
    END IF;
    ALTER TABLE audit_log OWNER TO marquee_audit_owner;
    ALTER FUNCTION mq_refuse_audit_change() OWNER TO marquee_audit_owner;
    EXECUTE format('GRANT SELECT, INSERT ON audit_log TO %I', me);
    IF NOT is_super THEN
        EXECUTE format('REVOKE marquee_audit_owner FROM %I', me);
    END IF;
END;
$$;
