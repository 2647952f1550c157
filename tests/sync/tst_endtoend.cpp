// SPDX-License-Identifier: AGPL-3.0-or-later
// End to end with orders and payments (issue 3): a real server, real marquee-paysim, the fault proxy.
#include "../server/paysimprocess.h"
#include "faultproxy.h"
#include "sync/apiclient.h"
#include "sync/localstore.h"
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
    const qint64 showId = createSyncShow(server, 2, 4);
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
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
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
