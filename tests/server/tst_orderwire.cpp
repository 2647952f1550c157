// SPDX-License-Identifier: AGPL-3.0-or-later
// The order wire, byte for byte: for every answer of POST /api/v1/orders, GET /api/v1/orders/{id}, POST
// /api/v1/orders/{id}/confirm (alone and in a sync batch), the payment webhook, GET /api/v1/bookings…, POST
// /api/v1/bookings/{id}/cancel and DELETE /api/v1/holds/{id} of a hold frozen by an order, the status, the headers a
// client reads and the exact body bytes. Kiosks, tills and the provider parse these answers, and stored confirm answers
// replay for the life of the order, so the server's insides may change but not this. Only what differs from run to run
// is masked: ids (<uuid>, <intent>), instants (<time>), booking references (<ref>), signed tickets (<qr>), the show id.
#include "orderfixture.h"
#include "servertesthelpers.h"
#include "wiretext.h"


#include <QJsonDocument>
#include <QRegularExpression>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief The answer as the wire carries it, with the run-dependent values masked. */
std::string wire(const HttpResult &result)
{
    const QByteArray out = wireHead(result);
    QString body = QString::fromUtf8(result.body);
    static const QRegularExpression uuid(QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    static const QRegularExpression intent(QStringLiteral("pi_[0-9a-f]{24}|cash_[0-9a-f]{32}"));
    static const QRegularExpression instant(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)"));
    static const QRegularExpression ref(QStringLiteral("(\"booking_ref\":)\"[A-Z2-9]{8}\""));
    static const QRegularExpression qr(QStringLiteral("\"MQ1\\.[^\"]+\""));
    static const QRegularExpression show(QStringLiteral("(\"show_id\":)(\\d+)"));
    body.replace(uuid, QStringLiteral("<uuid>"));
    body.replace(intent, QStringLiteral("<intent>"));
    body.replace(instant, QStringLiteral("<time>"));
    body.replace(ref, QStringLiteral("\\1\"<ref>\""));
    body.replace(qr, QStringLiteral("\"<qr>\""));
    body.replace(show, QStringLiteral("\\1<show>"));
    return (out + body.toUtf8()).toStdString();
}

const char *const kJson = "Content-Type: application/json\n";

std::string answer(int status, const char *body)
{
    return std::to_string(status) + '\n' + kJson + body;
}

QByteArray orderPath(const QString &orderId)
{
    return "/api/v1/orders/" + orderId.toUtf8();
}

QByteArray cancelPath(const QString &bookingId)
{
    return "/api/v1/bookings/" + bookingId.toUtf8() + "/cancel";
}

QByteArray holdUrl(const QString &holdId)
{
    return "/api/v1/holds/" + holdId.toLatin1();
}

QByteArray event(const QString &eventId, const QString &type, const QString &intentId)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("event_id"), eventId}, {QStringLiteral("type"), type}, {QStringLiteral("payment_intent_id"), intentId}})
        .toJson(QJsonDocument::Compact);
}

const QString kNobody = QStringLiteral("4b7c3a4e-0000-4000-8000-000000000000");

class OrderWire : public ::testing::Test
{
protected:
    std::string w(const HttpResult &result) { return wire(result); }
    std::string confirm(HttpClient &client, const OrderFixture::OpenOrder &open) { return w(f.confirm(client, open)); }
    HttpResult webhook(const QByteArray &body) { return f.server.client()->request("POST", "/webhooks/payment", body, signatureHeader(body)); }

    OrderFixture f;
};

} // namespace

TEST_F(OrderWire, CardOrderCreatedConfirmedAndReplayed)
{
    auto kiosk = f.server.client(f.server.deviceToken());
    const QString holdId = f.hold(*kiosk, {QStringLiteral("A1"), QStringLiteral("A2")});
    const HttpResult created = f.order(*kiosk, holdId);
    EXPECT_EQ(w(created), answer(201, R"({"amount_minor":2500,"card_minor":2500,"cash_minor":0,"currency":"EUR","expires_at":"<time>","hold_id":"<uuid>","order_id":"<uuid>","payment_intent_id":"<intent>","payment_method":"card","show_id":<show>,"state":"PENDING_PAYMENT"})"));
    OrderFixture::OpenOrder open{holdId, created.json().value(QStringLiteral("order_id")).toString(),
                                 created.json().value(QStringLiteral("payment_intent_id")).toString()};
    EXPECT_EQ(w(f.order(*kiosk, holdId)), answer(409, R"({"error":"order_exists","message":"This hold already has an order.","order_id":"<uuid>"})"));
    EXPECT_EQ(w(f.order(*kiosk, holdId, QStringLiteral("cash"))), answer(403, R"({"error":"payment_method_not_allowed","message":"Kiosks take cards only; cash is for tills and cashiers."})"));
    EXPECT_EQ(w(f.order(*kiosk, kNobody)), answer(404, R"({"error":"hold_not_found","message":"There is no hold with this id for you."})"));

    EXPECT_EQ(w(kiosk->get(orderPath(open.orderId))), answer(200, R"({"amount_minor":2500,"booking_id":null,"card_minor":2500,"cash_minor":0,"channel":"kiosk","created_at":"<time>","currency":"EUR","expires_at":"<time>","hold_id":"<uuid>","order_id":"<uuid>","payment_intent_id":"<intent>","payment_method":"card","seat_ids":["A1","A2"],"show_id":<show>,"state":"PENDING_PAYMENT","updated_at":"<time>"})"));
    EXPECT_EQ(w(kiosk->get(orderPath(kNobody))), answer(404, R"({"error":"order_not_found","message":"There is no order with this id for you."})"));
    EXPECT_EQ(w(f.server.client(f.server.deviceToken())->get(orderPath(open.orderId))), answer(404, R"({"error":"order_not_found","message":"There is no order with this id for you."})"));

    EXPECT_EQ(confirm(*kiosk, open), answer(409, R"({"error":"payment_pending","message":"The payment has not completed yet; confirm again after paying.","order_id":"<uuid>","state":"PENDING_PAYMENT"})"));
    EXPECT_EQ(w(f.confirm(*kiosk, open.orderId, QStringLiteral("pi_000000000000000000000000"))), answer(409, R"({"error":"intent_mismatch","message":"This payment intent does not belong to this order."})"));
    EXPECT_EQ(w(f.confirm(*kiosk, kNobody, open.intentId)), answer(404, R"({"error":"order_not_found","message":"There is no order with this id for you."})"));

    ASSERT_EQ(f.sim.pay(open.intentId, QStringLiteral("tok_visa")).status, 200);
    const HttpResult confirmed = f.confirm(*kiosk, open);
    EXPECT_EQ(w(confirmed), answer(200, R"({"amount_minor":2500,"booking_id":"<uuid>","booking_ref":"<ref>","currency":"EUR","order_id":"<uuid>","seats":["A1","A2"],"show_id":<show>,"state":"CONFIRMED","tickets":[{"qr":"<qr>","seat_id":"A1","ticket_id":"<uuid>"},{"qr":"<qr>","seat_id":"A2","ticket_id":"<uuid>"}]})"));
    const HttpResult again = f.confirm(*kiosk, open);
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.body, confirmed.body);
    const QJsonObject batch{{QStringLiteral("actions"),
                             QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("confirm_order")},
                                                    {QStringLiteral("idempotency_key"), open.intentId},
                                                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("order_id"), open.orderId},
                                                                                            {QStringLiteral("payment_intent_id"), open.intentId}}}}}}};
    const HttpResult synced = kiosk->post("/api/v1/sync/batch", batch);
    EXPECT_EQ(w(synced), answer(200, R"({"results":[{"body":{"amount_minor":2500,"booking_id":"<uuid>","booking_ref":"<ref>","currency":"EUR","order_id":"<uuid>","seats":["A1","A2"],"show_id":<show>,"state":"CONFIRMED","tickets":[{"qr":"<qr>","seat_id":"A1","ticket_id":"<uuid>"},{"qr":"<qr>","seat_id":"A2","ticket_id":"<uuid>"}]},"status":200}]})"));
    EXPECT_EQ(w(kiosk->get(orderPath(open.orderId))), answer(200, R"({"amount_minor":2500,"booking_id":"<uuid>","card_minor":2500,"cash_minor":0,"channel":"kiosk","created_at":"<time>","currency":"EUR","expires_at":"<time>","hold_id":"<uuid>","order_id":"<uuid>","payment_intent_id":"<intent>","payment_method":"card","seat_ids":["A1","A2"],"show_id":<show>,"state":"CONFIRMED","updated_at":"<time>"})"));

    const QString bookingId = confirmed.json().value(QStringLiteral("booking_id")).toString();
    const QString ref = confirmed.json().value(QStringLiteral("booking_ref")).toString();
    EXPECT_EQ(w(kiosk->get("/api/v1/bookings/" + bookingId.toUtf8())), answer(200, R"({"amount_minor":2500,"booking_id":"<uuid>","booking_ref":"<ref>","created_at":"<time>","currency":"EUR","order_id":"<uuid>","seats":["A1","A2"],"show_id":<show>,"state":"confirmed","tickets":[{"qr":"<qr>","seat_id":"A1","ticket_id":"<uuid>"},{"qr":"<qr>","seat_id":"A2","ticket_id":"<uuid>"}]})"));
    EXPECT_EQ(w(kiosk->get("/api/v1/bookings?ref=" + ref.toUtf8())), answer(200, R"({"amount_minor":2500,"booking_id":"<uuid>","booking_ref":"<ref>","created_at":"<time>","currency":"EUR","order_id":"<uuid>","seats":["A1","A2"],"show_id":<show>,"state":"confirmed","tickets":[{"qr":"<qr>","seat_id":"A1","ticket_id":"<uuid>"},{"qr":"<qr>","seat_id":"A2","ticket_id":"<uuid>"}]})"));
    EXPECT_EQ(w(kiosk->get("/api/v1/bookings")), answer(400, R"({"error":"missing_ref","message":"Give the booking reference as ?ref=."})"));
    EXPECT_EQ(w(kiosk->get("/api/v1/bookings/" + kNobody.toUtf8())), answer(404, R"({"error":"booking_not_found","message":"There is no booking with this id for you."})"));
    EXPECT_EQ(w(f.server.client(f.server.deviceToken())->get("/api/v1/bookings/" + bookingId.toUtf8())), answer(404, R"({"error":"booking_not_found","message":"There is no booking with this id for you."})"));
    EXPECT_EQ(w(f.server.client(f.server.staffToken())->get("/api/v1/bookings?ref=" + ref.toUtf8())), answer(200, R"({"amount_minor":2500,"booking_id":"<uuid>","booking_ref":"<ref>","created_at":"<time>","currency":"EUR","order_id":"<uuid>","seats":["A1","A2"],"show_id":<show>,"state":"confirmed","tickets":[{"qr":"<qr>","seat_id":"A1","ticket_id":"<uuid>"},{"qr":"<qr>","seat_id":"A2","ticket_id":"<uuid>"}]})"));
}

TEST_F(OrderWire, DeclinedReleasedPaidAndProviderDown)
{
    auto kiosk = f.server.client(f.server.deviceToken());
    // Declined: the stored answer, replayed.
    const OrderFixture::OpenOrder declined = f.openOrder(*kiosk, {QStringLiteral("A1")});
    ASSERT_EQ(f.sim.pay(declined.intentId, QStringLiteral("tok_declined")).json().value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    const std::string kDeclined = answer(402, R"({"error":"payment_failed","message":"The payment was declined; the seats were released.","order_id":"<uuid>","reason":"card_declined","state":"FAILED"})");
    EXPECT_EQ(confirm(*kiosk, declined), kDeclined);
    EXPECT_EQ(confirm(*kiosk, declined), kDeclined);

    // Released before paying: the order is cancelled; confirm says so.
    const OrderFixture::OpenOrder walkedAway = f.openOrder(*kiosk, {QStringLiteral("A2")});
    EXPECT_EQ(w(kiosk->del(holdUrl(walkedAway.holdId))), answer(200, R"({"hold_id":"<uuid>","order_id":"<uuid>","order_state":"CANCELLED","state":"released"})"));
    EXPECT_EQ(confirm(*kiosk, walkedAway), answer(409, R"({"error":"order_cancelled","message":"The hold was released before paying; the order was cancelled.","order_id":"<uuid>","state":"CANCELLED"})"));

    // Paid before the release: the seats stay with the order.
    const OrderFixture::OpenOrder paid = f.openOrder(*kiosk, {QStringLiteral("A3")});
    ASSERT_EQ(f.sim.pay(paid.intentId, QStringLiteral("tok_lost")).status, 200);
    EXPECT_EQ(w(kiosk->del(holdUrl(paid.holdId))), answer(409, R"({"error":"order_paid","message":"The order of this hold was paid before the release; its seats stay with the booking. Confirm the order.","order_id":"<uuid>","order_state":"CONFIRMED"})"));

    // The window closed unpaid: the reconciler expires the order.
    const OrderFixture::OpenOrder unpaid = f.openOrder(*kiosk, {QStringLiteral("A4")});
    ASSERT_TRUE(f.server.scalar(QStringLiteral("UPDATE orders SET expires_at = now() - interval '1 second' WHERE order_id = '%1' RETURNING 1").arg(unpaid.orderId)).isValid());
    f.server.context().orderService.reconcileOnce();
    EXPECT_EQ(confirm(*kiosk, unpaid), answer(409, R"({"error":"order_expired","message":"Nobody paid within the payment window; the seats were released.","order_id":"<uuid>","state":"EXPIRED"})"));

    // The provider does not answer: nothing changes, and each path says so.
    const OrderFixture::OpenOrder pending = f.openOrder(*kiosk, {QStringLiteral("A5")});
    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:1"));
    EXPECT_EQ(confirm(*kiosk, pending), answer(503, R"({"error":"payment_status_unknown","message":"The payment provider did not answer; nothing was changed. Confirm again shortly.","order_id":"<uuid>","state":"PENDING_PAYMENT"})"));
    EXPECT_EQ(w(kiosk->del(holdUrl(pending.holdId))), answer(503, R"({"error":"payment_status_unknown","message":"The payment provider did not answer, so the payment may still go through; the hold is kept. Try again shortly.","order_id":"<uuid>","state":"PENDING_PAYMENT"})"));
    EXPECT_EQ(w(f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("B1")}))), answer(502, R"({"error":"payment_provider_unavailable","message":"The payment provider did not answer; no money was taken and the hold is still yours. Try again."})"));
    EXPECT_EQ(w(webhook(event(QStringLiteral("evt_down"), QStringLiteral("payment_intent.succeeded"), pending.intentId))), answer(503, R"({"error":"payment_status_unknown","message":"The payment provider could not be asked about this intent; the event was not processed. Send it again."})"));
    f.server.context().orderService.setProviderUrl(f.sim.url());
    EXPECT_EQ(f.orderState(pending.orderId), QStringLiteral("PENDING_PAYMENT"));
}

TEST_F(OrderWire, PaidAfterTheHoldWasLost)
{
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("C1")});
    // The seat left the hold (as when its frozen hold ran out and the reaper freed it).
    ASSERT_TRUE(f.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'available', held_by = NULL, hold_expires_at = NULL "
                                               "WHERE show_id = %1 AND seat_id = 'C1' RETURNING 1").arg(f.showId)).isValid());
    ASSERT_EQ(f.sim.pay(open.intentId, QStringLiteral("tok_lost")).status, 200);
    const std::string kLost = answer(409, R"({"error":"hold_lost","message":"The seats were released before the payment completed; the payment is being refunded.","order_id":"<uuid>","state":"REFUND_PENDING"})");
    EXPECT_EQ(confirm(*kiosk, open), kLost);
    EXPECT_EQ(confirm(*kiosk, open), kLost);
}

TEST_F(OrderWire, Webhooks)
{
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("D1")});
    ASSERT_EQ(f.sim.pay(open.intentId, QStringLiteral("tok_lost")).status, 200); // captured, no webhook sent
    const QByteArray succeeded = event(QStringLiteral("evt_wire_1"), QStringLiteral("payment_intent.succeeded"), open.intentId);
    EXPECT_EQ(w(f.server.client()->request("POST", "/webhooks/payment", succeeded, {{"X-Signature", "sha256=00"}, {"Content-Type", "application/json"}})),
              "401\n" + std::string(kJson) + "WWW-Authenticate: Bearer realm=\"marquee\"\n" + R"({"error":"invalid_signature","message":"The X-Signature header does not match the body."})");
    EXPECT_EQ(w(webhook(R"({"type": "payment_intent.succeeded"})")), answer(400, R"({"error":"invalid_event","message":"The event needs event_id, type and payment_intent_id."})"));
    EXPECT_EQ(w(webhook(event(QStringLiteral("evt_wire_0"), QStringLiteral("payment_intent.mystery"), open.intentId))), answer(400, R"({"error":"invalid_event","message":"Unknown event type."})"));
    EXPECT_EQ(w(webhook(succeeded)), answer(200, R"({"event_id":"evt_wire_1","order_id":"<uuid>","state":"CONFIRMED","status":"processed"})"));
    EXPECT_EQ(w(webhook(succeeded)), answer(200, R"({"event_id":"evt_wire_1","status":"duplicate"})"));
    EXPECT_EQ(w(webhook(event(QStringLiteral("evt_wire_2"), QStringLiteral("payment_intent.succeeded"), QStringLiteral("pi_000000000000000000000000")))),
              answer(200, R"({"event_id":"evt_wire_2","status":"ignored"})"));
    EXPECT_EQ(f.orderState(open.orderId), QStringLiteral("CONFIRMED"));
}

TEST_F(OrderWire, TillCashSplitAndCancellations)
{
    const QString tillToken = f.server.deviceToken(QStringLiteral("till"));
    auto till = f.server.client(tillToken);
    const HttpResult cash = f.server.client(tillToken)->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), f.hold(*till, {QStringLiteral("A1"), QStringLiteral("A2")})},
                                                                                           {QStringLiteral("payment_method"), QStringLiteral("cash")},
                                                                                           {QStringLiteral("tendered_minor"), 3000}});
    EXPECT_EQ(w(cash), answer(201, R"({"amount_minor":2500,"card_minor":0,"cash_minor":2500,"change_minor":500,"currency":"EUR","expires_at":"<time>","hold_id":"<uuid>","order_id":"<uuid>","payment_intent_id":"<intent>","payment_method":"cash","show_id":<show>,"state":"PENDING_PAYMENT","tendered_minor":3000})"));
    const HttpResult split = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), f.hold(*till, {QStringLiteral("B1")})},
                                                                      {QStringLiteral("payment_method"), QStringLiteral("split")},
                                                                      {QStringLiteral("cash_minor"), 500}});
    EXPECT_EQ(w(split), answer(201, R"({"amount_minor":1250,"card_minor":750,"cash_minor":500,"change_minor":0,"currency":"EUR","expires_at":"<time>","hold_id":"<uuid>","order_id":"<uuid>","payment_intent_id":"<intent>","payment_method":"split","show_id":<show>,"state":"PENDING_PAYMENT","tendered_minor":500})"));
    const HttpResult confirmed = f.confirm(*till, cash.json().value(QStringLiteral("order_id")).toString(),
                                           cash.json().value(QStringLiteral("payment_intent_id")).toString());
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.constData();
    const QString bookingId = confirmed.json().value(QStringLiteral("booking_id")).toString();
    const QByteArray path = cancelPath(bookingId);

    // Who may cancel, and with what.
    EXPECT_EQ(w(f.server.client(f.server.deviceToken())->post(path, QJsonObject{})), answer(403, R"({"error":"forbidden","message":"The role 'kiosk' may not do this."})"));
    EXPECT_EQ(w(till->post(path, QJsonObject{})), answer(403, R"({"error":"staff_session_required","message":"A till cancels and refunds only in a staff session: sign in on the till and enter your password or PIN again."})"));
    EXPECT_EQ(w(f.server.client(f.server.deviceToken(QStringLiteral("till")))->post(path, QJsonObject{})), answer(404, R"({"error":"booking_not_found","message":"There is no booking with this id for you."})"));
    auto cashier = f.server.client(f.server.elevatedStaffToken(QStringLiteral("cashier")));
    auto manager = f.server.client(f.server.elevatedStaffToken(QStringLiteral("manager")));
    EXPECT_EQ(w(cashier->post(path, QJsonObject{{QStringLiteral("waive_fee"), true}, {QStringLiteral("reason"), QStringLiteral("x")}})), answer(403, R"({"error":"fee_waiver_not_allowed","message":"Only a manager may waive the cancellation fee."})"));
    EXPECT_EQ(w(manager->post(path, QJsonObject{{QStringLiteral("waive_fee"), true}})), answer(422, R"({"error":"reason_required","message":"Waiving the cancellation fee needs a reason."})"));
    EXPECT_EQ(w(cashier->post(path, QJsonObject{{QStringLiteral("admitted_override"), true}, {QStringLiteral("reason"), QStringLiteral("x")}})), answer(403, R"({"error":"override_not_allowed","message":"Only a manager may refund a ticket already admitted at the door."})"));
    EXPECT_EQ(w(manager->post(path, QJsonObject{{QStringLiteral("admitted_override"), true}})), answer(422, R"({"error":"reason_required","message":"Refunding an admitted ticket needs a reason."})"));
    EXPECT_EQ(w(cashier->post(cancelPath(kNobody), QJsonObject{})), answer(404, R"({"error":"booking_not_found","message":"There is no booking with this id."})"));

    // A ticket used at the door (recorded as the door records its first scan).
    ASSERT_TRUE(f.server.scalar(QStringLiteral("INSERT INTO checkin_firsts (ticket_id, scanned_at, nonce, device) SELECT ticket_id, now(), 'wire', 'door' "
                                               "FROM tickets WHERE booking_id = '%1' AND seat_id = 'A1' RETURNING 1").arg(bookingId)).isValid());
    EXPECT_EQ(w(cashier->post(path, QJsonObject{})), answer(409, R"({"admitted_seats":["A1"],"error":"ticket_admitted","message":"A ticket of this booking was already admitted at the door; only a manager may refund it."})"));
    EXPECT_EQ(w(manager->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("left early")}})), answer(409, R"({"admitted_seats":["A1"],"error":"ticket_admitted","message":"A ticket of this booking was already admitted at the door; refunding it needs admitted_override with a reason."})"));
    const std::string kCancelled = answer(200, R"({"booking_id":"<uuid>","currency":"EUR","fee_minor":0,"order_id":"<uuid>","order_state":"REFUNDED","refund":{"amount_minor":2500,"currency":"EUR","status":"succeeded"},"refund_minor":2500,"state":"cancelled"})");
    EXPECT_EQ(w(manager->post(path, QJsonObject{{QStringLiteral("admitted_override"), true}, {QStringLiteral("reason"), QStringLiteral("left early")}})), kCancelled);
    EXPECT_EQ(w(manager->post(path, QJsonObject{})), kCancelled);

    // Too close to the start.
    const qint64 soon = f.server.createShow(1, 4, QDateTime::currentDateTimeUtc().addSecs(600), QDateTime::currentDateTimeUtc().addSecs(-60));
    const HttpResult held = till->post(holdPath(soon), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    const HttpResult late = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))},
                                                                     {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    ASSERT_EQ(late.status, 201) << late.body.constData();
    const HttpResult lateBooking = f.confirm(*till, late.json().value(QStringLiteral("order_id")).toString(), late.json().value(QStringLiteral("payment_intent_id")).toString());
    ASSERT_EQ(lateBooking.status, 200) << lateBooking.body.constData();
    const QByteArray latePath = cancelPath(lateBooking.json().value(QStringLiteral("booking_id")).toString());
    EXPECT_EQ(w(cashier->post(latePath, QJsonObject{})), answer(422, R"({"cutoff_seconds":7200,"error":"outside_cancel_policy","message":"Too close to the start to cancel; ask a manager."})"));
    EXPECT_EQ(w(manager->post(latePath, QJsonObject{})), answer(422, R"({"cutoff_seconds":7200,"error":"outside_cancel_policy","message":"Too close to the start; a manager override needs a reason."})"));
    EXPECT_EQ(w(manager->post(latePath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("late bus")}})), answer(200, R"({"booking_id":"<uuid>","currency":"EUR","fee_minor":0,"order_id":"<uuid>","order_state":"REFUNDED","refund":{"amount_minor":1800,"currency":"EUR","status":"succeeded"},"refund_minor":1800,"state":"cancelled"})"));
}

