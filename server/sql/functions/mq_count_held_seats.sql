-- SPDX-License-Identifier: AGPL-3.0-or-later
-- held_seat_counts (migration 033) follows every change of a seat's holder, in the statement that makes it,
-- however it is made: one statement-level trigger on show_seats compares the rows before and after and moves the
-- difference to the counts of the counted holds' owners. A seat leaving a hold (released, swept, sold, freed by
-- an order's end, taken by another hold after it lapsed) takes one off its old owner; a seat a counted hold
-- takes adds one to its new owner; an update that keeps the holder (an order's extension) changes nothing.
-- The count includes lapsed seats until they are swept or taken: mq_place_holds counts exactly only when the
-- running count says the bound might be reached.
-- Lock order: a writer of show_seats has locked its seats before this runs; the counts are taken after the
-- seats, in (owner, show) order, as mq_place_holds takes them.
CREATE OR REPLACE FUNCTION mq_count_held_seats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO held_seat_counts AS c (owner, show_id, held)
    SELECT h.owner, h.show_id, sum(d.n)::integer
      FROM (SELECT o.held_by AS hold_id, -count(*) AS n FROM old_seats o WHERE o.status = 'held' GROUP BY o.held_by
            UNION ALL
            SELECT s.held_by, count(*) FROM new_seats s WHERE s.status = 'held' GROUP BY s.held_by) AS d
      JOIN holds h ON h.hold_id = d.hold_id AND h.counted
     GROUP BY h.owner, h.show_id
    HAVING sum(d.n) <> 0
     ORDER BY h.owner, h.show_id
    ON CONFLICT (owner, show_id) DO UPDATE SET held = c.held + EXCLUDED.held;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER show_seats_count_held AFTER UPDATE ON show_seats
    REFERENCING OLD TABLE AS old_seats NEW TABLE AS new_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_count_held_seats();
