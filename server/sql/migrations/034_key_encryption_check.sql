-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 34: which key-encryption key (KEK) the servers of this database share.
--
-- One row, written by the first server that starts with this schema: a known text sealed with its KEK
-- (TicketRepository::prepareSigningKeys). Every later server opens it with its own KEK at start and refuses to
-- start when it cannot: a server with another KEK file would otherwise report ready and fail only at its first
-- ticket, or seal the first signing key of a fresh database with a key the other servers do not have. The KEK
-- itself is never stored; the row proves nothing to someone who has only the database.
--
-- The server's role reads and inserts this row; it is never changed (a KEK rotation would rewrite it with the
-- signing keys).
CREATE TABLE key_encryption_check (
    id         integer PRIMARY KEY CHECK (id = 1),
    sealed     bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
