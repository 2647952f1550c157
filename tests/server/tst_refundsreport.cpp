// SPDX-License-Identifier: AGPL-3.0-or-later
// Refunds on the manager desk: GET /api/v1/reports/refunds lists every refund asked for in the range —
// a staff cancellation, a manager's override with its reason, and the server's own refunds of payments that landed
// after their hold was lost (found when the order was confirmed, and by the reconciler) — with amount, payment
// method, kind, reason, status and who asked from which device; for managers and admins only; bad input refused.
#include "orderfixture.h"
#include "servertesthelpers.h"

#include <QJsonArray>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
TestServer::Options lapsingHolds()
{
    // The order's frozen hold runs out one second after the payment window opens, so a payment can land late.
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = 1;
    options.paymentGraceSeconds = 0;
    return options;
}

QJsonObject rowOfOrder(const QJsonArray &rows, const QString &orderId)
{
    for (const QJsonValue &row : rows)
        if (row.toObject().value(QStringLiteral("order_id")).toString() == orderId)
            return row.toObject();
    return {};
}

/** @brief Sell @p seats of @p showId for cash as @p client; the confirmed booking. */
QJsonObject sellForCash(OrderFixture &f, HttpClient &client, qint64 showId, const QStringList &seats)
{
    const HttpResult hold = client.post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                        QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
    EXPECT_EQ(hold.status, 200) << hold.body.constData();
    const HttpResult order = f.order(client, hold.json().value(QStringLiteral("hold_id")).toString(), QStringLiteral("cash"));
    EXPECT_EQ(order.status, 201) << order.body.constData();
    const HttpResult confirmed = f.confirm(client, order.json().value(QStringLiteral("order_id")).toString(),
                                           order.json().value(QStringLiteral("payment_intent_id")).toString());
    EXPECT_EQ(confirmed.status, 200) << confirmed.body.constData();
    return confirmed.json();
}

/** @brief Wait until @p open's frozen hold has run out and let another kiosk take @p seat. */
bool loseTheHold(OrderFixture &f, const OrderFixture::OpenOrder &open, const QString &seat)
{
    // "No longer held unexpired by this hold", not "held and expired": the reaper may free the seat in between.
    if (!eventually([&] { return f.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1' AND hold_expires_at >= now()")
                                             .arg(open.holdId)) == 0; }))
        return false;
    auto rival = f.server.client(f.server.deviceToken());
    return !f.hold(*rival, {seat}).isEmpty();
}
} // namespace

TEST(RefundsReport, ListsStaffOverridesAndTheServersOwnRefundsWithKindAmountAndWho)
{
    OrderFixture f(lapsingHolds());
    const QString kioskToken = f.server.deviceToken();
    const QString kioskName = f.server.scalar(QStringLiteral("SELECT name FROM devices WHERE device_id = (SELECT max(device_id) FROM devices)")).toString();
    auto kiosk = f.server.client(kioskToken);
    auto manager = f.server.client(f.server.elevatedStaffToken(QStringLiteral("manager")));
    const qint64 managerSession = f.server.scalar(QStringLiteral("SELECT max(session_id) FROM sessions")).toLongLong();
    const QString managerName = f.server.scalar(QStringLiteral("SELECT name FROM staff WHERE role = 'manager'")).toString();
    auto cashier = f.server.client(f.server.elevatedStaffToken(QStringLiteral("cashier")));
    const QString cashierName = f.server.scalar(QStringLiteral("SELECT name FROM staff WHERE role = 'cashier'")).toString();
    auto refundsIn = [&](const QByteArray &query) { return manager->get("/api/v1/reports/refunds" + query); };
    EXPECT_TRUE(refundsIn("").json().value(QStringLiteral("rows")).toArray().isEmpty());

    // 1. A card payment that lands after its hold was lost: refunded by the server when the kiosk confirms.
    const OrderFixture::OpenOrder late = f.openOrder(*kiosk, {QStringLiteral("D1")});
    ASSERT_TRUE(loseTheHold(f, late, QStringLiteral("D1")));
    ASSERT_EQ(f.sim.pay(late.intentId, QStringLiteral("tok_late")).status, 200);
    EXPECT_API_ERROR(f.confirm(*kiosk, late), 409, "hold_lost");
    ASSERT_EQ(f.orderState(late.orderId), QStringLiteral("REFUNDED"));

    // 2. The same, captured while nobody confirms (no webhook either): the reconciler finds and refunds it.
    const OrderFixture::OpenOrder unseen = f.openOrder(*kiosk, {QStringLiteral("D2")});
    ASSERT_TRUE(loseTheHold(f, unseen, QStringLiteral("D2")));
    ASSERT_EQ(f.sim.pay(unseen.intentId, QStringLiteral("tok_lost")).status, 200);
    ASSERT_TRUE(eventually([&] {
        f.server.context().orderService.reconcileOnce();
        return f.orderState(unseen.orderId) == QLatin1String("REFUNDED");
    }));

    // 3. A cashier cancels a cash sale within the policy; 4. a manager overrides the policy on a show starting
    // within the cut-off, with a reason.
    const QJsonObject sold = sellForCash(f, *cashier, f.showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    ASSERT_EQ(cashier->post("/api/v1/bookings/" + sold.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel",
                            QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer changed plans")}}).status, 200);
    const qint64 soon = f.server.createShow(3, 4, QDateTime::currentDateTimeUtc().addSecs(3600)); // inside the 2 h cut-off
    const QJsonObject close = sellForCash(f, *cashier, soon, {QStringLiteral("A1")});
    const QByteArray cancelClose = "/api/v1/bookings/" + close.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";
    EXPECT_API_ERROR(cashier->post(cancelClose, QJsonObject{{QStringLiteral("reason"), QStringLiteral("projector broke")}}), 422, "outside_cancel_policy");
    ASSERT_EQ(manager->post(cancelClose, QJsonObject{{QStringLiteral("reason"), QStringLiteral("projector broke")}}).status, 200);

    const HttpResult report = refundsIn("");
    ASSERT_EQ(report.status, 200) << report.body.constData();
    const QJsonArray rows = report.json().value(QStringLiteral("rows")).toArray();
    ASSERT_EQ(rows.size(), 4) << report.body.constData();
    EXPECT_FALSE(report.json().value(QStringLiteral("truncated")).toBool());
    // Newest first; together exactly the money the refunds table gave back.
    qint64 listed = 0;
    for (int i = 0; i < rows.size(); ++i) {
        listed += rows[i].toObject().value(QStringLiteral("amount_minor")).toInteger();
        if (i > 0) {
            EXPECT_GE(rows[i - 1].toObject().value(QStringLiteral("requested_at")).toString(), rows[i].toObject().value(QStringLiteral("requested_at")).toString());
        }
    }
    EXPECT_EQ(listed, f.count(QStringLiteral("SELECT sum(amount_minor) FROM refunds")));

    const QJsonObject lost = rowOfOrder(rows, late.orderId);
    ASSERT_FALSE(lost.isEmpty());
    EXPECT_EQ(lost.value(QStringLiteral("kind")).toString(), QStringLiteral("hold_lost"));
    EXPECT_TRUE(lost.value(QStringLiteral("automatic")).toBool());
    EXPECT_EQ(lost.value(QStringLiteral("found_by")).toString(), QStringLiteral("confirm"));
    EXPECT_EQ(lost.value(QStringLiteral("reason")).toString(), QStringLiteral("hold_lost"));
    EXPECT_EQ(lost.value(QStringLiteral("amount_minor")).toInteger(), f.count(QStringLiteral("SELECT amount_minor FROM orders WHERE order_id = '%1'").arg(late.orderId)));
    EXPECT_GT(lost.value(QStringLiteral("amount_minor")).toInteger(), 0);
    EXPECT_EQ(lost.value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
    EXPECT_EQ(lost.value(QStringLiteral("payment_method")).toString(), QStringLiteral("card"));
    EXPECT_EQ(lost.value(QStringLiteral("card_minor")).toInteger(), lost.value(QStringLiteral("amount_minor")).toInteger());
    EXPECT_EQ(lost.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_TRUE(lost.value(QStringLiteral("completed_at")).isString());
    EXPECT_TRUE(lost.value(QStringLiteral("booking_ref")).isNull()); // the payment never became a booking
    EXPECT_EQ(lost.value(QStringLiteral("channel")).toString(), QStringLiteral("kiosk"));
    EXPECT_EQ(lost.value(QStringLiteral("sold_on_device")).toString(), kioskName);
    EXPECT_EQ(lost.value(QStringLiteral("show_id")).toInteger(), f.showId);
    EXPECT_FALSE(lost.value(QStringLiteral("title")).toString().isEmpty());
    EXPECT_TRUE(lost.value(QStringLiteral("actor_name")).isNull());

    const QJsonObject reconciled = rowOfOrder(rows, unseen.orderId);
    ASSERT_FALSE(reconciled.isEmpty());
    EXPECT_EQ(reconciled.value(QStringLiteral("kind")).toString(), QStringLiteral("reconciler"));
    EXPECT_EQ(reconciled.value(QStringLiteral("found_by")).toString(), QStringLiteral("reconciler"));
    EXPECT_EQ(reconciled.value(QStringLiteral("requested_by")).toString(), QStringLiteral("system:reconciler"));
    EXPECT_EQ(reconciled.value(QStringLiteral("amount_minor")).toInteger(),
              f.count(QStringLiteral("SELECT amount_minor FROM orders WHERE order_id = '%1'").arg(unseen.orderId)));
    EXPECT_EQ(reconciled.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));

    const QJsonObject cancelled = rowOfOrder(rows, sold.value(QStringLiteral("order_id")).toString());
    ASSERT_FALSE(cancelled.isEmpty()) << report.body.constData();
    EXPECT_EQ(cancelled.value(QStringLiteral("kind")).toString(), QStringLiteral("staff"));
    EXPECT_FALSE(cancelled.value(QStringLiteral("automatic")).toBool());
    EXPECT_EQ(cancelled.value(QStringLiteral("reason")).toString(), QStringLiteral("customer changed plans"));
    EXPECT_EQ(cancelled.value(QStringLiteral("booking_ref")).toString(), sold.value(QStringLiteral("booking_ref")).toString());
    EXPECT_EQ(cancelled.value(QStringLiteral("payment_method")).toString(), QStringLiteral("cash"));
    EXPECT_EQ(cancelled.value(QStringLiteral("amount_minor")).toInteger(), sold.value(QStringLiteral("amount_minor")).toInteger());
    EXPECT_EQ(cancelled.value(QStringLiteral("cash_minor")).toInteger(), sold.value(QStringLiteral("amount_minor")).toInteger());
    EXPECT_EQ(cancelled.value(QStringLiteral("actor_name")).toString(), cashierName);
    EXPECT_EQ(cancelled.value(QStringLiteral("actor_role")).toString(), QStringLiteral("cashier"));

    const QJsonObject overridden = rowOfOrder(rows, close.value(QStringLiteral("order_id")).toString());
    ASSERT_FALSE(overridden.isEmpty());
    EXPECT_EQ(overridden.value(QStringLiteral("kind")).toString(), QStringLiteral("override"));
    EXPECT_EQ(overridden.value(QStringLiteral("reason")).toString(), QStringLiteral("projector broke"));
    EXPECT_EQ(overridden.value(QStringLiteral("actor_name")).toString(), managerName);
    EXPECT_EQ(overridden.value(QStringLiteral("actor_role")).toString(), QStringLiteral("manager"));
    EXPECT_EQ(overridden.value(QStringLiteral("requested_by")).toString(), QStringLiteral("session:%1").arg(managerSession));
    EXPECT_EQ(overridden.value(QStringLiteral("show_id")).toInteger(), soon);

    // The refunds of bookings are exactly what the sales report counts; the lost-hold ones were never sales.
    qint64 salesRefunded = 0;
    for (const QJsonValue &row : manager->get("/api/v1/reports/sales?group_by=channel").json().value(QStringLiteral("rows")).toArray())
        salesRefunded += row.toObject().value(QStringLiteral("refunds_minor")).toInteger();
    EXPECT_EQ(salesRefunded, cancelled.value(QStringLiteral("amount_minor")).toInteger() + overridden.value(QStringLiteral("amount_minor")).toInteger());

    // The range: the staff cancellation moved three days back is only in a range that covers that day.
    f.server.scalar(QStringLiteral("UPDATE refunds SET created_at = created_at - interval '3 days' WHERE order_id = '%1' RETURNING 1")
                        .arg(cancelled.value(QStringLiteral("order_id")).toString()));
    const QByteArray threeDaysAgo = QDateTime::currentDateTimeUtc().addDays(-3).date().toString(Qt::ISODate).toLatin1();
    const QJsonArray fromToday = refundsIn("?from=" + QDateTime::currentDateTimeUtc().date().toString(Qt::ISODate).toLatin1()).json().value(QStringLiteral("rows")).toArray();
    EXPECT_EQ(fromToday.size(), 3);
    EXPECT_TRUE(rowOfOrder(fromToday, cancelled.value(QStringLiteral("order_id")).toString()).isEmpty());
    const QJsonArray thatDay = refundsIn("?from=" + threeDaysAgo + "&to=" + threeDaysAgo).json().value(QStringLiteral("rows")).toArray();
    ASSERT_EQ(thatDay.size(), 1);
    EXPECT_EQ(thatDay[0].toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("staff"));
    const HttpResult one = refundsIn("?limit=1");
    EXPECT_EQ(one.json().value(QStringLiteral("rows")).toArray().size(), 1);
    EXPECT_TRUE(one.json().value(QStringLiteral("truncated")).toBool());

    // Managers and admins only; bad ranges and limits are refused like the sales report's.
    EXPECT_EQ(f.server.client(f.server.staffToken(QStringLiteral("admin")))->get("/api/v1/reports/refunds").status, 200);
    EXPECT_API_ERROR(cashier->get("/api/v1/reports/refunds"), 403, "forbidden");
    EXPECT_API_ERROR(kiosk->get("/api/v1/reports/refunds"), 403, "forbidden");
    EXPECT_API_ERROR(f.server.client(f.server.deviceToken(QStringLiteral("till")))->get("/api/v1/reports/refunds"), 403, "forbidden");
    EXPECT_API_ERROR(f.server.client()->get("/api/v1/reports/refunds"), 401, "unauthorized");
    for (const char *bad : {"?from=2026-13-01", "?to=yesterday", "?from=2026-11-30&to=2026-11-01", "?from=2020-01-01&to=2026-01-01",
                            "?limit=0", "?limit=5001", "?limit=ten"}) {
        const HttpResult refused = refundsIn(bad);
        EXPECT_API_ERROR(refused, 400, "invalid_query");
        EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_query")) << bad;
    }
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds")), 4); // reading changed nothing
}
