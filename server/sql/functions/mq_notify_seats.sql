-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Seat writes reach every instance's seat maps and live subscribers, however they were made: each UPDATE statement
-- of show_seats (a hold, a release, a sale, the reaper's sweep, marquee-admin or a manual UPDATE) notifies channel
-- marquee_seats when its transaction commits; every instance LISTENs (store::ChangeListener, SeatMapService).
-- One statement-level trigger with a transition table: a 2,000-seat batch is one notification per show and status,
-- not 2,000. The payload is JSON:
--   {"o": origin, "s": show_id, "t": status, "seats": ["A1", ...]}
-- "o" is the writer's marquee.instance setting (store::Database sets it on each of its connections; empty for psql):
-- an instance's own writes reached its seat maps already (store::SeatWrites), so hearing them back changes nothing,
-- and a notification of a seat it wrote itself lately is checked by a re-read rather than trusted (SeatFeed).
-- Notifications are delivered in commit order, which is what makes applying them in order correct; no version
-- is needed in the payload.
-- NOTIFY payloads are limited to 8000 bytes: a group whose seat list does not fit is sent without "seats", which
-- tells every instance to re-read the show.
CREATE OR REPLACE FUNCTION mq_notify_seats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_origin text := coalesce(current_setting('marquee.instance', true), '');
    g record;
BEGIN
    FOR g IN SELECT show_id, status::text AS status, json_agg(seat_id ORDER BY seat_id) AS seats
               FROM changed GROUP BY show_id, status LOOP
        IF octet_length(g.seats::text) <= 7800 THEN
            PERFORM pg_notify('marquee_seats', json_build_object('o', v_origin, 's', g.show_id, 't', g.status,
                                                                 'seats', g.seats)::text);
        ELSE
            PERFORM pg_notify('marquee_seats', json_build_object('o', v_origin, 's', g.show_id)::text);
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER show_seats_notify AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION mq_notify_seats();

-- A price edit or a waiting-room switch takes effect on every instance at once: channel marquee_shows carries
-- "prices:<show>" (the seat maps drop the show's cached layout and prices) and "waiting_room:<show>" (the waiting
-- room reloads its rooms now instead of at its next tick). Row triggers: these tables change rarely, and the
-- admission tick's own updates of waiting_rooms (watermarks, rates) touch none of the columns listed.
CREATE OR REPLACE FUNCTION mq_notify_show_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('marquee_shows', TG_ARGV[0] || ':' || CASE WHEN TG_OP = 'DELETE' THEN OLD.show_id ELSE NEW.show_id END);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER show_prices_notify AFTER INSERT OR UPDATE OR DELETE ON show_prices
    FOR EACH ROW EXECUTE FUNCTION mq_notify_show_settings('prices');
CREATE OR REPLACE TRIGGER waiting_rooms_notify AFTER INSERT OR DELETE OR UPDATE OF enabled, opens_at, secret, admission_ttl_s,
    min_admit_per_s, max_in_flight, automatic ON waiting_rooms
    FOR EACH ROW EXECUTE FUNCTION mq_notify_show_settings('waiting_room');
