-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 27: no table changed. This version rewrote mq_place_holds to run a fixed handful of statements per
-- batch instead of up to seven per request; the function now lives in server/sql/functions/mq_place_holds.sql and
-- this file keeps the number, so that databases which applied it stay current.
DO $$ BEGIN END $$; -- a statement, so that the file is a valid batch
