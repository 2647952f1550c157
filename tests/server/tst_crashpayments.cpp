// SPDX-License-Identifier: AGPL-3.0-or-later
// Killing the server between capture and confirm: the real marquee-server binary takes orders whose
// payments the real marquee-paysim captures, and is killed with SIGKILL before anyone confirms them (and in the
// middle of a load of hold → order → pay → confirm). A restarted server's reconciler finishes every order: the
// captured ones become bookings, or refunds where the seats were lost meanwhile; the unpaid ones expire.
#include "orderinvariants.h"
#include "paysimprocess.h"
#include "serverprocess.h"
#include "servertesthelpers.h"

#include <QJsonArray>
#include <QThread>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

TEST(CrashPayments, KilledBetweenCaptureAndConfirmTheRestartedServerReconcilesEveryOrder)
{
    // The in-process server only migrates the database, enrols devices, creates the show and, once, reaps: its own
    // reaper and reconciler are parked so that the child processes do the work.
    TestServer::Options options;
    options.threads = 1;
    options.reaperIntervalMs = 3600 * 1000;
    TestServer setup(options);
    const qint64 showId = setup.createShow(6, 8);
    constexpr int kLoadClients = 3;
    std::vector<QString> tokens;
    for (int i = 0; i < kLoadClients + 4; ++i)
        tokens.push_back(setup.deviceToken());

    const quint16 port = freePort();
    PaySimProcess sim(QStringLiteral("http://127.0.0.1:%1/webhooks/payment").arg(port), {});
    ASSERT_NE(sim.port(), 0);
    const QStringList payments{QStringLiteral("--payment-provider-url"), sim.url(), QStringLiteral("--payment-webhook-secret"),
                               // Long enough that no order's hold runs out on a slow machine before the restarted
                               // server settles it (lostSeats' is run out by hand below); short enough that the
                               // unpaid orders cut by the kill expire within the final wait.
                               QString::fromLatin1(PaySimProcess::kSecret), QStringLiteral("--payment-window"), QStringLiteral("30"),
                               QStringLiteral("--payment-grace"), QStringLiteral("0"), QStringLiteral("--reconcile-min-age"), QStringLiteral("0"),
                               // Only the test's one explicit reap frees seats, so exactly the order meant to lose its hold loses it.
                               QStringLiteral("--reaper-interval-ms"), QStringLiteral("600000")};

    auto client = [&](int i) {
        auto c = std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), port);
        c->setToken(tokens[size_t(i)]);
        return c;
    };
    auto holdAndOrder = [&](HttpClient &c, const QStringList &seats) {
        const HttpResult held = c.post(holdPath(showId), seatsBody(seats));
        EXPECT_EQ(held.status, 200) << held.body.constData();
        const HttpResult created = c.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))}});
        EXPECT_EQ(created.status, 201) << created.body.constData();
        return created.json();
    };
    auto orderState = [&](const QJsonObject &order) {
        return setup.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(order.value(QStringLiteral("order_id")).toString())).toString();
    };
    auto intentOf = [](const QJsonObject &order) { return order.value(QStringLiteral("payment_intent_id")).toString(); };

    QJsonObject lostSeats;  // captured, never confirmed, and its seat goes to someone else while the server is down
    QJsonObject captured;   // captured (tok_lost: no webhook), never confirmed
    QJsonObject paidWhileDown; // paid with tok_visa while no server runs: its webhook is retried until one answers
    std::atomic<int> confirmedInLoad{0};
    {
        ServerProcess first(setup.databaseUrl(), port, setup.dataDirectory(), payments + QStringList{QStringLiteral("--reconciler-interval-ms"), QStringLiteral("0")});
        ASSERT_TRUE(first.waitReady()) << first.output().constData();

        auto c0 = client(0);
        lostSeats = holdAndOrder(*c0, {QStringLiteral("A1")});
        ASSERT_EQ(sim.pay(intentOf(lostSeats), QStringLiteral("tok_lost")).json().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        auto c1 = client(1);
        captured = holdAndOrder(*c1, {QStringLiteral("B1"), QStringLiteral("B2")});
        ASSERT_EQ(sim.pay(intentOf(captured), QStringLiteral("tok_lost")).json().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        auto c2 = client(2);
        paidWhileDown = holdAndOrder(*c2, {QStringLiteral("C1")});

        // Load: clients run hold → order → pay → confirm on rows D–F; the kill lands in the middle of it, so some
        // orders are cut between order and pay, between capture and confirm, or inside confirm.
        std::atomic<bool> stop{false};
        std::vector<std::thread> load;
        for (int c = 0; c < kLoadClients; ++c) {
            load.emplace_back([&, c] {
                auto me = client(3 + c);
                auto terminal = sim.client();
                for (int round = 0; !stop && round < 16; ++round) {
                    const QString seat = QStringLiteral("%1%2").arg(QChar(u'D' + c)).arg(1 + round % 8);
                    const HttpResult held = me->post(holdPath(showId), seatsBody({seat}));
                    if (held.status == 0)
                        return; // the server is gone
                    if (held.status != 200)
                        continue;
                    const HttpResult created = me->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))}});
                    if (created.status != 201)
                        continue;
                    const QByteArray intent = created.json().value(QStringLiteral("payment_intent_id")).toString().toUtf8();
                    terminal->post("/v1/intents/" + intent + "/pay", QJsonObject{{QStringLiteral("card_token"), QStringLiteral("tok_lost")}});
                    const HttpResult confirmed = me->post("/api/v1/orders/" + created.json().value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                                                          QJsonObject{{QStringLiteral("payment_intent_id"), QString::fromUtf8(intent)}});
                    if (confirmed.status == 200)
                        ++confirmedInLoad;
                }
            });
        }
        QDeadlineTimer enough(20000);
        while (confirmedInLoad.load() < 4 && !enough.hasExpired())
            QThread::msleep(5);
        first.kill9();
        stop = true;
        for (auto &t : load)
            t.join();
        EXPECT_GE(confirmedInLoad.load(), 4) << "the load never got going";
    }
    EXPECT_EQ(orderState(lostSeats), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(orderState(captured), QStringLiteral("PENDING_PAYMENT"));

    // While no server runs: a customer pays (its webhook finds nobody), and lostSeats' hold runs out, is reaped
    // (by another server of the same database) and its seat goes to a rival. Its hold is run out by moving its
    // expiry into the past (seat and hold, as the order froze both) rather than by waiting for it: waiting made the
    // other orders' holds, frozen a moment later, a race against the clock on a loaded machine.
    ASSERT_EQ(sim.pay(intentOf(paidWhileDown), QStringLiteral("tok_visa")).json().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    ASSERT_EQ(setup.scalar(QStringLiteral("WITH lost AS (UPDATE show_seats SET hold_expires_at = now() - interval '1 second' "
                                          "                WHERE show_id = %1 AND seat_id = 'A1' AND status = 'held' RETURNING held_by) "
                                          "UPDATE holds SET expires_at = now() - interval '1 second' WHERE hold_id = (SELECT held_by FROM lost) "
                                          "RETURNING 1").arg(showId)).toInt(), 1);
    EXPECT_GE(setup.context().holds.reapExpired(1000), 1);
    ASSERT_EQ(setup.scalar(QStringLiteral("SELECT status::text FROM show_seats WHERE show_id = %1 AND seat_id = 'B1'").arg(showId)).toString(),
              QStringLiteral("held")) << "the test was too slow: the other orders' holds expired too";
    auto rival = setup.client(setup.deviceToken());
    const HttpResult rivalHold = rival->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(rivalHold.status, 200) << rivalHold.body.constData();
    const QString stuck = setup.scalar(QStringLiteral("SELECT string_agg(state || ':' || n, ' ') FROM (SELECT state, count(*) n FROM orders GROUP BY state) s")).toString();

    // Restart: the reconciler (and the retried webhook) finish every order.
    ServerProcess second(setup.databaseUrl(), port, setup.dataDirectory(), payments + QStringList{QStringLiteral("--reconciler-interval-ms"), QStringLiteral("200")});
    ASSERT_TRUE(second.waitReady()) << second.output().constData();
    EXPECT_TRUE(eventually([&] { return unsettledOrders(setup).isEmpty(); }, 60000))
        << "still unsettled: " << unsettledOrders(setup).toStdString();

    EXPECT_EQ(orderState(captured), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(seatsInStatus(setup, showId, "booked"), setup.scalar(QStringLiteral("SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM bookings WHERE state = 'confirmed'")).toInt());
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id IN ('B1', 'B2') AND status = 'booked'").arg(showId)).toInt(), 2);
    EXPECT_EQ(orderState(paidWhileDown), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(paidWhileDown.value(QStringLiteral("order_id")).toString())).toInt(), 1);
    // The seat was gone: refunded at the provider, and the seat stays with the rival.
    EXPECT_EQ(orderState(lostSeats), QStringLiteral("REFUNDED"));
    EXPECT_EQ(sim.intentStatus(intentOf(lostSeats)), QStringLiteral("refunded"));
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT held_by::text FROM show_seats WHERE show_id = %1 AND seat_id = 'A1'").arg(showId)).toString(),
              rivalHold.json().value(QStringLiteral("hold_id")).toString());
    // The retried webhook of the order paid while down reached the new server once, and changed nothing twice.
    EXPECT_TRUE(eventually([&] {
        return setup.scalar(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1' AND processed_at IS NOT NULL")
                                .arg(intentOf(paidWhileDown))).toInt() == 1;
    }, 30000));

    EXPECT_GT(expectOrderInvariants(setup, sim), 3);
    std::printf("[          ] at the kill: %s; %d confirmed by clients before it\n", qPrintable(stuck), confirmedInLoad.load());
}
