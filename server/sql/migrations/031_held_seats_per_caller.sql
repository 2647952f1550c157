-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 31: the bound on live held seats per caller and show (--max-held-seats-kiosk, -till, -staff).
--
-- mq_place_holds counts, with each hold of a bounded caller, the seats that caller still holds on the show. It
-- finds them through the caller's holds that are neither released nor swept (then through show_seats by primary
-- key): this index keeps that one probe however many holds a busy kiosk placed over the years.
CREATE INDEX holds_owner_unswept ON holds (owner, show_id) WHERE released_at IS NULL AND swept_at IS NULL;
-- mq_place_holds, mq_place_hold: server/sql/functions/mq_place_holds.sql (p_seat_limits, hold_limit_reached)
