-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Releases a hold at once. Idempotent: releasing a released or expired hold succeeds and changes nothing.
-- Returns the hold's show and the seats this call freed (ascending; empty when it freed none), or a row of NULLs
-- when the hold does not exist or belongs to someone else. o_live_order is the hold's unsettled order (CREATED,
-- PENDING_PAYMENT or PAID) when there is one: then nothing is freed, because freeing seats under an in-flight
-- payment would charge a card for seats that are gone; the server cancels the payment intent and ends the order
-- instead (which frees the seats in that transaction), or keeps the seats for the booking when it was paid.
-- The hold row is locked first, as OrderRepository::create locks it before it inserts an order, so a release and
-- an order for the same hold are serialised.
CREATE OR REPLACE FUNCTION mq_release_hold(p_owner text, p_hold uuid, OUT o_show_id bigint, OUT o_freed text[], OUT o_live_order uuid)
LANGUAGE plpgsql AS $$
DECLARE
    v_hold holds%ROWTYPE;
BEGIN
    SELECT * INTO v_hold FROM holds WHERE hold_id = p_hold AND owner = p_owner FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    o_show_id := v_hold.show_id;
    SELECT order_id INTO o_live_order FROM orders
     WHERE hold_id = p_hold AND state IN ('CREATED', 'PENDING_PAYMENT', 'PAID');
    IF FOUND THEN
        o_freed := '{}';
        RETURN;
    END IF;
    PERFORM 1 FROM show_seats WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
      ORDER BY seat_id FOR UPDATE;
    WITH freed AS (
        UPDATE show_seats
           SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = version + 1
         WHERE show_id = v_hold.show_id AND seat_id = ANY (v_hold.seat_ids)
           AND status = 'held' AND held_by = p_hold
        RETURNING seat_id)
    SELECT coalesce(array_agg(seat_id ORDER BY seat_id), '{}') INTO o_freed FROM freed;
    IF v_hold.released_at IS NULL THEN
        -- clock_timestamp() after the seats are locked and freed, not now(): a request that saw these seats
        -- held did so before this point, so the recorded live interval covers every such observation.
        UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = p_hold;
        INSERT INTO outbox (event_type, aggregate_id, payload)
        VALUES ('hold.released', p_hold::text,
                jsonb_build_object('hold_id', p_hold, 'show_id', v_hold.show_id, 'seat_ids', to_jsonb(o_freed),
                                   'reason', 'released'));
    END IF;
END;
$$;
