// SPDX-License-Identifier: AGPL-3.0-or-later
// Randomized property test: many clients run hold → order → pay → confirm / cancel with every card
// token while the reaper and the reconciler run, and a consumer reads the event feed all along; afterwards the
// invariants must hold, including "every event in the feed exactly once by id".
#include "orderinvariants.h"
#include "paysimprocess.h"
#include "testserver.h"

#include <QJsonArray>
#include <QHash>
#include <atomic>
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
    const QString cashierToken = server.elevatedStaffToken(QStringLiteral("cashier"));
    const quint32 seed = QRandomGenerator::global()->generate();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);

    constexpr int kClients = 4;
    constexpr int kRounds = 10;
    std::vector<QString> tokens;
    for (int i = 0; i < kClients; ++i)
        tokens.push_back(server.deviceToken());

    // A feed consumer resuming by cursor while the events are written, counting how often it saw each event id.
    QHash<qint64, int> seenInFeed;
    qint64 feedCursor = 0;
    bool feedOk = true;
    auto readFeed = [&](HttpClient &reader) {
        for (;;) {
            const HttpResult page = reader.get("/api/v1/events?after=" + QByteArray::number(feedCursor) + "&limit=50");
            if (page.status != 200) {
                feedOk = false;
                return;
            }
            const QJsonArray events = page.json().value(QStringLiteral("events")).toArray();
            for (const QJsonValue &event : events)
                ++seenInFeed[event[QStringLiteral("event_id")].toInteger()];
            feedCursor = page.json().value(QStringLiteral("next_cursor")).toInteger();
            if (events.isEmpty())
                return;
        }
    };
    std::atomic<bool> clientsDone{false};
    const QString feedToken = server.staffToken(QStringLiteral("manager")); // the whole feed
    std::thread feedReader([&] {
        auto reader = server.client(feedToken);
        while (!clientsDone) {
            readFeed(*reader);
            QThread::msleep(30);
        }
    });
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
        return unsettledOrders(server).isEmpty();
    }, 60000)) << "orders left unsettled: " << unsettledOrders(server).toStdString();
    clientsDone = true;
    feedReader.join();
    EXPECT_GT(server.scalar(QStringLiteral("SELECT count(*) FROM orders")).toLongLong(), 0);
    EXPECT_GT(expectOrderInvariants(server, sim), 0);

    // Every event in the feed exactly once by id: the consumer that read along (and resumed by cursor) saw every
    // committed outbox event once, and nothing that is not in the outbox.
    auto reader = server.client(feedToken);
    readFeed(*reader);
    ASSERT_TRUE(feedOk);
    QSqlQuery outbox(server.context().database.connection());
    ASSERT_TRUE(outbox.exec(QStringLiteral("SELECT event_id FROM outbox")));
    int missing = 0;
    int events = 0;
    while (outbox.next()) {
        ++events;
        if (!seenInFeed.contains(outbox.value(0).toLongLong()))
            ++missing;
    }
    int twice = 0;
    for (auto it = seenInFeed.cbegin(); it != seenInFeed.cend(); ++it)
        twice += it.value() > 1;
    EXPECT_GT(events, 0);
    EXPECT_EQ(missing, 0) << "events never served by the feed";
    EXPECT_EQ(twice, 0) << "events served twice";
    EXPECT_EQ(seenInFeed.size(), events) << "feed entries that are not outbox events";
}
