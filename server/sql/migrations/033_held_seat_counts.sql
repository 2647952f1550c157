-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 33: the bound on live held seats per caller and show, kept as a running count.
--
-- mq_place_holds used to count a bounded caller's held seats with every hold, through all of its unswept holds
-- and show_seats; a caller with hundreds of live holds (or a busy kiosk whose sold holds wait for the reaper)
-- paid for each of them with every hold. held_seat_counts keeps, per caller and show, the seats of show_seats
-- held by one of the caller's counted holds (lapsed or not), changed by the trigger of mq_count_held_seats in the
-- very statement that changes a seat's holder: a grant, a release, a sweep, a sale, an order's end, and another
-- hold taking a lapsed hold's seats. A hold is counted when it was placed with a bound (holds.counted).
ALTER TABLE holds ADD COLUMN counted boolean NOT NULL DEFAULT false;

CREATE TABLE held_seat_counts (
    owner   text NOT NULL,
    show_id bigint NOT NULL REFERENCES shows ON DELETE CASCADE,
    held    integer NOT NULL,
    PRIMARY KEY (owner, show_id)
);

-- Holds placed before this schema did not say whether they were bounded: every hold that still holds a seat is
-- counted from now on (an unbounded caller's count is kept but never read).
UPDATE holds h SET counted = true
 WHERE EXISTS (SELECT 1 FROM show_seats ss WHERE ss.held_by = h.hold_id AND ss.status = 'held');
INSERT INTO held_seat_counts (owner, show_id, held)
SELECT h.owner, ss.show_id, count(*)
  FROM show_seats ss JOIN holds h ON h.hold_id = ss.held_by
 WHERE ss.status = 'held' AND h.counted
 GROUP BY h.owner, ss.show_id;
-- mq_count_held_seats and its trigger: server/sql/functions/mq_count_held_seats.sql
