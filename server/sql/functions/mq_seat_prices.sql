-- SPDX-License-Identifier: AGPL-3.0-or-later
-- What p_seats of p_show cost together at p_at: each seat its tier's price in force then (show_price_history,
-- migration 023), or today's price for a tier priced only later. o_priced: how many of the seats have a price (less
-- than the seats: some tier has none). The one pricing rule of an order (OrderRepository::create, priced when its
-- hold was placed) and of a sale a device made under a lease (mq_lease_sale, priced when it was sold).
CREATE OR REPLACE FUNCTION mq_seat_prices(p_show bigint, p_seats text[], p_at timestamptz,
                                          OUT o_priced integer, OUT o_amount bigint, OUT o_currency text)
LANGUAGE sql STABLE AS $$
    SELECT count(*)::integer,
           coalesce(sum(coalesce((SELECT h.amount_minor FROM show_price_history h
                                   WHERE h.show_id = s.show_id AND h.tier = ls.tier AND h.effective_from <= p_at
                                   ORDER BY h.effective_from DESC LIMIT 1), p.amount_minor)), 0)::bigint,
           min(s.currency)::text
      FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id
      JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ANY (p_seats)
      JOIN show_prices p ON p.show_id = s.show_id AND p.tier = ls.tier
     WHERE s.show_id = p_show;
$$;
