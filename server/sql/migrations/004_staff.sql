-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 4: the staff audit log (append-only) and device fleet health.

-- Every staff action: who, what, when, from which device, and why. Rows are never changed or removed.
CREATE TABLE audit_log (
    audit_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor      text NOT NULL,          -- "session:12" or "device:3"
    actor_name text NOT NULL,
    actor_role text NOT NULL,
    device_id  bigint REFERENCES devices,
    action     text NOT NULL,          -- e.g. "show.create", "show.update", "booking.cancel.override"
    target     text NOT NULL DEFAULT '',
    reason     text NOT NULL DEFAULT '',
    details    jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor, at);
CREATE INDEX audit_log_action ON audit_log (action, at);

CREATE FUNCTION mq_refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION mq_refuse_audit_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION mq_refuse_audit_change();

-- What each device last reported about itself.
ALTER TABLE devices
    ADD COLUMN app_version   text NOT NULL DEFAULT '',
    ADD COLUMN queue_length  integer NOT NULL DEFAULT 0 CHECK (queue_length >= 0),
    ADD COLUMN printer_state text NOT NULL DEFAULT 'unknown';
