-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 24: each seat layout's part of the occupancy report kept as ONE row, in report order (issue 7 §5).
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

-- The copies of @layouts built again from layout_seats (a layout without seats has none).
CREATE FUNCTION mq_layout_report_seats_rebuild(layouts bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM layout_report_seats WHERE layout_id = ANY (layouts);
    WITH tiers AS (
        SELECT layout_id, tier, row_number() OVER (PARTITION BY layout_id ORDER BY tier) - 1 AS place
          FROM (SELECT DISTINCT layout_id, tier FROM layout_seats WHERE layout_id = ANY (layouts)) t)
    INSERT INTO layout_report_seats (layout_id, seat_count, seat_digest, seats_xmin, tiers, seats)
    SELECT s.layout_id, count(*), sum(hashtext(s.seat_id)), sum(s.xmin::text::bigint),
           (SELECT string_agg(to_json(t.tier)::text, E'\n' ORDER BY t.place) FROM tiers t WHERE t.layout_id = s.layout_id),
           string_agg(to_json(s.seat_id)::text || E'\t' || to_json(s.row_label)::text || E'\t' || s.number || E'\t' || p.place, E'\n'
                      ORDER BY s.row_label, s.number)
      FROM layout_seats s JOIN tiers p ON p.layout_id = s.layout_id AND p.tier = s.tier
     WHERE s.layout_id = ANY (layouts)
     GROUP BY s.layout_id
    ON CONFLICT (layout_id) DO UPDATE
       SET seat_count = EXCLUDED.seat_count, seat_digest = EXCLUDED.seat_digest, seats_xmin = EXCLUDED.seats_xmin,
           tiers = EXCLUDED.tiers, seats = EXCLUDED.seats;
$$;

-- Statement triggers (a layout's seats are inserted by one statement, ShowRepository::addLayout): one rebuild per
-- statement and layout touched, not one per row.
CREATE FUNCTION mq_layout_seats_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM mq_layout_report_seats_rebuild(ARRAY(SELECT DISTINCT layout_id FROM new_seats));
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM mq_layout_report_seats_rebuild(ARRAY(SELECT layout_id FROM new_seats UNION SELECT layout_id FROM old_seats));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM mq_layout_report_seats_rebuild(ARRAY(SELECT DISTINCT layout_id FROM old_seats));
    ELSE -- TRUNCATE
        DELETE FROM layout_report_seats;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER layout_seats_copy_insert AFTER INSERT ON layout_seats REFERENCING NEW TABLE AS new_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();
CREATE TRIGGER layout_seats_copy_update AFTER UPDATE ON layout_seats REFERENCING OLD TABLE AS old_seats NEW TABLE AS new_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();
CREATE TRIGGER layout_seats_copy_delete AFTER DELETE ON layout_seats REFERENCING OLD TABLE AS old_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();
CREATE TRIGGER layout_seats_copy_truncate AFTER TRUNCATE ON layout_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();

SELECT mq_layout_report_seats_rebuild(ARRAY(SELECT layout_id FROM seat_layouts));
