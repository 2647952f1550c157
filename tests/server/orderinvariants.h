// SPDX-License-Identifier: AGPL-3.0-or-later
// The end-state invariants of orders and payments, checked against the tables and against the payment
// provider itself: used by the property test and the crash test. Header-only.
#pragma once

#include "paysimprocess.h"
#include "testserver.h"

#include <QSqlQuery>
#include <gtest/gtest.h>

namespace marquee::test {

/** @brief Orders not in a terminal state (CREATED, PENDING_PAYMENT, PAID, REFUND_PENDING), as "state,state,…". */
inline QString unsettledOrders(TestServer &server)
{
    return server
        .scalar(QStringLiteral("SELECT coalesce(string_agg(state, ','), '') FROM orders "
                               "WHERE state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING')"))
        .toString();
}

/**
 * @brief After reconciliation: no order outside a terminal state; for every (show, seat) at most one confirmed
 * booking, and booked seats are exactly the seats of confirmed bookings, each with one valid ticket; every payment
 * the provider captured is a confirmed booking or a completed refund, nothing uncaptured was booked; at most one
 * refund per order. Returns how many orders with a payment intent were checked against the provider.
 */
inline int expectOrderInvariants(TestServer &server, PaySimProcess &sim)
{
    EXPECT_EQ(unsettledOrders(server), QString()) << "orders left outside a terminal state";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM (SELECT b.show_id, s FROM bookings b, unnest(b.seat_ids) s WHERE b.state = 'confirmed' "
                                           "GROUP BY 1, 2 HAVING count(*) > 1) x")).toLongLong(), 0)
        << "a seat in two confirmed bookings";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats ss WHERE ss.status = 'booked' AND NOT EXISTS "
                                           "(SELECT 1 FROM bookings b WHERE b.booking_id = ss.booking_id AND b.state = 'confirmed' AND ss.seat_id = ANY (b.seat_ids))")).toLongLong(), 0)
        << "a booked seat without its confirmed booking";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings b, unnest(b.seat_ids) s WHERE b.state = 'confirmed' AND NOT EXISTS "
                                           "(SELECT 1 FROM show_seats ss WHERE ss.show_id = b.show_id AND ss.seat_id = s AND ss.status = 'booked' AND ss.booking_id = b.booking_id)")).toLongLong(), 0)
        << "a confirmed booking whose seat is not booked for it";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings b, unnest(b.seat_ids) s WHERE b.state = 'confirmed' AND "
                                           "(SELECT count(*) FROM tickets t WHERE t.booking_id = b.booking_id AND t.seat_id = s AND t.state = 'valid') <> 1")).toLongLong(), 0)
        << "a seat of a confirmed booking without exactly one valid ticket";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings b JOIN orders o USING (order_id) WHERE "
                                           "(b.state = 'confirmed') <> (o.state = 'CONFIRMED')")).toLongLong(), 0)
        << "bookings and orders disagree";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) - count(DISTINCT order_id) FROM refunds")).toLongLong(), 0) << "two refunds for one order";

    QSqlQuery q(server.context().database.connection());
    EXPECT_TRUE(q.exec(QStringLiteral("SELECT o.order_id::text, o.state, o.payment_intent_id, o.provider, "
                                      "EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.order_id AND r.status = 'succeeded') "
                                      "FROM orders o WHERE o.payment_intent_id IS NOT NULL")));
    int checked = 0;
    while (q.next()) {
        if (q.value(3).toString() == QLatin1String("cash"))
            continue; // cash completes at once at the till; there is no provider to ask
        const QString state = q.value(1).toString();
        const QString status = sim.intentStatus(q.value(2).toString());
        SCOPED_TRACE(::testing::Message() << "order " << q.value(0).toString().toStdString() << " " << state.toStdString() << " intent "
                                          << status.toStdString());
        if (status == QLatin1String("succeeded"))
            EXPECT_EQ(state, QStringLiteral("CONFIRMED"));
        else if (status == QLatin1String("refunded"))
            EXPECT_TRUE(state == QLatin1String("REFUNDED") && q.value(4).toBool());
        else
            EXPECT_TRUE(state == QLatin1String("FAILED") || state == QLatin1String("EXPIRED")) << state.toStdString();
        ++checked;
    }
    return checked;
}

} // namespace marquee::test
