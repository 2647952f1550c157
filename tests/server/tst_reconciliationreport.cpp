// SPDX-License-Identifier: AGPL-3.0-or-later
// Payments awaiting reconciliation — GET /api/v1/reports/reconciliation lists exactly the orders the
// server's reconciler still has open (a card payment past its window with no answer, a refund the provider has not
// taken), for managers and admins only, and forgets them once the reconciler has settled them.
#include "orderfixture.h"

#include <QJsonArray>
#include <QThread>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
constexpr int kWindowSeconds = 6;

TestServer::Options shortWindow()
{
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = kWindowSeconds;
    return options;
}

QStringList orderIds(const QJsonArray &rows)
{
    QStringList ids;
    for (const QJsonValue &row : rows)
        ids << row.toObject().value(QStringLiteral("order_id")).toString();
    return ids;
}
} // namespace

TEST(ReconciliationReport, ListsWhatTheReconcilerStillHasOpenAndForgetsItOnceSettled)
{
    OrderFixture f(shortWindow());
    auto kiosk = f.server.client(f.server.deviceToken());
    auto manager = f.server.client(f.server.staffToken(QStringLiteral("manager")));

    // A sale paid and booked: settled, never listed. Then its refund when the provider cannot be reached.
    const OrderFixture::OpenOrder sold = f.openOrder(*kiosk, {QStringLiteral("A1")});
    ASSERT_EQ(f.sim.pay(sold.intentId, QStringLiteral("tok_visa")).status, 200);
    const HttpResult booked = f.confirm(*kiosk, sold);
    ASSERT_EQ(booked.status, 200) << booked.body.constData();
    // A card payment nobody finished: listed once its payment window has closed.
    const OrderFixture::OpenOrder abandoned = f.openOrder(*kiosk, {QStringLiteral("A2")});
    EXPECT_TRUE(manager->get("/api/v1/reports/reconciliation").jsonArray().isEmpty()) << "nothing is overdue yet";
    ASSERT_TRUE(eventually([&] { return f.count(QStringLiteral("SELECT count(*) FROM orders WHERE order_id = '%1' AND expires_at <= clock_timestamp()")
                                                 .arg(abandoned.orderId)) == 1; },
                           (kWindowSeconds + 5) * 1000));
    // A payment still inside its window is the customer's, not the reconciler's: not listed.
    const OrderFixture::OpenOrder paying = f.openOrder(*kiosk, {QStringLiteral("A3")});

    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:9")); // the provider is down
    auto cashier = f.server.client(f.server.elevatedStaffToken(QStringLiteral("cashier")));
    const HttpResult cancelled = cashier->post("/api/v1/bookings/" + booked.json()[QStringLiteral("booking_id")].toString().toUtf8() + "/cancel",
                                               QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer changed plans")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.constData();
    ASSERT_EQ(f.orderState(sold.orderId), QStringLiteral("REFUND_PENDING"));

    const HttpResult listed = manager->get("/api/v1/reports/reconciliation");
    ASSERT_EQ(listed.status, 200) << listed.body.constData();
    const QJsonArray rows = listed.jsonArray();
    ASSERT_EQ(orderIds(rows), (QStringList{abandoned.orderId, sold.orderId})) << listed.body.constData(); // oldest change first
    const QJsonObject overdue = rows[0].toObject();
    EXPECT_EQ(overdue.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(overdue.value(QStringLiteral("waiting_for")).toString(), QStringLiteral("provider_answer"));
    EXPECT_EQ(overdue.value(QStringLiteral("payment_intent_id")).toString(), abandoned.intentId);
    EXPECT_EQ(overdue.value(QStringLiteral("payment_method")).toString(), QStringLiteral("card"));
    EXPECT_GE(overdue.value(QStringLiteral("age_seconds")).toInteger(), kWindowSeconds - 1);
    EXPECT_TRUE(overdue.value(QStringLiteral("refund_requested_at")).isNull());
    const QJsonObject refund = rows[1].toObject();
    EXPECT_EQ(refund.value(QStringLiteral("state")).toString(), QStringLiteral("REFUND_PENDING"));
    EXPECT_EQ(refund.value(QStringLiteral("waiting_for")).toString(), QStringLiteral("refund"));
    EXPECT_EQ(refund.value(QStringLiteral("amount_minor")).toInteger(),
              f.count(QStringLiteral("SELECT amount_minor FROM orders WHERE order_id = '%1'").arg(sold.orderId)));
    EXPECT_TRUE(refund.value(QStringLiteral("refund_requested_at")).isString());
    EXPECT_FALSE(orderIds(rows).contains(paying.orderId));
    EXPECT_EQ(manager->get("/api/v1/reports/reconciliation?limit=1").jsonArray().size(), 1);

    // Managers and admins only; a bad limit is refused.
    EXPECT_EQ(f.server.client(f.server.staffToken(QStringLiteral("admin")))->get("/api/v1/reports/reconciliation").status, 200);
    EXPECT_EQ(cashier->get("/api/v1/reports/reconciliation").status, 403);
    EXPECT_EQ(kiosk->get("/api/v1/reports/reconciliation").status, 403);
    EXPECT_EQ(f.server.client()->get("/api/v1/reports/reconciliation").status, 401);
    for (const char *bad : {"0", "5001", "ten", "-1"}) {
        const HttpResult refused = manager->get(QByteArray("/api/v1/reports/reconciliation?limit=") + bad);
        EXPECT_EQ(refused.status, 400) << bad;
        EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_query")) << bad;
    }

    // The provider is back; the reconciler expires the abandoned payment and pays the refund: neither is listed.
    f.server.context().orderService.setProviderUrl(f.sim.url());
    f.server.context().orderService.reconcileOnce(100);
    EXPECT_EQ(f.orderState(abandoned.orderId), QStringLiteral("EXPIRED"));
    EXPECT_EQ(f.orderState(sold.orderId), QStringLiteral("REFUNDED"));
    const QStringList after = orderIds(manager->get("/api/v1/reports/reconciliation").jsonArray());
    EXPECT_FALSE(after.contains(abandoned.orderId));
    EXPECT_FALSE(after.contains(sold.orderId));
}
