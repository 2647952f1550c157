-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 36: pairing a device with a one-time code instead of copying its token by hand.
--
-- marquee-admin device add --pairing (as the owner) writes one row: the SHA-256 of a short random code (the code
-- itself is shown once to the operator and never stored), the device's name and role, and when it stops being
-- valid (15 minutes). The device sends the code to POST /api/v1/devices/pair; mq_redeem_pairing_code (SECURITY
-- DEFINER, sql/functions) then creates the device with a fresh token and marks the code used, in one statement.
-- The server's role has no right on this table and still none to INSERT into devices: all it may do is redeem a
-- code it was given (ServerRole::grant revokes the table; the function is its only way in).
CREATE TABLE pairing_codes (
    pairing_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code_hash   text NOT NULL UNIQUE,
    device_name text NOT NULL CHECK (length(device_name) BETWEEN 1 AND 100),
    role        text NOT NULL CHECK (role IN ('kiosk', 'till')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    device_id   bigint REFERENCES devices (device_id)
);
-- One code waiting per device name: a new code for the same name replaces the unused one (PairingRepository).
CREATE UNIQUE INDEX pairing_codes_one_open_per_name ON pairing_codes (device_name) WHERE used_at IS NULL;
