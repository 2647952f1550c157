-- SPDX-License-Identifier: AGPL-3.0-or-later
-- The copies of @layouts built again from layout_seats (a layout without seats has none).
CREATE OR REPLACE FUNCTION mq_layout_report_seats_rebuild(layouts bigint[]) RETURNS void LANGUAGE sql AS $$
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
CREATE OR REPLACE FUNCTION mq_layout_seats_copy() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE TRIGGER layout_seats_copy_insert AFTER INSERT ON layout_seats REFERENCING NEW TABLE AS new_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();

CREATE OR REPLACE TRIGGER layout_seats_copy_update AFTER UPDATE ON layout_seats REFERENCING OLD TABLE AS old_seats NEW TABLE AS new_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();

CREATE OR REPLACE TRIGGER layout_seats_copy_delete AFTER DELETE ON layout_seats REFERENCING OLD TABLE AS old_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();

CREATE OR REPLACE TRIGGER layout_seats_copy_truncate AFTER TRUNCATE ON layout_seats
    FOR EACH STATEMENT EXECUTE FUNCTION mq_layout_seats_copy();
