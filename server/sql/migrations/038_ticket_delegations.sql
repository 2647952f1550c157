-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 38: delegated ticket signing. A lease requested with the device's public key gets a delegation:
-- the venue's ticket signing key signs (device key, show, the lease's seats, a validity window, a sale deadline),
-- so the device may sign tickets for those seats itself while offline (`MQ2.` codes, docs/tickets.md). A reported
-- sale with such tickets is booked with exactly those tickets (tickets.delegation_id instead of key_id), so the
-- printed ticket is the booking's; a scan of one before its sale is uploaded is admitted by its signature and
-- counts as the ticket's first scan (checkin_firsts no longer needs the ticket on record). Ending the lease
-- (returned or revoked) revokes its delegation in the same transaction; GET /api/v1/delegations publishes them.
CREATE TABLE ticket_delegations (
    delegation_id     uuid PRIMARY KEY,
    lease_id          uuid NOT NULL UNIQUE,        -- seat_leases(lease_id): the key is added after every migration ran
    venue_id          bigint NOT NULL REFERENCES venues,
    key_id            bigint NOT NULL REFERENCES signing_keys,  -- the venue key that signed the delegation
    device_id         bigint NOT NULL REFERENCES devices,
    show_id           bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    device_public_key bytea NOT NULL CHECK (length(device_public_key) = 32),
    seat_ids          text[] COLLATE "C" NOT NULL CHECK (cardinality(seat_ids) > 0),
    valid_from        timestamptz NOT NULL,        -- whole seconds, as signed
    valid_until       timestamptz NOT NULL,
    sell_until        timestamptz NOT NULL,
    signature         bytea NOT NULL CHECK (length(signature) = 64),
    created_at        timestamptz NOT NULL DEFAULT now(),
    revoked_at        timestamptz,
    revoked_reason    text,                        -- "returned" or "revoked": what happened to its lease
    CHECK (valid_from < valid_until),
    CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);
-- The feed: a venue's delegations that can still admit somebody.
CREATE INDEX ticket_delegations_venue ON ticket_delegations (venue_id, valid_until);

-- A ticket is signed by a venue key (MQ1) or under a delegation by a device key (MQ2), never both, never neither.
ALTER TABLE tickets ALTER COLUMN key_id DROP NOT NULL;
ALTER TABLE tickets ADD COLUMN delegation_id uuid REFERENCES ticket_delegations;
ALTER TABLE tickets ADD CONSTRAINT tickets_one_signer CHECK ((key_id IS NULL) <> (delegation_id IS NULL));
CREATE INDEX tickets_delegation ON tickets (delegation_id) WHERE delegation_id IS NOT NULL;

-- A device-signed ticket may be scanned (and admitted, by its signature) before its sale reaches the server: its
-- first scan is claimed by the same conditional insert, for a ticket id not on record yet. The booking that comes
-- with the upload then has that ticket already admitted.
ALTER TABLE checkin_firsts DROP CONSTRAINT checkin_firsts_ticket_id_fkey;

ALTER TABLE checkins DROP CONSTRAINT checkins_result_check;
ALTER TABLE checkins ADD CONSTRAINT checkins_result_check
    CHECK (result IN ('ok', 'already_redeemed', 'revoked', 'invalid_signature', 'unknown_key', 'wrong_venue', 'wrong_show',
                      'not_yet_valid', 'expired', 'unknown_delegation', 'outside_delegation', 'delegation_revoked'));

-- marquee:after-functions
-- The leases table comes with a migration that may be applied after this one (they were written side by side):
-- the foreign key waits until every migration has run.
ALTER TABLE ticket_delegations ADD CONSTRAINT ticket_delegations_lease_fkey
    FOREIGN KEY (lease_id) REFERENCES seat_leases ON DELETE CASCADE;
