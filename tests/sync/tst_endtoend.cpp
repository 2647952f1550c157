// SPDX-License-Identifier: AGPL-3.0-or-later
// End to end with orders and payments: a real server, real marquee-paysim, the fault proxy.
#include "../server/paysimprocess.h"
#include "faultproxy.h"
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/offlinecheckin.h"
#include "sync/reconciler.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

TEST(EndToEnd, ConfirmCutAfterTheTerminalApprovedCompletesOnceAndARefundVoidsThePrintedTickets)
{
    TestServer::Options serverOptions;
    serverOptions.threads = 2;
    serverOptions.paymentWebhookSecret = PaySimProcess::kSecret;
    TestServer server(serverOptions);
    PaySimProcess sim(server, {});
    const qint64 showId = server.createShow(2, 4);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);

    // Online: hold and order (selling needs the server).
    const HttpResult hold = kiosk->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                        QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1"), QStringLiteral("A2")}}});
    ASSERT_EQ(hold.status, 200) << hold.body.toStdString();
    const HttpResult created = kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), hold.json().value(QStringLiteral("hold_id"))}});
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const QJsonObject order = created.json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();

    // The terminal approves.
    ASSERT_EQ(sim.pay(intentId, QStringLiteral("tok_visa")).status, 200);

    // The kiosk journals the approval and queues the confirm; the link cuts the confirm's answer mid-response.
    FaultProxy proxy(server.port());
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(proxy.port())));
    api.setToken(token);
    api.setTimeoutMs(5000);
    SyncEngine::Options options;
    options.probeIntervalMs = 60000; // after start, no probe may take the injected fault
    options.recoveryProbeMs = 20;
    options.backoffBaseMs = 20;
    options.backoffMaxMs = 200;
    options.followFeeds = false;
    SyncEngine engine(store, api, options);
    engine.start();
    ASSERT_TRUE(waitUntil([&] { return engine.isOnline(); }, 20000));
    proxy.setMode(FaultProxy::Mode::CutResponse, 1);
    ASSERT_TRUE(engine.queueConfirm(orderId, intentId, order.value(QStringLiteral("amount_minor")).toInteger(),
                                    order.value(QStringLiteral("currency")).toString()));
    ASSERT_TRUE(waitUntil([&] { return store.payment(intentId)->state != QLatin1String("awaiting_confirm"); }, 60000));
    EXPECT_EQ(proxy.faultsInjected(), 1);
    const PaymentRecord payment = *store.payment(intentId);
    EXPECT_EQ(payment.state, QStringLiteral("confirmed")) << payment.note.toStdString();
    EXPECT_FALSE(payment.bookingRef.isEmpty());
    const auto confirm = store.actionByKey(intentId);
    ASSERT_TRUE(confirm.has_value());
    EXPECT_GE(confirm->attempts, 2); // the first answer was lost
    // Exactly once on the server: one booking, two tickets.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)).toInt(), 1);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString(), QStringLiteral("CONFIRMED"));

    // The kiosk prints the tickets of the stored answer and journals them.
    const QJsonObject booking = QJsonDocument::fromJson(confirm->resultBody).object();
    QList<TicketRecord> printed;
    for (const QJsonValue &value : booking.value(QStringLiteral("tickets")).toArray()) {
        TicketRecord t;
        t.ticketId = value.toObject().value(QStringLiteral("ticket_id")).toVariant().toString();
        t.bookingId = booking.value(QStringLiteral("booking_id")).toVariant().toString();
        t.bookingRef = booking.value(QStringLiteral("booking_ref")).toString();
        t.showId = showId;
        t.seatId = value.toObject().value(QStringLiteral("seat_id")).toString();
        t.qr = value.toObject().value(QStringLiteral("qr")).toString();
        printed.append(t);
    }
    ASSERT_EQ(printed.size(), 2);
    ASSERT_TRUE(store.journalPrintedTickets(printed));

    // Reconciled now: both tickets confirmed, the payment a confirmed booking.
    Reconciler reconciler(store, api);
    ReconciliationReport report = reconciler.runBlocking();
    EXPECT_EQ(report.count(QStringLiteral("confirmed")), 2);
    ASSERT_EQ(report.payments.size(), 1);
    EXPECT_EQ(report.payments.first().state, QStringLiteral("confirmed"));

    // A manager refunds the booking elsewhere; the next reconciliation voids the printed tickets.
    auto manager = server.client(server.elevatedStaffToken(QStringLiteral("manager")));
    const HttpResult cancelled = manager->post("/api/v1/bookings/" + printed.first().bookingId.toUtf8() + "/cancel",
                                               QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer asked")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    report = reconciler.runBlocking();
    EXPECT_TRUE(report.complete);
    EXPECT_EQ(report.count(QStringLiteral("voided")), 2);
    for (const TicketRecord &t : printed)
        EXPECT_EQ(store.ticket(t.ticketId)->reconciliation, QStringLiteral("voided"));
    EXPECT_EQ(report.payments.first().state, QStringLiteral("refund_due"));
}

namespace {

/**
 * @brief A paid server with marquee-paysim, a kiosk's LocalStore + ApiClient + SyncEngine behind the fault proxy
 * (fast probes so that going offline and back takes milliseconds), and helpers that sell over plain HTTP.
 */
class NetworkEndToEnd : public ::testing::Test
{
protected:
    static TestServer::Options serverOptions(int paymentWindowSeconds = 900)
    {
        TestServer::Options options;
        options.threads = 2;
        options.paymentWebhookSecret = PaySimProcess::kSecret;
        options.paymentWindowSeconds = paymentWindowSeconds;
        options.paymentGraceSeconds = paymentWindowSeconds < 60 ? 0 : 120;
        return options;
    }
    void startKiosk(TestServer &server, bool followFeeds)
    {
        if (m_token.isEmpty())
            m_token = server.deviceToken();
        m_proxy = std::make_unique<FaultProxy>(server.port());
        ASSERT_TRUE(m_store.open(m_dir.filePath(QStringLiteral("kiosk.db"))));
        m_api = std::make_unique<ApiClient>(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_proxy->port())));
        m_api->setToken(m_token);
        m_api->setTimeoutMs(3000);
        SyncEngine::Options options;
        options.probeIntervalMs = 100;
        options.recoveryProbeMs = 20;
        options.probeTimeoutMs = 1000;
        options.backoffBaseMs = 20;
        options.backoffMaxMs = 200;
        options.followFeeds = followFeeds;
        options.feedIntervalMs = 300;
        m_engine = std::make_unique<SyncEngine>(m_store, *m_api, options);
        m_engine->start();
        ASSERT_TRUE(waitUntil([&] { return m_engine->isOnline(); }, 20000));
    }
    /** @brief Cut the link (connections refused) and wait until the engine has noticed. */
    void cutLink()
    {
        m_proxy->setRefusing(true);
        ASSERT_TRUE(waitUntil([&] { return !m_engine->isOnline(); }, 20000));
    }
    void restoreLink()
    {
        m_proxy->setRefusing(false);
        ASSERT_TRUE(waitUntil([&] { return m_engine->isOnline(); }, 20000));
    }
    /** @brief Hold @p seats and create the order over HTTP (selling is online only); the order JSON. */
    QJsonObject order(TestServer &server, qint64 showId, const QStringList &seats)
    {
        auto kiosk = server.client(m_token);
        const HttpResult hold = kiosk->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
        EXPECT_EQ(hold.status, 200) << hold.body.toStdString();
        const HttpResult created = kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), hold.json().value(QStringLiteral("hold_id"))}});
        EXPECT_EQ(created.status, 201) << created.body.toStdString();
        return created.json();
    }
    /** @brief A booking sold and confirmed over HTTP: the confirm answer (booking with tickets). */
    QJsonObject booking(TestServer &server, PaySimProcess &sim, qint64 showId, const QStringList &seats)
    {
        if (m_token.isEmpty())
            m_token = server.deviceToken();
        const QJsonObject created = order(server, showId, seats);
        const QString intent = created.value(QStringLiteral("payment_intent_id")).toString();
        EXPECT_EQ(sim.pay(intent, QStringLiteral("tok_visa")).status, 200);
        const HttpResult confirmed = server.client(m_token)->post(
            "/api/v1/orders/" + created.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
            QJsonObject{{QStringLiteral("payment_intent_id"), intent}}, {{"Idempotency-Key", intent.toUtf8()}});
        EXPECT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
        return confirmed.json();
    }
    int count(TestServer &server, const QString &sql) { return server.scalar(sql).toInt(); }

    QTemporaryDir m_dir;
    QString m_token;
    std::unique_ptr<FaultProxy> m_proxy;
    LocalStore m_store;
    std::unique_ptr<ApiClient> m_api;
    std::unique_ptr<SyncEngine> m_engine;
};

} // namespace

TEST_F(NetworkEndToEnd, LinkLostAfterTheTerminalApprovedIsConfirmedOnReconnectAndReconciled)
{
    TestServer server(serverOptions());
    PaySimProcess sim(server, {});
    const qint64 showId = server.createShow(2, 4);
    startKiosk(server, false);
    const QJsonObject created = order(server, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QString orderId = created.value(QStringLiteral("order_id")).toString();
    const QString intentId = created.value(QStringLiteral("payment_intent_id")).toString();
    // The terminal approved; the provider's webhook is lost (tok_lost), so only the kiosk's confirm can book.
    ASSERT_EQ(sim.pay(intentId, QStringLiteral("tok_lost")).status, 200);

    // The lobby network drops just then: the approval is journaled and its confirm waits in the queue.
    cutLink();
    ASSERT_TRUE(m_engine->queueConfirm(orderId, intentId, created.value(QStringLiteral("amount_minor")).toInteger(),
                                       created.value(QStringLiteral("currency")).toString()));
    waitUntil([] { return false; }, 500); // offline for a while: nothing may be lost or half-applied
    EXPECT_EQ(m_store.payment(intentId)->state, QStringLiteral("awaiting_confirm"));
    EXPECT_EQ(m_engine->pendingCount(), 1);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);

    // On reconnect the queue drains first, then the reconciler compares the journals with the server.
    Reconciler reconciler(m_store, *m_api);
    std::optional<ReconciliationReport> report;
    QObject::connect(&reconciler, &Reconciler::finished, [&](const ReconciliationReport &r) { report = r; });
    QObject::connect(m_engine.get(), &SyncEngine::drained, &reconciler, [&] {
        if (!report && !reconciler.isRunning())
            reconciler.run();
    });
    restoreLink();
    ASSERT_TRUE(waitUntil([&] { return report.has_value(); }, 30000));
    EXPECT_EQ(m_store.payment(intentId)->state, QStringLiteral("confirmed"));
    EXPECT_TRUE(report->complete);
    ASSERT_EQ(report->payments.size(), 1);
    EXPECT_EQ(report->payments.first().state, QStringLiteral("confirmed"));
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 1);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString(), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(showId)), 2);
}

TEST_F(NetworkEndToEnd, AReconciliationLeavesAPaymentWhoseConfirmIsStillQueuedToItsReplay)
{
    // The server confirmed the order already (its payment webhook came first) while the kiosk's own confirm still
    // waits in the queue, e.g. out its backoff after a reconnect. Only the replay's answer carries the tickets the
    // kiosk must print, so the reconciliation must not mark the payment confirmed on the order's state alone.
    TestServer server(serverOptions());
    PaySimProcess sim(server, {});
    const qint64 showId = server.createShow(2, 4);
    m_token = server.deviceToken();
    const QJsonObject created = order(server, showId, {QStringLiteral("A1")});
    const QString orderId = created.value(QStringLiteral("order_id")).toString();
    const QString intentId = created.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(sim.pay(intentId, QStringLiteral("tok_visa")).status, 200);
    ASSERT_TRUE(waitUntil([&] {
        return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString() == QLatin1String("CONFIRMED");
    }, 20000)) << "the webhook confirms the order on the server";

    ASSERT_TRUE(m_store.open(m_dir.filePath(QStringLiteral("kiosk.db"))));
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())));
    api.setToken(m_token);
    SyncEngine::Options options;
    options.followFeeds = false;
    SyncEngine engine(m_store, api, options); // not started: the confirm stays queued
    ASSERT_TRUE(engine.queueConfirm(orderId, intentId, created.value(QStringLiteral("amount_minor")).toInteger(),
                                    created.value(QStringLiteral("currency")).toString()));

    Reconciler reconciler(m_store, api);
    ReconciliationReport report = reconciler.runBlocking();
    ASSERT_EQ(report.payments.size(), 1);
    EXPECT_EQ(report.payments.first().state, QStringLiteral("pending"));
    EXPECT_EQ(m_store.payment(intentId)->state, QStringLiteral("awaiting_confirm"));

    // Once the replay has answered, the same reconciliation confirms it, with the booking the replay recorded.
    engine.start();
    ASSERT_TRUE(waitUntil([&] { return m_store.payment(intentId)->state == QLatin1String("confirmed"); }, 30000));
    EXPECT_FALSE(m_store.payment(intentId)->bookingRef.isEmpty());
    report = reconciler.runBlocking();
    ASSERT_EQ(report.payments.size(), 1);
    EXPECT_EQ(report.payments.first().state, QStringLiteral("confirmed"));
}

TEST_F(NetworkEndToEnd, HoldLostWhileOfflineEndsInARefundNeverALostPayment)
{
    TestServer server(serverOptions(1)); // the payment window (and with it the frozen hold) lasts one second
    PaySimProcess sim(server, {});
    const qint64 showId = server.createShow(2, 4);
    startKiosk(server, false);
    const QJsonObject created = order(server, showId, {QStringLiteral("B2")});
    const QString orderId = created.value(QStringLiteral("order_id")).toString();
    const QString intentId = created.value(QStringLiteral("payment_intent_id")).toString();
    // The customer pays; the link is down before the kiosk can confirm.
    ASSERT_EQ(sim.pay(intentId, QStringLiteral("tok_late")).status, 200);
    cutLink();
    ASSERT_TRUE(m_engine->queueConfirm(orderId, intentId, created.value(QStringLiteral("amount_minor")).toInteger(),
                                       created.value(QStringLiteral("currency")).toString()));
    // Meanwhile the hold runs out and another customer takes the seat.
    // (expired, or already freed by the reaper: either way no longer this order's)
    ASSERT_TRUE(waitUntil([&] {
        return count(server, QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id = 'B2' "
                                            "AND (held_by IS DISTINCT FROM '%2'::uuid OR hold_expires_at < now())")
                                 .arg(showId)
                                 .arg(created.value(QStringLiteral("hold_id")).toString())) == 1;
    }, 20000));
    auto rival = server.client(server.deviceToken());
    const HttpResult rivalHold = rival->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                             QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("B2")}}});
    ASSERT_EQ(rivalHold.status, 200) << rivalHold.body.toStdString();

    restoreLink();
    ASSERT_TRUE(waitUntil([&] { return m_store.payment(intentId)->state != QLatin1String("awaiting_confirm"); }, 30000));
    const PaymentRecord payment = *m_store.payment(intentId);
    EXPECT_EQ(payment.state, QStringLiteral("refund_due")) << payment.note.toStdString();
    EXPECT_TRUE(payment.note.contains(QStringLiteral("refunded"))) << payment.note.toStdString();
    // The server refunded the card: the money is not lost, and the seat stays with its new owner.
    EXPECT_TRUE(waitUntil([&] { return sim.intentStatus(intentId) == QLatin1String("refunded"); }, 20000));
    // The provider says refunded as soon as it has refunded; the server records it when the provider's answer
    // reaches it, a moment later (under load, noticeably later).
    const auto orderState = [&] { return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString(); };
    EXPECT_TRUE(waitUntil([&] { return orderState() == QLatin1String("REFUNDED"); }, 20000)) << orderState().toStdString();
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1' AND status = 'succeeded'").arg(orderId)), 1);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT held_by::text FROM show_seats WHERE show_id = %1 AND seat_id = 'B2'").arg(showId)).toString(),
              rivalHold.json().value(QStringLiteral("hold_id")).toString());
    // The reconciler reports the refund for the manager.
    Reconciler reconciler(m_store, *m_api);
    const ReconciliationReport report = reconciler.runBlocking();
    ASSERT_EQ(report.payments.size(), 1);
    EXPECT_EQ(report.payments.first().state, QStringLiteral("refund_due"));
}

TEST_F(NetworkEndToEnd, KeysRevocationsAndEventsResumeFromTheirCursorsAfterAnOutage)
{
    TestServer server(serverOptions());
    PaySimProcess sim(server, {});
    const qint64 showId = server.createShow(2, 4);
    const QJsonObject first = booking(server, sim, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    startKiosk(server, true);
    int newEventsAfterOutage = 0;
    bool afterOutage = false;
    QObject::connect(m_engine.get(), &SyncEngine::eventsReceived, [&](int n) {
        if (afterOutage)
            newEventsAfterOutage += n;
    });
    auto feedEnd = [&] {
        return server.client(m_token)->get("/api/v1/events?after=0&limit=1000").json().value(QStringLiteral("next_cursor")).toVariant().toString();
    };
    ASSERT_TRUE(waitUntil([&] { return !m_store.cursor(QStringLiteral("events")).isEmpty() && m_store.cursor(QStringLiteral("events")) == feedEnd(); }, 30000));
    // Keys: the same set the server publishes.
    const QJsonArray serverKeys = QJsonDocument::fromJson(server.client(m_token)->get("/api/v1/keys").body).array();
    ASSERT_FALSE(serverKeys.isEmpty());
    ASSERT_TRUE(waitUntil([&] { return m_store.publicKeysById().size() == serverKeys.size(); }, 20000)); // the followers run side by side
    const QHash<quint32, QByteArray> keys = m_store.publicKeysById();
    EXPECT_EQ(keys.size(), serverKeys.size());
    for (const QJsonValue &key : serverKeys)
        EXPECT_EQ(keys.value(quint32(key[QStringLiteral("key_id")].toInteger())),
                  QByteArray::fromBase64(key[QStringLiteral("public_key")].toString().toLatin1()));
    const int eventsBefore = m_store.eventCount();
    EXPECT_GT(eventsBefore, 0);
    const QString eventsCursorBefore = m_store.cursor(QStringLiteral("events"));

    // Offline: a manager cancels the booking elsewhere (its tickets are revoked) and another booking is sold.
    cutLink();
    auto manager = server.client(server.elevatedStaffToken(QStringLiteral("manager")));
    const HttpResult cancelled = manager->post("/api/v1/bookings/" + first.value(QStringLiteral("booking_id")).toVariant().toString().toUtf8() + "/cancel",
                                               QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer asked")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    booking(server, sim, showId, {QStringLiteral("B1")});
    waitUntil([] { return false; }, 400);
    for (const QJsonValue &ticket : first.value(QStringLiteral("tickets")).toArray())
        EXPECT_FALSE(m_store.revocation(ticket[QStringLiteral("ticket_id")].toVariant().toString())) << "unknown while offline";

    // Back online: the followers continue from their cursors.
    afterOutage = true;
    restoreLink();
    const QString end = feedEnd();
    ASSERT_TRUE(waitUntil([&] { return m_store.cursor(QStringLiteral("events")) == end; }, 30000));
    for (const QJsonValue &ticket : first.value(QStringLiteral("tickets")).toArray())
        EXPECT_TRUE(waitUntil([&] { return m_store.revocation(ticket[QStringLiteral("ticket_id")].toVariant().toString()).has_value(); }, 10000));
    const int serverEvents = server.client(m_token)->get("/api/v1/events?after=0&limit=1000").json().value(QStringLiteral("events")).toArray().size();
    EXPECT_EQ(m_store.eventCount(), serverEvents) << "every event once (deduplicated by id)";
    EXPECT_EQ(newEventsAfterOutage, serverEvents - eventsBefore) << "only what happened during the outage was new";
    EXPECT_NE(m_store.cursor(QStringLiteral("events")), eventsCursorBefore);
    EXPECT_FALSE(m_store.cursor(QStringLiteral("revocations")).isEmpty());
}

TEST_F(NetworkEndToEnd, OfflineCheckinUploadsWhenTheLinkReturnsAndARetriedNonceGetsTheStoredAnswer)
{
    TestServer server(serverOptions());
    PaySimProcess sim(server, {});
    // Doors open three hours before the start: a show in one hour can be checked in now.
    const qint64 showId = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600));
    const QJsonObject sold = booking(server, sim, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QJsonArray tickets = sold.value(QStringLiteral("tickets")).toArray();
    ASSERT_EQ(tickets.size(), 2);
    const QString mine = tickets[0][QStringLiteral("qr")].toString();
    const QString theirs = tickets[1][QStringLiteral("qr")].toString();
    startKiosk(server, true);
    ASSERT_TRUE(waitUntil([&] { return !m_store.publicKeysById().isEmpty(); }, 20000)) << "keys cached while online";

    cutLink();
    OfflineCheckin door(m_store, m_engine.get());
    const ScanOutcome admitted = door.scan(mine, showId);
    EXPECT_EQ(admitted.result, QStringLiteral("ok"));
    EXPECT_EQ(door.scan(mine, showId).result, QStringLiteral("already_redeemed")) << "a second entry at this door";
    QString forged = mine;
    forged[forged.size() - 2] = forged[forged.size() - 2] == QLatin1Char('A') ? QLatin1Char('B') : QLatin1Char('A');
    EXPECT_EQ(door.scan(forged, showId).result, QStringLiteral("invalid_signature"));
    // Meanwhile the other ticket was let in at another door that is online.
    const HttpResult otherDoor = server.client(server.deviceToken())->post(
        "/api/v1/checkin", QJsonObject{{QStringLiteral("qr"), theirs}, {QStringLiteral("nonce"), QStringLiteral("other-door-1")},
                                       {QStringLiteral("scanned_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
    ASSERT_EQ(otherDoor.status, 200) << otherDoor.body.toStdString();
    const ScanOutcome late = door.scan(theirs, showId);
    EXPECT_EQ(late.result, QStringLiteral("ok")) << "this door cannot know offline";
    EXPECT_EQ(m_store.pendingCount(), 4);

    restoreLink();
    ASSERT_TRUE(waitUntil([&] { return m_store.pendingCount() == 0; }, 30000));
    EXPECT_EQ(m_store.parkedCount(), 0);
    const CheckinScan uploaded = *m_store.scan(admitted.nonce);
    EXPECT_EQ(uploaded.uploadState, QStringLiteral("uploaded"));
    EXPECT_EQ(uploaded.serverResult, QStringLiteral("ok"));
    EXPECT_EQ(m_store.scan(late.nonce)->serverResult, QStringLiteral("already_redeemed")) << "the server says what happened at the other door";
    // The real scan time travelled with the upload.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT (extract(epoch FROM scanned_at) * 1000)::bigint FROM checkins WHERE nonce = '%1'").arg(admitted.nonce))
                  .toLongLong() / 1000,
              admitted.scannedAt.toMSecsSinceEpoch() / 1000);

    // A retried upload with the same nonce (its answer was lost) gets the stored answer and admits nobody twice.
    const ApiResult again = m_api->requestBlocking(QStringLiteral("POST"), QStringLiteral("/api/v1/checkin"),
                                                  QJsonObject{{QStringLiteral("qr"), mine}, {QStringLiteral("nonce"), admitted.nonce},
                                                              {QStringLiteral("scanned_at"), admitted.scannedAt.toString(Qt::ISODateWithMs)}},
                                                  admitted.nonce);
    ASSERT_TRUE(again.ok()) << again.describe().toStdString();
    EXPECT_EQ(again.json().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
    EXPECT_EQ(QJsonDocument::fromJson(again.body).object(), QJsonDocument::fromJson(uploaded.serverResponse).object());
    const QString ticketId = tickets[0][QStringLiteral("ticket_id")].toVariant().toString();
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM checkins WHERE ticket_id = '%1' AND result = 'ok'").arg(ticketId)), 1);
}
