// SPDX-License-Identifier: AGPL-3.0-or-later
// Randomized property test (issue 3 §7): many clients run hold → order → pay → confirm / cancel with every card
// token while the reaper and the reconciler run; afterwards the invariants must hold.
#include "paysimprocess.h"
#include "testserver.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QSqlQuery>
#include <gtest/gtest.h>
#include <thread>

using namespace marquee;
using namespace marquee::test;

TEST(OrdersProperty, RandomClientsKeepEverySeatAndEveryPaymentAccountedFor)
{
    TestServer::Options options;
    options.threads = 3;
    options.paymentWebhookSecret = PaySimProcess::kSecret;
    options.paymentWindowSeconds = 2;
    options.paymentGraceSeconds = 1;
    options.reaperIntervalMs = 100;
    options.reconcilerIntervalMs = 150;
    options.reconcileMinAgeSeconds = 0;
    TestServer server(options);
    PaySimProcess sim(server, {100, 800, 50});
    const qint64 showId = server.createShow(3, 4); // 12 seats, many clients: real contention
    const QString cashierToken = server.staffToken(QStringLiteral("cashier"));
    const quint32 seed = QRandomGenerator::global()->generate();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);

    constexpr int kClients = 4;
    constexpr int kRounds = 10;
    std::vector<QString> tokens;
    for (int i = 0; i < kClients; ++i)
        tokens.push_back(server.deviceToken());
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
        clients.emplace_back([&, c] {
            QRandomGenerator rng(seed + c);
            auto client = server.client(tokens[c]);
            auto cashier = server.client(cashierToken);
            auto terminal = sim.client();
            static const QStringList cards = {QStringLiteral("tok_visa"), QStringLiteral("tok_declined"), QStringLiteral("tok_slow"),
                                              QStringLiteral("tok_lost"), QStringLiteral("tok_duplicate"), QStringLiteral("tok_late")};
            for (int round = 0; round < kRounds; ++round) {
                QStringList seats;
                const int n = 1 + rng.bounded(2);
                while (seats.size() < n) {
                    const QString seat = QStringLiteral("%1%2").arg(QChar(u'A' + rng.bounded(3))).arg(1 + rng.bounded(4));
                    if (!seats.contains(seat))
                        seats << seat;
                }
                const HttpResult held = client->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                                     QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
                if (held.status != 200)
                    continue;
                const HttpResult created = client->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))}});
                if (created.status != 201)
                    continue;
                const QJsonObject order = created.json();
                const QByteArray intent = order.value(QStringLiteral("payment_intent_id")).toString().toUtf8();
                const int action = rng.bounded(10);
                if (action == 0)
                    continue; // walk away without paying: the reconciler expires it
                if (action == 1)
                    QThread::msleep(2500); // pay after the payment window: the intent may be cancelled or the hold lost
                terminal->post("/v1/intents/" + intent + "/pay", QJsonObject{{QStringLiteral("card_token"), cards[rng.bounded(cards.size())]}});
                if (rng.bounded(4) == 0)
                    continue; // the kiosk dies before confirming: webhook or reconciler must finish the job
                const HttpResult confirmed = client->post("/api/v1/orders/" + order.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                                                          QJsonObject{{QStringLiteral("payment_intent_id"), QString::fromUtf8(intent)}});
                if (confirmed.status == 200 && rng.bounded(2) == 0)
                    cashier->post("/api/v1/bookings/" + confirmed.json().value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel",
                                  QJsonObject{{QStringLiteral("reason"), QStringLiteral("random")}});
            }
        });
    }
    for (auto &t : clients)
        t.join();

    // Let the late webhooks land and the reconciler settle everything.
    QThread::msleep(1000);
    ASSERT_TRUE(eventually([&] {
        server.context().orderService.reconcileOnce();
        return server.scalar(QStringLiteral("SELECT count(*) FROM orders WHERE state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING')")).toLongLong() == 0;
    }, 60000)) << "orders left unsettled: "
               << server.scalar(QStringLiteral("SELECT string_agg(state, ',') FROM orders WHERE state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING')")).toString().toStdString();
    EXPECT_GT(server.scalar(QStringLiteral("SELECT count(*) FROM orders")).toLongLong(), 0);

    // At most one confirmed booking per seat, and booked seats are exactly the seats of confirmed bookings.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM (SELECT b.show_id, s FROM bookings b, unnest(b.seat_ids) s WHERE b.state = 'confirmed' "
                                           "GROUP BY 1, 2 HAVING count(*) > 1) x")).toLongLong(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats ss WHERE ss.show_id = %1 AND ss.status = 'booked' AND NOT EXISTS "
                                           "(SELECT 1 FROM bookings b WHERE b.booking_id = ss.booking_id AND b.state = 'confirmed' AND ss.seat_id = ANY (b.seat_ids))").arg(showId)).toLongLong(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings b, unnest(b.seat_ids) s WHERE b.state = 'confirmed' AND NOT EXISTS "
                                           "(SELECT 1 FROM show_seats ss WHERE ss.show_id = b.show_id AND ss.seat_id = s AND ss.status = 'booked' AND ss.booking_id = b.booking_id)")).toLongLong(), 0);
    // Bookings and orders agree.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings b JOIN orders o USING (order_id) WHERE "
                                           "(b.state = 'confirmed') <> (o.state = 'CONFIRMED')")).toLongLong(), 0);

    // Every captured payment is a confirmed booking or a completed refund; nothing uncaptured was booked.
    QSqlQuery q(server.context().database.connection());
    ASSERT_TRUE(q.exec(QStringLiteral("SELECT o.order_id::text, o.state, o.payment_intent_id, "
                                      "EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.order_id AND r.status = 'succeeded') "
                                      "FROM orders o WHERE o.payment_intent_id IS NOT NULL")));
    int checked = 0;
    while (q.next()) {
        const QString state = q.value(1).toString();
        const QString status = sim.intentStatus(q.value(2).toString());
        SCOPED_TRACE(::testing::Message() << "order " << q.value(0).toString().toStdString() << " " << state.toStdString() << " intent " << status.toStdString());
        if (status == QLatin1String("succeeded"))
            EXPECT_EQ(state, QStringLiteral("CONFIRMED"));
        else if (status == QLatin1String("refunded"))
            EXPECT_TRUE(state == QLatin1String("REFUNDED") && q.value(3).toBool());
        else
            EXPECT_TRUE(state == QLatin1String("FAILED") || state == QLatin1String("EXPIRED")) << state.toStdString();
        ++checked;
    }
    EXPECT_GT(checked, 0);
    // At most one refund per order, and every outbox event id once.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) - count(DISTINCT order_id) FROM refunds")).toLongLong(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) - count(DISTINCT event_id) FROM outbox")).toLongLong(), 0);
}
