-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 22: the enrolled device (till or desk) a staff session was opened on, so the audit log says
-- from which device every staff action came. NULL: signed in without a device token.
ALTER TABLE sessions ADD COLUMN device_id bigint REFERENCES devices;
