-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 24: each seat layout's part of the occupancy report kept as ONE row, in report order.
-- The first report of a layout after a server start read its 40,000 layout_seats rows, built a line per seat and
-- sorted them in the server (~145 ms for the stadium); reading this row is one fetch, and the lines need no sort.
-- A layout never changes once created; the copy is rebuilt by the triggers below whenever layout_seats is written
-- anyway (a hand edit), in the same transaction. A write with the triggers switched off is caught too: the copy
-- records the sum of its rows' xmin (every write of a row gives it a new one) and the server compares it with the
-- rows' on every read (a scan of the layout's rows, no text built), so a copy that disagrees is not used.
--
-- The columns are those ReportRepository's kOccupancyLayout gives (store/reportrepository.cpp; same text, same
-- parser), with the seat lines in report order: row label (COLLATE "C"), then number.
CREATE TABLE layout_report_seats (
    layout_id   bigint PRIMARY KEY REFERENCES seat_layouts ON DELETE CASCADE,
    seat_count  bigint NOT NULL,
    seat_digest bigint NOT NULL, -- sum of hashtext(seat_id): compared with a show's seats (OccupancyStates::seatDigest)
    seats_xmin  bigint NOT NULL, -- sum of the layout_seats rows' xmin it was built from: compared with theirs on read
    tiers       text NOT NULL,   -- the tier names as JSON strings, one a line, in the order of the report's tiers array
    seats       text NOT NULL    -- one line per seat: seat id and row label as JSON strings, number, tier's place (tabs)
);
-- mq_layout_report_seats_rebuild: server/sql/functions/layout_report_seats.sql
-- mq_layout_seats_copy: server/sql/functions/layout_report_seats.sql

-- marquee:after-functions

SELECT mq_layout_report_seats_rebuild(ARRAY(SELECT layout_id FROM seat_layouts));
