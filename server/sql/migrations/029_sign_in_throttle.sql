-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 29: sign-in throttling, shared by every instance of a fleet.
--
-- One row per staff name and per client address that gave a wrong password lately (store::SignInThrottle):
-- failures are counted from window_start for the lockout time; the failure that reaches the limit locks the name
-- or address out until locked_until, which ends by itself (the next failure after it starts a new count). A right
-- password clears its name's row. The lockout is audited (session.sign_in_locked); single failures are not, since
-- anyone may make them without a token and the audit log can never be pruned.
--
-- The server's role reads and writes this table (SELECT, INSERT, UPDATE, DELETE); nothing else touches it.
CREATE TABLE sign_in_throttle (
    scope        text NOT NULL CHECK (scope IN ('name', 'address')),
    key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
    failures     integer NOT NULL CHECK (failures > 0),
    window_start timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    PRIMARY KEY (scope, key)
);
CREATE INDEX sign_in_throttle_window ON sign_in_throttle (window_start);
