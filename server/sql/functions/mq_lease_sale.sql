-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Accepts one sale a device made under its lease (POST /api/v1/leases/{id}/sales), keyed by the device's own
-- sequence number p_seq: records it and turns its seats from leased into a hold of p_owner (the uploader), in one
-- transaction, so that the ordinary cash order and booking path (OrderRepository, BookingRepository) books them.
-- Returns o_decision and o_data:
--   accepted            {hold_id, show_id}: recorded now; the server goes on to the order and the booking
--   recorded            {hold_id, order_id, booking_id}: this very sale was recorded before (a retry): the server
--                       resumes where it stopped, or answers what it answered
--   sale_conflict       {device_seq}: this sequence number was used for a sale with other content
--   lease_not_found     {}: no such lease, or another device's
--   lease_returned      {}: the device gave the lease back: it has no sales left to report
--   sale_outside_lease  {created_at, expires_at}: sold before the lease began or after it expired
--   seats_not_in_lease  {seats}: seats the lease never had (or a seat named twice)
--   seats_not_leased    {seats}: seats of the lease that are no longer leased to it (sold by another of its
--                       sales, or given back)
--   price_mismatch      {amount_minor, currency}: not what the seats cost when they were sold
-- Nothing is written unless the decision is accepted. The lease row is locked first, then the seats in canonical
-- order, like every seat writer; the seats move by ONE conditional UPDATE (leased to this lease -> held).
CREATE OR REPLACE FUNCTION mq_lease_sale(p_lease uuid, p_device bigint, p_owner text, p_seq bigint, p_hash text, p_seats text[],
                                         p_amount bigint, p_currency text, p_tendered bigint, p_sold_at timestamptz,
                                         p_tickets jsonb, p_hold_ttl_s integer, OUT o_decision text, OUT o_data jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    v_lease   seat_leases%ROWTYPE;
    v_sale    lease_sales%ROWTYPE;
    v_seats   text[];
    v_free    text[];
    v_price   record;
    v_hold    uuid;
    v_created timestamptz;
    v_claimed integer;
BEGIN
    o_data := '{}';
    SELECT * INTO v_lease FROM seat_leases WHERE lease_id = p_lease FOR UPDATE;
    IF NOT FOUND OR v_lease.device_id IS DISTINCT FROM p_device THEN
        o_decision := 'lease_not_found';
        RETURN;
    END IF;
    SELECT * INTO v_sale FROM lease_sales WHERE lease_id = p_lease AND device_seq = p_seq;
    IF FOUND THEN
        IF v_sale.request_hash = p_hash THEN
            o_decision := 'recorded';
            o_data := jsonb_build_object('hold_id', v_sale.hold_id, 'order_id', v_sale.order_id, 'booking_id', v_sale.booking_id);
        ELSE
            o_decision := 'sale_conflict';
            o_data := jsonb_build_object('device_seq', p_seq);
        END IF;
        RETURN;
    END IF;
    IF v_lease.returned_at IS NOT NULL THEN
        o_decision := 'lease_returned';
        RETURN;
    END IF;
    IF p_sold_at < v_lease.created_at - interval '5 minutes' OR p_sold_at > v_lease.expires_at THEN
        -- Five minutes for the device's clock: a sale cannot come before the lease that allowed it.
        o_decision := 'sale_outside_lease';
        o_data := jsonb_build_object('created_at', mq_iso(v_lease.created_at), 'expires_at', mq_iso(v_lease.expires_at));
        RETURN;
    END IF;
    SELECT array_agg(DISTINCT s COLLATE "C" ORDER BY s COLLATE "C") INTO v_seats FROM unnest(p_seats) AS s;
    IF v_seats IS NULL OR cardinality(v_seats) <> cardinality(p_seats) OR NOT v_seats <@ v_lease.seat_ids THEN
        o_decision := 'seats_not_in_lease';
        o_data := jsonb_build_object('seats', (SELECT coalesce(jsonb_agg(s ORDER BY s), '[]') FROM unnest(coalesce(v_seats, '{}')) AS s
                                                WHERE NOT s = ANY (v_lease.seat_ids)));
        RETURN;
    END IF;
    EXECUTE 'SELECT coalesce(array_agg(l.seat_id), ''{}'')
               FROM (SELECT seat_id FROM show_seats WHERE show_id = $1 AND seat_id = ANY ($2) ORDER BY seat_id FOR UPDATE) AS l
              WHERE l.seat_id IN (SELECT seat_id FROM show_seats
                                   WHERE show_id = $1 AND seat_id = ANY ($2) AND status::text = ''leased'' AND leased_to = $3)'
       INTO v_free USING v_lease.show_id, v_seats, p_lease;
    IF cardinality(v_free) <> cardinality(v_seats) THEN
        o_decision := 'seats_not_leased';
        o_data := jsonb_build_object('seats', (SELECT jsonb_agg(s ORDER BY s) FROM unnest(v_seats) AS s WHERE NOT s = ANY (v_free)));
        RETURN;
    END IF;
    -- Priced as the order will price it: at the hold's creation, which is the moment of the sale (within the lease).
    v_created := least(greatest(p_sold_at, v_lease.created_at), clock_timestamp());
    SELECT * INTO v_price FROM mq_seat_prices(v_lease.show_id, v_seats, v_created);
    IF v_price.o_priced <> cardinality(v_seats) OR v_price.o_amount <> p_amount OR v_price.o_currency <> p_currency THEN
        o_decision := 'price_mismatch';
        o_data := jsonb_build_object('amount_minor', v_price.o_amount, 'currency', v_price.o_currency);
        RETURN;
    END IF;

    v_hold := gen_random_uuid();
    EXECUTE 'UPDATE show_seats
                SET status = ''held'', held_by = $4, hold_expires_at = clock_timestamp() + make_interval(secs => $5),
                    leased_to = NULL, lease_expires_at = NULL, version = version + 1
              WHERE show_id = $1 AND seat_id = ANY ($2) AND status::text = ''leased'' AND leased_to = $3'
      USING v_lease.show_id, v_seats, p_lease, v_hold, p_hold_ttl_s;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
    IF v_claimed <> cardinality(v_seats) THEN
        RAISE EXCEPTION 'lease sale of % seats moved % of them', cardinality(v_seats), v_claimed;
    END IF;
    INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at, note)
    VALUES (v_hold, v_lease.show_id, p_owner, v_seats, v_created, clock_timestamp() + make_interval(secs => p_hold_ttl_s),
            'lease ' || p_lease::text || ' sale ' || p_seq::text);
    INSERT INTO lease_sales (lease_id, device_seq, request_hash, seat_ids, amount_minor, currency, tendered_minor, sold_at,
                             tickets, hold_id)
    VALUES (p_lease, p_seq, p_hash, v_seats, p_amount, p_currency, p_tendered, p_sold_at, p_tickets, v_hold);
    INSERT INTO outbox (event_type, aggregate_id, payload)
    VALUES ('lease.sale', p_lease::text, jsonb_build_object('lease_id', p_lease, 'device_seq', p_seq, 'show_id', v_lease.show_id,
                                                            'seat_ids', to_jsonb(v_seats), 'hold_id', v_hold));
    o_decision := 'accepted';
    o_data := jsonb_build_object('hold_id', v_hold, 'show_id', v_lease.show_id);
END;
$$;
