// SPDX-License-Identifier: AGPL-3.0-or-later
// Webhook authentication and idempotency, cash sales, cancellation policy and bad input for orders.
#include "paysimprocess.h"
#include "store/bookingrepository.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

struct Shop {
    explicit Shop(int cancelCutoffSeconds = 2 * 3600, qint64 cancelFeeMinor = 0, int cancelFeePercent = 0)
        : server([=] {
            TestServer::Options options;
            options.threads = 2;
            options.paymentWebhookSecret = PaySimProcess::kSecret;
            options.cancelCutoffSeconds = cancelCutoffSeconds;
            options.cancelFeeMinor = cancelFeeMinor;
            options.cancelFeePercent = cancelFeePercent;
            return options;
        }())
        , sim(server, {})
    {
        showId = server.createShow(3, 5);
    }
    TestServer server;
    PaySimProcess sim;
    qint64 showId = 0;

    QString hold(HttpClient &client, const QStringList &seats, qint64 show = 0)
    {
        const HttpResult r = client.post("/api/v1/shows/" + QByteArray::number(show ? show : showId) + "/hold",
                                         QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
        EXPECT_EQ(r.status, 200) << r.body.toStdString();
        return r.json().value(QStringLiteral("hold_id")).toString();
    }
    QJsonObject order(HttpClient &client, const QString &holdId, const QString &method = {})
    {
        QJsonObject body{{QStringLiteral("hold_id"), holdId}};
        if (!method.isEmpty())
            body.insert(QStringLiteral("payment_method"), method);
        const HttpResult r = client.post("/api/v1/orders", body);
        EXPECT_EQ(r.status, 201) << r.body.toStdString();
        return r.json();
    }
    HttpResult confirm(HttpClient &client, const QJsonObject &order)
    {
        return client.post("/api/v1/orders/" + order.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                           QJsonObject{{QStringLiteral("payment_intent_id"), order.value(QStringLiteral("payment_intent_id")).toString()}});
    }
    /** @brief Sell @p seats of @p show by card and return the confirmed booking. */
    QJsonObject sell(HttpClient &client, const QStringList &seats, qint64 show = 0)
    {
        const QJsonObject o = order(client, hold(client, seats, show));
        EXPECT_EQ(sim.pay(o.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
        const HttpResult r = confirm(client, o);
        EXPECT_EQ(r.status, 200) << r.body.toStdString();
        return r.json();
    }
    QString orderState(const QString &orderId)
    {
        return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    }
    qint64 count(const QString &sql) { return server.scalar(sql).toLongLong(); }
    HttpResult webhook(const QByteArray &body, const QList<QPair<QByteArray, QByteArray>> &headers)
    {
        return server.client()->request("POST", "/webhooks/payment", body, headers);
    }
};

QByteArray event(const QString &eventId, const QString &type, const QJsonObject &order, qint64 amount = -1)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("event_id"), eventId},
                                     {QStringLiteral("type"), type},
                                     {QStringLiteral("payment_intent_id"), order.value(QStringLiteral("payment_intent_id")).toString()},
                                     {QStringLiteral("order_id"), order.value(QStringLiteral("order_id")).toString()},
                                     {QStringLiteral("amount_minor"), amount >= 0 ? amount : order.value(QStringLiteral("amount_minor")).toInteger()},
                                     {QStringLiteral("currency"), order.value(QStringLiteral("currency")).toString()},
                                     {QStringLiteral("created_at"), QStringLiteral("2026-01-01T00:00:00.000Z")}})
        .toJson(QJsonDocument::Compact);
}

} // namespace

TEST(Payments, WebhookSignatureIsRequiredAndNothingChangesWithoutIt)
{
    Shop shop;
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const QJsonObject order = shop.order(*kiosk, shop.hold(*kiosk, {QStringLiteral("A1")}));
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    ASSERT_EQ(shop.sim.pay(order.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_lost")).status, 200);
    const QByteArray body = event(QStringLiteral("evt_forged_1"), QStringLiteral("payment_intent.succeeded"), order);

    const HttpResult missing = shop.webhook(body, {{"Content-Type", "application/json"}});
    EXPECT_EQ(missing.status, 401);
    EXPECT_EQ(missing.json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_signature"));
    EXPECT_EQ(shop.webhook(body, signatureHeader(body, "another-secret")).status, 401);
    EXPECT_EQ(shop.webhook(body, {{"X-Signature", "sha256=deadbeef"}}).status, 401);
    EXPECT_EQ(shop.webhook(body, {{"X-Signature", hmacSha256Hex(PaySimProcess::kSecret, body)}}).status, 401); // no "sha256=" prefix
    // A valid signature over a different body does not authenticate this one.
    const QByteArray tampered = event(QStringLiteral("evt_forged_1"), QStringLiteral("payment_intent.succeeded"), order, 1);
    EXPECT_EQ(shop.webhook(tampered, signatureHeader(body)).status, 401);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM payment_events")), 0);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));

    // Signed but malformed: a clear 400, nothing stored.
    const QByteArray garbage = "{\"event_id\": 12";
    EXPECT_EQ(shop.webhook(garbage, signatureHeader(garbage)).status, 400);
    const QByteArray unknownType = QByteArray(body).replace("payment_intent.succeeded", "payment_intent.exploded");
    EXPECT_EQ(shop.webhook(unknownType, signatureHeader(unknownType)).status, 400);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM payment_events")), 0);

    // Properly signed: processed once, then recognised as a duplicate.
    const HttpResult ok = shop.webhook(body, signatureHeader(body));
    ASSERT_EQ(ok.status, 200) << ok.body.toStdString();
    EXPECT_EQ(ok.json().value(QStringLiteral("state")).toString(), QStringLiteral("CONFIRMED"));
    const HttpResult dup = shop.webhook(body, signatureHeader(body));
    EXPECT_EQ(dup.status, 200);
    EXPECT_EQ(dup.json().value(QStringLiteral("status")).toString(), QStringLiteral("duplicate"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 1);
}

TEST(Payments, OutOfOrderWebhooksNeverUndoOrDoubleAnything)
{
    Shop shop;
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const QJsonObject order = shop.order(*kiosk, shop.hold(*kiosk, {QStringLiteral("B1"), QStringLiteral("B2")}));
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    ASSERT_EQ(shop.sim.pay(order.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_lost")).status, 200);

    // A refund notice before anything else: nothing to refund, ignored.
    const QByteArray refunded = event(QStringLiteral("evt_o1"), QStringLiteral("charge.refunded"), order);
    EXPECT_EQ(shop.webhook(refunded, signatureHeader(refunded)).status, 200);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));
    // A success event's own amount decides nothing: the provider is asked, and it reports the intent paid in full.
    const QByteArray wrongAmount = event(QStringLiteral("evt_o2"), QStringLiteral("payment_intent.succeeded"), order, 1);
    EXPECT_EQ(shop.webhook(wrongAmount, signatureHeader(wrongAmount)).status, 200);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("CONFIRMED"));
    // A repeated success and a failure arriving after it change nothing.
    const QByteArray succeeded = event(QStringLiteral("evt_o3"), QStringLiteral("payment_intent.succeeded"), order);
    EXPECT_EQ(shop.webhook(succeeded, signatureHeader(succeeded)).status, 200);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("CONFIRMED"));
    const QByteArray failed = event(QStringLiteral("evt_o4"), QStringLiteral("payment_intent.failed"), order);
    EXPECT_EQ(shop.webhook(failed, signatureHeader(failed)).status, 200);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(shop.showId)), 2);
    // An event for an intent nobody knows is acknowledged and ignored.
    QJsonObject stranger = order;
    stranger.insert(QStringLiteral("payment_intent_id"), QStringLiteral("pi_unknown"));
    const QByteArray unknown = event(QStringLiteral("evt_o5"), QStringLiteral("payment_intent.succeeded"), stranger);
    const HttpResult ignored = shop.webhook(unknown, signatureHeader(unknown));
    EXPECT_EQ(ignored.status, 200);
    EXPECT_EQ(ignored.json().value(QStringLiteral("status")).toString(), QStringLiteral("ignored"));
}

TEST(Payments, CashSaleAtTheTillAndNotAtTheKiosk)
{
    Shop shop;
    auto cashier = shop.server.client(shop.server.staffToken(QStringLiteral("cashier")));
    const QJsonObject order = shop.order(*cashier, shop.hold(*cashier, {QStringLiteral("C1"), QStringLiteral("C2")}), QStringLiteral("cash"));
    EXPECT_EQ(order.value(QStringLiteral("payment_method")).toString(), QStringLiteral("cash"));
    EXPECT_EQ(order.value(QStringLiteral("amount_minor")).toInteger(), 3600); // two premium seats
    const HttpResult confirmed = shop.confirm(*cashier, order);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
    EXPECT_EQ(confirmed.json().value(QStringLiteral("tickets")).toArray().size(), 2);
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT channel FROM orders WHERE order_id = '%1'").arg(order.value(QStringLiteral("order_id")).toString())).toString(),
              QStringLiteral("till"));

    auto till = shop.server.client(shop.server.deviceToken(QStringLiteral("till")));
    const QJsonObject tillOrder = shop.order(*till, shop.hold(*till, {QStringLiteral("C3")}), QStringLiteral("cash"));
    EXPECT_EQ(shop.confirm(*till, tillOrder).status, 200);

    auto kiosk = shop.server.client(shop.server.deviceToken());
    const QString holdId = shop.hold(*kiosk, {QStringLiteral("C4")});
    const HttpResult refused = kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}, {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    EXPECT_EQ(refused.status, 403);
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("payment_method_not_allowed"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM orders WHERE hold_id = '%1'").arg(holdId)), 0);
}

TEST(Payments, CancelWithinPolicyRefundsFreesSeatsAndRevokesTickets)
{
    Shop shop;
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const QJsonObject booking = shop.sell(*kiosk, {QStringLiteral("A2"), QStringLiteral("A3")});
    const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
    const QString orderId = booking.value(QStringLiteral("order_id")).toString();

    const HttpResult kioskCancel = kiosk->post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel", QJsonObject{});
    EXPECT_EQ(kioskCancel.status, 403);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("CONFIRMED"));

    auto cashier = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("cashier")));
    const HttpResult cancelled = cashier->post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel",
                                               QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer changed plans")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    EXPECT_EQ(cancelled.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("REFUNDED"));
    EXPECT_EQ(cancelled.json().value(QStringLiteral("refund")).toObject().value(QStringLiteral("amount_minor")).toInteger(), 2500);
    EXPECT_EQ(cancelled.json().value(QStringLiteral("refund")).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(shop.sim.intentStatus(shop.server.scalar(QStringLiteral("SELECT payment_intent_id FROM orders WHERE order_id = '%1'").arg(orderId)).toString()),
              QStringLiteral("refunded"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id IN ('A2', 'A3') AND status = 'available'").arg(shop.showId)), 2);
    const HttpResult view = cashier->get("/api/v1/bookings/" + bookingId.toUtf8());
    ASSERT_EQ(view.status, 200);
    EXPECT_EQ(view.json().value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    EXPECT_TRUE(view.json().value(QStringLiteral("tickets")).toArray().isEmpty());
    // Cancelling again is idempotent: still one refund.
    EXPECT_EQ(cashier->post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel", QJsonObject{}).status, 200);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1'").arg(orderId)), 1);
    // The seats sell again.
    shop.sell(*kiosk, {QStringLiteral("A2")});
}

TEST(Payments, CancelOutsidePolicyNeedsAManagerWithAReason)
{
    Shop shop;
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const qint64 soon = shop.server.createShow(2, 3, QDateTime::currentDateTimeUtc().addSecs(3600)); // starts in 1 h
    const QJsonObject booking = shop.sell(*kiosk, {QStringLiteral("A1")}, soon);
    const QByteArray path = "/api/v1/bookings/" + booking.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";

    auto cashier = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("cashier")));
    const HttpResult refused = cashier->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("please")}});
    EXPECT_EQ(refused.status, 422);
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("outside_cancel_policy"));
    auto manager = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("manager")));
    EXPECT_EQ(manager->post(path, QJsonObject{}).status, 422);
    EXPECT_EQ(shop.orderState(booking.value(QStringLiteral("order_id")).toString()), QStringLiteral("CONFIRMED"));

    const HttpResult overridden = manager->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("projector broke")}});
    ASSERT_EQ(overridden.status, 200) << overridden.body.toStdString();
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT policy_override FROM bookings WHERE booking_id = '%1'")
                                     .arg(booking.value(QStringLiteral("booking_id")).toString())).toBool(), true);
    EXPECT_EQ(shop.orderState(booking.value(QStringLiteral("order_id")).toString()), QStringLiteral("REFUNDED"));
    // The override is in the append-only audit log, with who and why; the refused attempts are not.
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log")).toInt(), 1);
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT action || '|' || actor_role || '|' || reason FROM audit_log")).toString(),
              QStringLiteral("booking.cancel.override|manager|projector broke"));
}

TEST(Payments, BadInputIsRefusedAndChangesNothing)
{
    Shop shop;
    auto kiosk = shop.server.client(shop.server.deviceToken());
    EXPECT_EQ(kiosk->request("POST", "/api/v1/orders", "{not json", {{"Content-Type", "application/json"}}).status, 400);
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{}).json().value(QStringLiteral("error")).toString(), QStringLiteral("missing_field"));
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), 42}}).status, 400);
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), QStringLiteral("nope")}}).status, 404);
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), QUuid::createUuid().toString(QUuid::WithoutBraces)}}).status, 404);
    const QString holdId = shop.hold(*kiosk, {QStringLiteral("B4")});
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}, {QStringLiteral("payment_method"), QStringLiteral("bitcoin")}}).status, 400);
    // Someone else's hold is not found for you.
    auto other = shop.server.client(shop.server.deviceToken());
    EXPECT_EQ(other->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}}).status, 404);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM orders")), 0);
    EXPECT_EQ(kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}}).status, 201);
    // No token at all.
    EXPECT_EQ(shop.server.client()->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}}).status, 401);

    const QString orderId = shop.server.scalar(QStringLiteral("SELECT order_id::text FROM orders")).toString();
    const QByteArray confirm = "/api/v1/orders/" + orderId.toUtf8() + "/confirm";
    EXPECT_EQ(kiosk->post(confirm, QJsonObject{{QStringLiteral("payment_intent_id"), QStringLiteral("pi_other")}}).status, 409);
    EXPECT_EQ(kiosk->post(confirm, QJsonObject{}).status, 400);
    EXPECT_EQ(kiosk->request("POST", confirm, "[1,2]", {{"Content-Type", "application/json"}}).status, 400);
    EXPECT_EQ(kiosk->post("/api/v1/orders/" + QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8() + "/confirm",
                          QJsonObject{{QStringLiteral("payment_intent_id"), QStringLiteral("pi_x")}}).status, 404);
    EXPECT_EQ(kiosk->get("/api/v1/orders/not-a-uuid").status, 404);
    EXPECT_EQ(kiosk->get("/api/v1/bookings/not-a-uuid").status, 404);
    EXPECT_EQ(kiosk->get("/api/v1/bookings").status, 400);
    EXPECT_EQ(kiosk->get("/api/v1/bookings?ref=NOSUCH").status, 404);
    auto cashier = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("cashier")));
    EXPECT_EQ(cashier->post("/api/v1/bookings/" + QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8() + "/cancel", QJsonObject{}).status, 404);
    EXPECT_EQ(cashier->request("POST", "/api/v1/bookings/x/cancel", "{\"reason\": 5}", {{"Content-Type", "application/json"}}).status, 400);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM bookings")), 0);
}

TEST(Payments, CancellationFeeIsFixedPlusPercentAndNeverMoreThanPaid)
{
    const store::CancelPolicy policy{3600, 200, 10};
    EXPECT_EQ(policy.feeFor(2500), 450);  // 200 + 10 % of 2500
    EXPECT_EQ(policy.feeFor(1999), 399);  // 10 % of 1999 = 199.9, rounded down (in the customer's favour)
    EXPECT_EQ(policy.feeFor(100), 100);   // never more than was paid
    EXPECT_EQ(policy.feeFor(0), 0);
    EXPECT_EQ((store::CancelPolicy{3600, 0, 0}.feeFor(2500)), 0);
    EXPECT_EQ((store::CancelPolicy{3600, 0, 100}.feeFor(2500)), 2500);
}

TEST(Payments, CancelWithAFeeRefundsThePaidAmountMinusTheFeeAndShowsIt)
{
    Shop shop(2 * 3600, 200, 10); // fee: 2.00 plus 10 %
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const QJsonObject booking = shop.sell(*kiosk, {QStringLiteral("A1"), QStringLiteral("A2")}); // 25.00
    const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
    const QString orderId = booking.value(QStringLiteral("order_id")).toString();
    const QByteArray path = "/api/v1/bookings/" + bookingId.toUtf8() + "/cancel";

    auto cashier = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("cashier")));
    // A cashier may not waive the fee; a malformed waive_fee is refused; neither changes anything.
    const HttpResult waiver = cashier->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("regular")}, {QStringLiteral("waive_fee"), true}});
    EXPECT_EQ(waiver.status, 403) << waiver.body.toStdString();
    EXPECT_EQ(waiver.json().value(QStringLiteral("error")).toString(), QStringLiteral("fee_waiver_not_allowed"));
    EXPECT_EQ(cashier->post(path, QJsonObject{{QStringLiteral("waive_fee"), QStringLiteral("yes")}}).status, 400);
    EXPECT_EQ(shop.orderState(orderId), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM refunds")), 0);

    const HttpResult cancelled = cashier->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer changed plans")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    const QJsonObject answer = cancelled.json();
    EXPECT_EQ(answer.value(QStringLiteral("fee_minor")).toInteger(), 450);
    EXPECT_EQ(answer.value(QStringLiteral("refund_minor")).toInteger(), 2050);
    EXPECT_EQ(answer.value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
    EXPECT_EQ(answer.value(QStringLiteral("refund")).toObject().value(QStringLiteral("amount_minor")).toInteger(), 2050);
    EXPECT_EQ(answer.value(QStringLiteral("refund")).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(answer.value(QStringLiteral("order_state")).toString(), QStringLiteral("REFUNDED"));
    // The provider refunded exactly paid − fee.
    const QString intentId = shop.server.scalar(QStringLiteral("SELECT payment_intent_id FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    const QJsonObject intent = shop.sim.client()->get("/v1/intents/" + intentId.toUtf8()).json();
    EXPECT_EQ(intent.value(QStringLiteral("status")).toString(), QStringLiteral("refunded"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT amount_minor FROM refunds WHERE order_id = '%1' AND status = 'succeeded'").arg(orderId)), 2050);
    // The booking shows the fee; the event and the audit entry carry it.
    const HttpResult view = cashier->get("/api/v1/bookings/" + bookingId.toUtf8());
    ASSERT_EQ(view.status, 200);
    EXPECT_EQ(view.json().value(QStringLiteral("cancel_fee_minor")).toInteger(), 450);
    EXPECT_EQ(view.json().value(QStringLiteral("refund_minor")).toInteger(), 2050);
    EXPECT_FALSE(view.json().value(QStringLiteral("fee_waived")).toBool());
    EXPECT_EQ(shop.count(QStringLiteral("SELECT (payload->>'fee_minor')::bigint FROM outbox WHERE event_type = 'booking.cancelled' AND aggregate_id = '%1'").arg(bookingId)), 450);
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT action || '|' || (details->>'fee_minor') || '|' || (details->>'refund_minor') FROM audit_log")).toString(),
              QStringLiteral("booking.cancel|450|2050"));
    // Cancelling again answers the same amounts and refunds nothing more.
    const HttpResult again = cashier->post(path, QJsonObject{});
    ASSERT_EQ(again.status, 200);
    EXPECT_EQ(again.json().value(QStringLiteral("fee_minor")).toInteger(), 450);
    EXPECT_EQ(again.json().value(QStringLiteral("refund_minor")).toInteger(), 2050);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1'").arg(orderId)), 1);
}

TEST(Payments, OutsidePolicyWithAFeeCashierIsRefusedManagerOverridesAndMayWaiveTheFee)
{
    Shop shop(2 * 3600, 300, 0);
    auto kiosk = shop.server.client(shop.server.deviceToken());
    const qint64 soon = shop.server.createShow(2, 3, QDateTime::currentDateTimeUtc().addSecs(3600)); // inside the cutoff
    const QJsonObject first = shop.sell(*kiosk, {QStringLiteral("A1")}, soon);
    const QJsonObject second = shop.sell(*kiosk, {QStringLiteral("A2")}, soon);
    const QByteArray firstPath = "/api/v1/bookings/" + first.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";
    const QByteArray secondPath = "/api/v1/bookings/" + second.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";
    const qint64 paid = first.value(QStringLiteral("amount_minor")).toInteger();
    ASSERT_GT(paid, 300);

    auto cashier = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("cashier")));
    const HttpResult refused = cashier->post(firstPath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("please")}});
    EXPECT_EQ(refused.status, 422);
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("outside_cancel_policy"));
    auto manager = shop.server.client(shop.server.elevatedStaffToken(QStringLiteral("manager")));
    const HttpResult noReason = manager->post(secondPath, QJsonObject{{QStringLiteral("waive_fee"), true}});
    EXPECT_EQ(noReason.status, 422);
    EXPECT_EQ(noReason.json().value(QStringLiteral("error")).toString(), QStringLiteral("reason_required"));
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM bookings WHERE state = 'cancelled'")), 0);
    EXPECT_EQ(shop.count(QStringLiteral("SELECT count(*) FROM audit_log")), 0);

    // Override: the fee still applies.
    const HttpResult overridden = manager->post(firstPath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("double booked by phone")}});
    ASSERT_EQ(overridden.status, 200) << overridden.body.toStdString();
    EXPECT_EQ(overridden.json().value(QStringLiteral("fee_minor")).toInteger(), 300);
    EXPECT_EQ(overridden.json().value(QStringLiteral("refund")).toObject().value(QStringLiteral("amount_minor")).toInteger(), paid - 300);
    // Override with the fee waived (the venue's fault): everything back, audited with the reason.
    const HttpResult waived = manager->post(secondPath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("projector broke")}, {QStringLiteral("waive_fee"), true}});
    ASSERT_EQ(waived.status, 200) << waived.body.toStdString();
    EXPECT_EQ(waived.json().value(QStringLiteral("fee_minor")).toInteger(), 0);
    EXPECT_EQ(waived.json().value(QStringLiteral("refund")).toObject().value(QStringLiteral("amount_minor")).toInteger(), paid);
    EXPECT_TRUE(manager->get("/api/v1/bookings/" + second.value(QStringLiteral("booking_id")).toString().toUtf8()).json().value(QStringLiteral("fee_waived")).toBool());
    EXPECT_EQ(shop.server.scalar(QStringLiteral("SELECT string_agg(action || '|' || actor_role || '|' || reason || '|' || (details->>'fee_minor') || '|' || "
                                                "(details->>'fee_waived'), ',' ORDER BY audit_id) FROM audit_log")).toString(),
              QStringLiteral("booking.cancel.override|manager|double booked by phone|300|false,"
                             "booking.cancel.override|manager|projector broke|0|true"));
}

TEST(Payments, SimulatorTakesOnlyWholeNonNegativeMinorUnits)
{
    // The provider simulator reads amounts with core's integer rule: a fraction, a negative, a string or a number
    // beyond exact JSON integers (2^53) is refused like a real provider would, never rounded.
    PaySimProcess sim(QStringLiteral("http://127.0.0.1:9/webhooks/payment"), PaySimProcess::Options{});
    auto client = sim.client();
    const auto intent = [&](const QJsonValue &amount) {
        return client->post("/v1/intents", QJsonObject{{QStringLiteral("amount_minor"), amount}, {QStringLiteral("currency"), QStringLiteral("EUR")},
                                                        {QStringLiteral("order_id"), QStringLiteral("order-1")}});
    };
    for (const QJsonValue &bad : {QJsonValue(12.5), QJsonValue(-1), QJsonValue(QStringLiteral("1250")), QJsonValue(1e16), QJsonValue()}) {
        const HttpResult refused = intent(bad);
        EXPECT_EQ(refused.status, 400) << refused.body.constData();
        EXPECT_EQ(refused.json()[QStringLiteral("error")].toString(), QStringLiteral("invalid_amount"));
    }
    const HttpResult created = intent(1250);
    ASSERT_EQ(created.status, 201) << created.body.constData();
    EXPECT_EQ(created.json()[QStringLiteral("amount_minor")].toInteger(), 1250);
}
