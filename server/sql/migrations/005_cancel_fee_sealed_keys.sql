-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 5: the cancellation fee on bookings, and ticket signing keys encrypted at rest.

-- What the venue kept when the booking was cancelled (policy fee, see CancelPolicy); the refund is amount_minor
-- minus this. NULL while the booking is confirmed. fee_waived: a manager refunded everything.
ALTER TABLE bookings
    ADD COLUMN cancel_fee_minor bigint CHECK (cancel_fee_minor >= 0 AND cancel_fee_minor <= amount_minor),
    ADD COLUMN fee_waived boolean NOT NULL DEFAULT false;

-- Signing keys are sealed with the server's key-encryption key (AES-256-GCM, a file in the data directory that is
-- never in the database; see KeyEncryptionKey and docs/tickets.md). private_key_sealed = version byte 1 | 12-byte
-- nonce | 32-byte ciphertext | 16-byte tag, authenticated together with the venue id and the public key, so a
-- sealed seed cannot be moved to another row. Keys written raw by schema 2 are sealed by the server at start-up
-- (it alone has the KEK), which then clears private_key; until then a row has one of the two.
ALTER TABLE signing_keys
    ALTER COLUMN private_key DROP NOT NULL,
    ADD COLUMN private_key_sealed bytea CHECK (length(private_key_sealed) = 61),
    ADD CONSTRAINT signing_keys_one_private_form CHECK ((private_key IS NULL) <> (private_key_sealed IS NULL));
