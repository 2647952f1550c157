// SPDX-License-Identifier: AGPL-3.0-or-later
// The order wire, byte for byte: for every answer of POST /api/v1/orders, GET /api/v1/orders/{id}, POST
// /api/v1/orders/{id}/confirm (alone and in a sync batch), the payment webhook, GET /api/v1/bookings…, POST
// /api/v1/bookings/{id}/cancel and DELETE /api/v1/holds/{id} of a hold frozen by an order, the status, the headers a
// client reads and the exact body bytes. Kiosks, tills and the provider parse these answers, and stored confirm answers
// replay for the life of the order, so the server's insides may change but not this. Only what differs from run to run
// is masked: ids (<uuid>, <intent>), instants (<time>), booking references (<ref>), signed tickets (<qr>), the show id.
#include "olderschema.h"
#include "orderfixture.h"
#include "servertesthelpers.h"
#include "wiretext.h"

#include "http/orderanswers.h"
#include "store/database.h"
#include "store/migrations.h"

#include <QSqlError>
#include <QSqlQuery>
#include <set>

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

// The rarer refusals of creating an order, over HTTP: a hold released or lapsed before its order, a split payment
// whose cash part is the whole amount, less cash handed over than is due.
TEST_F(OrderWire, RareRefusalsOfOrderCreation)
{
    auto kiosk = f.server.client(f.server.deviceToken());
    const QString released = f.hold(*kiosk, {QStringLiteral("A1")});
    ASSERT_EQ(kiosk->del(holdUrl(released)).status, 200);
    EXPECT_EQ(w(f.order(*kiosk, released)), answer(409, R"({"error":"hold_released","message":"This hold was released; its seats are no longer yours."})"));
    const QString lapsed = f.hold(*kiosk, {QStringLiteral("A2")});
    ASSERT_TRUE(f.server.scalar(QStringLiteral("UPDATE show_seats SET hold_expires_at = now() - interval '1 second' WHERE show_id = %1 AND seat_id = 'A2' "
                                               "RETURNING 1").arg(f.showId)).isValid());
    EXPECT_EQ(w(f.order(*kiosk, lapsed)), answer(409, R"({"error":"hold_expired","message":"This hold has expired; hold the seats again."})"));

    auto till = f.server.client(f.server.deviceToken(QStringLiteral("till")));
    const HttpResult split = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), f.hold(*till, {QStringLiteral("B1")})},
                                                                      {QStringLiteral("payment_method"), QStringLiteral("split")},
                                                                      {QStringLiteral("cash_minor"), 1250}});
    EXPECT_EQ(w(split), answer(422, R"({"amount_minor":1250,"error":"invalid_split","message":"The cash part of a split payment must be less than the total."})"));
    const HttpResult shortCash = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), f.hold(*till, {QStringLiteral("B2")})},
                                                                          {QStringLiteral("payment_method"), QStringLiteral("cash")},
                                                                          {QStringLiteral("tendered_minor"), 100}});
    EXPECT_EQ(w(shortCash), answer(422, R"({"cash_due_minor":1250,"error":"insufficient_tender","message":"The cash handed over is less than the cash due."})"));
}

namespace {

/** @brief A confirm answer as a server before migration 043 stored it: the order's end state, status and body. */
struct StoredConfirm{
    const char *state;
    int status;
    const char *body; ///< as it was written into orders.result_body (jsonb)
    const char *replayed; ///< the bytes that server answered a repeated confirm with
};

const char *const kMigration = "043_stored_decisions.sql";

/** @brief Run @p sql on @p database (every statement bound by its ?s to @p values); false with the error printed. */
bool exec(const store::Database &database, const QString &sql, const QVariantList &values = {})
{
    QSqlQuery query(database.connection());
    if (!query.prepare(sql)) {
        ADD_FAILURE() << qPrintable(query.lastError().text());
        return false;
    }
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        ADD_FAILURE() << qPrintable(query.lastError().text());
        return false;
    }
    return true;
}

/** @brief An order of @p owner in @p answer's end state with the stored answer (and a hold of seat @p seat). */
void storeOldAnswer(const store::Database &database, qint64 showId, const QString &owner, const QString &orderId,
    const QString &intentId, const QString &seat, const StoredConfirm &answer)
{
    ASSERT_TRUE(exec(database,
        QStringLiteral("INSERT INTO holds (hold_id, show_id, owner, seat_ids, created_at, expires_at) "
                       "VALUES (?::uuid, ?, ?, ARRAY[?]::text[], now(), now() + interval '1 hour')"),
        {orderId, showId, owner, seat}));
    ASSERT_TRUE(exec(database,
        QStringLiteral("INSERT INTO orders (order_id, hold_id, show_id, owner, channel, seat_ids, amount_minor, "
                       "currency, state, provider, "
                       "                    payment_intent_id, result_status, result_body, expires_at) "
                       "VALUES (?::uuid, ?::uuid, ?, ?, 'kiosk', ARRAY[?]::text[], 1250, 'EUR', ?, 'paysim', ?, ?, "
                       "?::jsonb, now() + interval '15 minutes')"),
        {orderId, orderId, showId, owner, seat, QString::fromLatin1(answer.state), intentId, answer.status,
            QString::fromUtf8(answer.body)}));
}

} // namespace

// Confirm answers stored by a server before they were decisions (orders.result_status and result_body) replay the
// same bytes after the upgrade: migration 043 turns each into its decision and data, and the catalogue renders them
// as they were stored. Every answer an order is stored with is here: its booking, and each refusal it can end in.
TEST(OrderWireUpgrade, AnswersStoredAsHttpBeforeTheUpgradeReplayTheSameBytes)
{
    QTemporaryDir work;
    const store::DatabaseConfig older = schemaWithout(work, {QString::fromLatin1(kMigration)});
    const StoredConfirm answers[] = {
        {"CONFIRMED", 200,
            R"({"seats": ["A1"], "state": "CONFIRMED", "show_id": %SHOW%, "tickets": [{"qr": "MQ1.cGF5bG9hZA.c2lnbmF0dXJl", "seat_id": "A1", "ticket_id": "7e1c0000-0000-4000-8000-0000000000a1"}], "currency": "EUR", "order_id": "%ORDER%", "booking_id": "b0000000-0000-4000-8000-0000000000a1", "booking_ref": "K7M2P9QX", "amount_minor": 1250})",
            R"({"amount_minor":1250,"booking_id":"b0000000-0000-4000-8000-0000000000a1","booking_ref":"K7M2P9QX","currency":"EUR","order_id":"%ORDER%","seats":["A1"],"show_id":%SHOW%,"state":"CONFIRMED","tickets":[{"qr":"MQ1.cGF5bG9hZA.c2lnbmF0dXJl","seat_id":"A1","ticket_id":"7e1c0000-0000-4000-8000-0000000000a1"}]})"},
        {"FAILED", 402,
            R"({"error": "payment_failed", "state": "FAILED", "reason": "card_declined", "message": "The payment was declined; the seats were released.", "order_id": "%ORDER%"})",
            R"({"error":"payment_failed","message":"The payment was declined; the seats were released.","order_id":"%ORDER%","reason":"card_declined","state":"FAILED"})"},
        {"EXPIRED", 409,
            R"({"error": "order_expired", "state": "EXPIRED", "message": "Nobody paid within the payment window; the seats were released.", "order_id": "%ORDER%"})",
            R"({"error":"order_expired","message":"Nobody paid within the payment window; the seats were released.","order_id":"%ORDER%","state":"EXPIRED"})"},
        {"CANCELLED", 409,
            R"({"error": "order_cancelled", "state": "CANCELLED", "message": "The hold was released before paying; the order was cancelled.", "order_id": "%ORDER%"})",
            R"({"error":"order_cancelled","message":"The hold was released before paying; the order was cancelled.","order_id":"%ORDER%","state":"CANCELLED"})"},
        {"FAILED", 409,
            R"({"error": "order_failed", "state": "FAILED", "message": "The payment could not be started."})",
            R"({"error":"order_failed","message":"The payment could not be started.","state":"FAILED"})"},
        {"REFUND_PENDING", 409,
            R"({"error": "hold_lost", "state": "REFUND_PENDING", "message": "The seats were released before the payment completed; the payment is being refunded.", "order_id": "%ORDER%"})",
            R"({"error":"hold_lost","message":"The seats were released before the payment completed; the payment is being refunded.","order_id":"%ORDER%","state":"REFUND_PENDING"})"},
        // An order whose intent could not be created has none to confirm with (its confirm is intent_mismatch): its
        // stored answer is converted (the decisions above) but never replayed over HTTP.
        {"FAILED", 502,
            R"({"error": "payment_provider_unavailable", "message": "The payment provider did not answer."})",
            R"({"error":"payment_provider_unavailable","message":"The payment provider did not answer."})"},
    };
    const auto fill = [](const char *text, qint64 showId, const QString &orderId) {
        return QString::fromUtf8(text)
            .replace(QStringLiteral("%SHOW%"), QString::number(showId))
            .replace(QStringLiteral("%ORDER%"), orderId)
            .toUtf8();
    };
    QString token;
    qint64 showId = 0;
    QStringList orderIds, intentIds;
    {
        store::Database database(older);
        showId = createTestShow(database, 1, 0, 1, 8).showId;
        const EnrolledKiosk kiosk = enrolKiosk(database, QStringLiteral("kiosk-before-the-upgrade"));
        token = kiosk.token;
        const QString owner = kiosk.owner;
        int n = 0;
        for (const StoredConfirm &answer : answers) {
            ++n;
            const QString orderId = QStringLiteral("0c0ffee0-0000-4000-8000-%1").arg(n, 12, 10, QLatin1Char('0'));
            const QString intentId = QStringLiteral("pi_%1").arg(n, 24, 10, QLatin1Char('0'));
            StoredConfirm filled = answer;
            const QByteArray body = fill(answer.body, showId, orderId);
            filled.body = body.constData();
            storeOldAnswer(database, showId, owner, orderId, intentId, QStringLiteral("A%1").arg(n), filled);
            orderIds << orderId;
            intentIds << intentId;
        }
        database.closeThreadConnection();
    }

    TestServer::Options options;
    options.database = older;
    options.configure = [](ServerConfig &config) { config.preUpgradeBackups = 0; }; // the dump is tst_backup's
    TestServer server(options);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM schema_migrations WHERE version = 43")).toInt(), 1);
    EXPECT_EQ(server
                  .scalar(QStringLiteral("SELECT count(*) FROM information_schema.columns WHERE table_name = 'orders' "
                                         "AND column_name LIKE 'result%'"))
                  .toInt(),
        0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(confirm_decision, ' ' ORDER BY order_id) FROM orders"))
                  .toString(),
        QStringLiteral(
            "confirmed payment_failed order_expired order_cancelled order_failed hold_lost payment_not_started"));
    auto kiosk = server.client(token);
    for (qsizetype i = 0; i + 1 < orderIds.size(); ++i) {
        const std::string expected = std::to_string(answers[i].status) + "\nContent-Type: application/json\n"
            + fill(answers[i].replayed, showId, orderIds[i]).toStdString();
        for (int replay = 0; replay < 2; ++replay) {
            const HttpResult confirmed = kiosk->post("/api/v1/orders/" + orderIds[i].toUtf8() + "/confirm",
                QJsonObject{{QStringLiteral("payment_intent_id"), intentIds[i]}});
            EXPECT_EQ((wireHead(confirmed) + confirmed.body).toStdString(), expected)
                << answers[i].state << ' ' << answers[i].status;
        }
    }
    // The sync batch replays the booking as the single route does.
    const QJsonObject batch {{QStringLiteral("actions"),
        QJsonArray {QJsonObject{{QStringLiteral("kind"), QStringLiteral("confirm_order")},
            {QStringLiteral("idempotency_key"), intentIds[0]},
            {QStringLiteral("payload"),
                QJsonObject{{QStringLiteral("order_id"), orderIds[0]},
                    {QStringLiteral("payment_intent_id"), intentIds[0]}}}}}}};
    const HttpResult synced = kiosk->post("/api/v1/sync/batch", batch);
    EXPECT_EQ(synced.body,
        "{\"results\":[{\"body\":" + fill(answers[0].replayed, showId, orderIds[0]) + ",\"status\":200}]}");
}

// An answer the upgrade does not recognise (another sentence than any server stored) stops it: nothing is migrated,
// rather than a replay that tells the customer something else than the first answer did.
TEST(OrderWireUpgrade, AStoredAnswerTheUpgradeCannotReplayStopsIt)
{
    QTemporaryDir work;
    int version = 0;
    const store::DatabaseConfig older = schemaWithout(work, {QString::fromLatin1(kMigration)}, &version);
    store::Database database(older);
    const qint64 showId = createTestShow(database, 1, 0, 1, 4).showId;
    const QString orderId = QStringLiteral("0c0ffee0-0000-4000-8000-00000000dead");
    storeOldAnswer(database, showId, QStringLiteral("device:1"), orderId,
        QStringLiteral("pi_000000000000000000000dead"), QStringLiteral("A1"),
        {"FAILED", 402,
            R"({"error": "payment_failed", "message": "Declined.", "order_id": "0c0ffee0-0000-4000-8000-00000000dead"})",
            ""});
    store::Migrations migrations(database);
    EXPECT_FALSE(migrations.migrate());
    EXPECT_TRUE(migrations.errorString().contains(orderId)) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.currentVersion(), version);
    QSqlQuery stored(database.connection());
    ASSERT_TRUE(
        stored.exec(QStringLiteral("SELECT result_status, result_body ->> 'message' FROM orders")) && stored.next());
    EXPECT_EQ(stored.value(0).toInt(), 402);
    EXPECT_EQ(stored.value(1).toString(), QStringLiteral("Declined."));
    database.closeThreadConnection();
}

// Every refusal of the catalogue as a client reads it: the status, the headers and the body bytes, each with the data
// and the arguments its service gives it. The order, hold, lease, check-in, waiting-room and pairing paths answer
// their refusals through these entries (the wire tests above and tst_waitingroom, tst_pairing pin the common ones
// over HTTP), so a change of any sentence, code or status fails here. (PostgreSQL's hold decisions are written in jsonb's form: tst_holdwire pins those.)
TEST(OrderWireCatalogue, EveryRefusalIsPinnedByteForByte)
{
    struct Pin {
        ErrorCode code;
        QJsonObject data;
        QStringList arguments;
        const char *wire;
    };
    const Pin pins[] = {
        {ErrorCode::SeatsUnavailable, QJsonObject{{QStringLiteral("held_seats"), QJsonArray{QStringLiteral("A2")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"seats_unavailable","held_seats":["A2"],"message":"Some of these seats were just taken; none of them is held for you."})"},
        {ErrorCode::IdempotencyKeyReused, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"idempotency_key_reused","message":"This Idempotency-Key was used with a different request."})"},
        {ErrorCode::RequestInProgress, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"request_in_progress","message":"A request with this Idempotency-Key is still being processed."})"},
        {ErrorCode::SalesClosed, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"sales_closed","message":"Sales for this show are closed."})"},
        {ErrorCode::SalesNotOpen, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"sales_closed","message":"Sales for this show have not opened yet."})"},
        {ErrorCode::ShowNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"show_not_found","message":"There is no show with this id."})"},
        {ErrorCode::UnknownSeat, QJsonObject{{QStringLiteral("unknown_seats"), QJsonArray{QStringLiteral("Z9")}}}, QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"unknown_seat","message":"Some seat ids do not exist in this show.","unknown_seats":["Z9"]})"},
        {ErrorCode::TooManySeats, QJsonObject(), {QStringLiteral("10")},
         "400\nContent-Type: application/json\n" R"({"error":"too_many_seats","message":"One hold may take at most 10 seats."})"},
        {ErrorCode::InvalidShowId, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"invalid_id","message":"The show id must be a positive integer."})"},
        {ErrorCode::IdempotencyKeyTooLong, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"invalid_idempotency_key","message":"The Idempotency-Key header is longer than 255 characters."})"},
        {ErrorCode::HoldNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"hold_not_found","message":"There is no hold with this id for you."})"},
        {ErrorCode::HoldStoreUnavailable, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\nRetry-After: 1\n" R"({"error":"unavailable","message":"The booking database is not answering; nothing was held. Try again shortly."})"},
        {ErrorCode::HoldLimitReached, QJsonObject{{QStringLiteral("seats_held"), 4}, {QStringLiteral("seat_limit"), 4}}, {QStringLiteral("4"), QStringLiteral("4")},
         "409\nContent-Type: application/json\n" R"({"error":"hold_limit_reached","message":"You already hold 4 seats of this show and may hold at most 4 at a time; buy or release some first.","seat_limit":4,"seats_held":4})"},
        {ErrorCode::HoldReleased, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"hold_released","message":"This hold was released; its seats are no longer yours."})"},
        {ErrorCode::HoldExpired, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"hold_expired","message":"This hold has expired; hold the seats again."})"},
        {ErrorCode::ShowStarted, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"sales_closed","message":"This show has started."})"},
        {ErrorCode::OrderExists, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_exists","message":"This hold already has an order.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1"})"},
        {ErrorCode::PriceMissing, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"price_missing","message":"Some seats of this hold have no price; ask a manager."})"},
        {ErrorCode::InvalidSplit, QJsonObject{{QStringLiteral("amount_minor"), 2500}}, QStringList(),
         "422\nContent-Type: application/json\n" R"({"amount_minor":2500,"error":"invalid_split","message":"The cash part of a split payment must be less than the total."})"},
        {ErrorCode::InsufficientTender, QJsonObject{{QStringLiteral("cash_due_minor"), 2500}}, QStringList(),
         "422\nContent-Type: application/json\n" R"({"cash_due_minor":2500,"error":"insufficient_tender","message":"The cash handed over is less than the cash due."})"},
        {ErrorCode::LeaseSeatsUnavailable, QJsonObject{{QStringLiteral("held_seats"), QJsonArray{QStringLiteral("A1")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"seats_unavailable","held_seats":["A1"],"message":"Some of these seats are held, leased or sold; none of them was leased to you."})"},
        {ErrorCode::NotEnoughSeats, QJsonObject{{QStringLiteral("available"), 3}}, {QStringLiteral("3")},
         "409\nContent-Type: application/json\n" R"({"available":3,"error":"not_enough_seats","message":"Only 3 seats of this show are free; nothing was leased."})"},
        {ErrorCode::LeaseLimitReached, QJsonObject{{QStringLiteral("leased"), 6}, {QStringLiteral("limit"), 6}}, {QStringLiteral("6"), QStringLiteral("6")},
         "422\nContent-Type: application/json\n" R"({"error":"lease_limit_reached","leased":6,"limit":6,"message":"This till already has 6 seats of this show leased and may have at most 6."})"},
        {ErrorCode::ShowStarting, QJsonObject{{QStringLiteral("return_by"), QStringLiteral("2031-01-01T19:40:00.000Z")}}, {QStringLiteral("2031-01-01T19:40:00.000Z")},
         "422\nContent-Type: application/json\n" R"({"error":"show_starting","message":"This show starts too soon for a lease: leased seats go back on sale at 2031-01-01T19:40:00.000Z.","return_by":"2031-01-01T19:40:00.000Z"})"},
        {ErrorCode::LeaseNeedsTill, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"lease_needs_till","message":"Seats are leased to a till: use the till's token or a session opened at a till."})"},
        {ErrorCode::LeaseNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"lease_not_found","message":"There is no lease with this id for you."})"},
        {ErrorCode::SaleConflict, QJsonObject{{QStringLiteral("device_seq"), 7}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"device_seq":7,"error":"sale_conflict","message":"This device sequence number was already reported with a different sale; nothing was changed."})"},
        {ErrorCode::LeaseReturned, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"lease_returned","message":"This lease was given back; no sale can be reported under it any more."})"},
        {ErrorCode::SaleOutsideLease, QJsonObject{{QStringLiteral("created_at"), QStringLiteral("2031-01-01T10:00:00.000Z")}, {QStringLiteral("expires_at"), QStringLiteral("2031-01-01T20:30:00.000Z")}}, QStringList(),
         "422\nContent-Type: application/json\n" R"({"created_at":"2031-01-01T10:00:00.000Z","error":"sale_outside_lease","expires_at":"2031-01-01T20:30:00.000Z","message":"The sale's time is outside the lease; nothing was changed."})"},
        {ErrorCode::SeatsNotInLease, QJsonObject{{QStringLiteral("seats"), QJsonArray{QStringLiteral("B1")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"seats_not_in_lease","message":"Some seats of this sale are not in the lease; nothing was changed.","seats":["B1"]})"},
        {ErrorCode::SeatsNotLeased, QJsonObject{{QStringLiteral("seats"), QJsonArray{QStringLiteral("A1")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"seats_not_leased","message":"Some seats of this sale are no longer leased to this lease; nothing was changed.","seats":["A1"]})"},
        {ErrorCode::PriceMismatch, QJsonObject{{QStringLiteral("amount_minor"), 2500}, {QStringLiteral("currency"), QStringLiteral("EUR")}}, {QStringLiteral("2500")},
         "422\nContent-Type: application/json\n" R"({"amount_minor":2500,"currency":"EUR","error":"price_mismatch","message":"These seats cost 2500 when they were sold, not the sale's amount; nothing was changed."})"},
        {ErrorCode::SaleNotBooked, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("FAILED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"sale_not_booked","message":"This sale's order ended without a booking; a manager must settle it.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"FAILED"})"},
        {ErrorCode::PaymentMethodNotAllowed, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"payment_method_not_allowed","message":"Kiosks take cards only; cash is for tills and cashiers."})"},
        {ErrorCode::CardProviderNotConfigured, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_provider_unavailable","message":"No card payment provider is configured; nothing was changed."})"},
        {ErrorCode::PaymentProviderDown, QJsonObject(), QStringList(),
         "502\nContent-Type: application/json\n" R"({"error":"payment_provider_unavailable","message":"The payment provider did not answer; no money was taken and the hold is still yours. Try again."})"},
        {ErrorCode::PaymentNotStarted, QJsonObject(), QStringList(),
         "502\nContent-Type: application/json\n" R"({"error":"payment_provider_unavailable","message":"The payment provider did not answer."})"},
        {ErrorCode::OrderStoreUnavailable, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\nRetry-After: 1\n" R"({"error":"unavailable","message":"The booking database is not answering; nothing was changed. Try again shortly."})"},
        {ErrorCode::OrderNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"order_not_found","message":"There is no order with this id for you."})"},
        {ErrorCode::IntentMismatch, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"intent_mismatch","message":"This payment intent does not belong to this order."})"},
        {ErrorCode::PaymentPending, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"payment_pending","message":"The payment has not completed yet; confirm again after paying.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PENDING_PAYMENT"})"},
        {ErrorCode::ConfirmInProgress, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PAID")}}, QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"confirm_in_progress","message":"The payment went through; the booking is being completed. Confirm again shortly.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PAID"})"},
        {ErrorCode::PaymentStatusUnknown, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_status_unknown","message":"The payment provider did not answer; nothing was changed. Confirm again shortly.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PENDING_PAYMENT"})"},
        {ErrorCode::PaymentMismatch, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_status_unknown","message":"The payment does not match the order; staff will resolve it.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PENDING_PAYMENT"})"},
        {ErrorCode::PaymentInconsistent, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_status_unknown","message":"The payment state is inconsistent; staff will resolve it.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PENDING_PAYMENT"})"},
        {ErrorCode::PaymentFailed, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("reason"), QStringLiteral("card_declined")}, {QStringLiteral("state"), QStringLiteral("FAILED")}}, QStringList(),
         "402\nContent-Type: application/json\n" R"({"error":"payment_failed","message":"The payment was declined; the seats were released.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","reason":"card_declined","state":"FAILED"})"},
        {ErrorCode::OrderExpired, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("EXPIRED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_expired","message":"Nobody paid within the payment window; the seats were released.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"EXPIRED"})"},
        {ErrorCode::OrderCancelled, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("CANCELLED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_cancelled","message":"The hold was released before paying; the order was cancelled.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"CANCELLED"})"},
        {ErrorCode::OrderFailed, QJsonObject{{QStringLiteral("state"), QStringLiteral("FAILED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_failed","message":"The payment could not be started.","state":"FAILED"})"},
        {ErrorCode::HoldLost, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("REFUND_PENDING")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"hold_lost","message":"The seats were released before the payment completed; the payment is being refunded.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"REFUND_PENDING"})"},
        {ErrorCode::OrderIsConfirmed, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("CONFIRMED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_confirmed","message":"This order is CONFIRMED.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"CONFIRMED"})"},
        {ErrorCode::OrderIsFailed, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("FAILED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_failed","message":"This order is FAILED.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"FAILED"})"},
        {ErrorCode::OrderIsExpired, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("EXPIRED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_expired","message":"This order is EXPIRED.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"EXPIRED"})"},
        {ErrorCode::OrderIsCancelled, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("CANCELLED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_cancelled","message":"This order is CANCELLED.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"CANCELLED"})"},
        {ErrorCode::OrderIsRefundPending, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("REFUND_PENDING")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_refund_pending","message":"This order is REFUND_PENDING.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"REFUND_PENDING"})"},
        {ErrorCode::OrderIsRefunded, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("REFUNDED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_refunded","message":"This order is REFUNDED.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"REFUNDED"})"},
        {ErrorCode::InvalidSignature, QJsonObject(), QStringList(),
         "401\nContent-Type: application/json\nWWW-Authenticate: Bearer realm=\"marquee\"\n" R"({"error":"invalid_signature","message":"The X-Signature header does not match the body."})"},
        {ErrorCode::InvalidPaymentEvent, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"invalid_event","message":"The event needs event_id, type and payment_intent_id."})"},
        {ErrorCode::UnknownPaymentEvent, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"invalid_event","message":"Unknown event type."})"},
        {ErrorCode::EventNotProcessed, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_status_unknown","message":"The payment provider could not be asked about this intent; the event was not processed. Send it again."})"},
        {ErrorCode::ReleaseStatusUnknown, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "503\nContent-Type: application/json\n" R"({"error":"payment_status_unknown","message":"The payment provider did not answer, so the payment may still go through; the hold is kept. Try again shortly.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","state":"PENDING_PAYMENT"})"},
        {ErrorCode::PaymentInProgress, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("order_state"), QStringLiteral("PENDING_PAYMENT")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"payment_in_progress","message":"An order for this hold is being paid; the hold is kept until the payment is settled.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","order_state":"PENDING_PAYMENT"})"},
        {ErrorCode::OrderPaid, QJsonObject{{QStringLiteral("order_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}, {QStringLiteral("order_state"), QStringLiteral("CONFIRMED")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"order_paid","message":"The order of this hold was paid before the release; its seats stay with the booking. Confirm the order.","order_id":"4b7c3a4e-0000-4000-8000-0000000000c1","order_state":"CONFIRMED"})"},
        {ErrorCode::BookingNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"booking_not_found","message":"There is no booking with this id for you."})"},
        {ErrorCode::BookingNotFoundToCancel, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"booking_not_found","message":"There is no booking with this id."})"},
        {ErrorCode::KioskMayNotCancel, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"forbidden","message":"Kiosks may not cancel bookings."})"},
        {ErrorCode::StaffSessionRequired, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"staff_session_required","message":"A till cancels and refunds only in a staff session: sign in on the till and enter your password or PIN again."})"},
        {ErrorCode::FeeWaiverNotAllowed, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"fee_waiver_not_allowed","message":"Only a manager may waive the cancellation fee."})"},
        {ErrorCode::FeeWaiverNeedsReason, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"reason_required","message":"Waiving the cancellation fee needs a reason."})"},
        {ErrorCode::OverrideNotAllowed, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"override_not_allowed","message":"Only a manager may refund a ticket already admitted at the door."})"},
        {ErrorCode::OverrideNeedsReason, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"reason_required","message":"Refunding an admitted ticket needs a reason."})"},
        {ErrorCode::TicketAdmitted, QJsonObject{{QStringLiteral("admitted_seats"), QJsonArray{QStringLiteral("A1")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"admitted_seats":["A1"],"error":"ticket_admitted","message":"A ticket of this booking was already admitted at the door; only a manager may refund it."})"},
        {ErrorCode::TicketAdmittedNeedsOverride, QJsonObject{{QStringLiteral("admitted_seats"), QJsonArray{QStringLiteral("A1")}}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"admitted_seats":["A1"],"error":"ticket_admitted","message":"A ticket of this booking was already admitted at the door; refunding it needs admitted_override with a reason."})"},
        {ErrorCode::OutsideCancelPolicy, QJsonObject{{QStringLiteral("cutoff_seconds"), 7200}}, QStringList(),
         "422\nContent-Type: application/json\n" R"({"cutoff_seconds":7200,"error":"outside_cancel_policy","message":"Too close to the start to cancel; ask a manager."})"},
        {ErrorCode::OutsideCancelPolicyNeedsReason, QJsonObject{{QStringLiteral("cutoff_seconds"), 7200}}, QStringList(),
         "422\nContent-Type: application/json\n" R"({"cutoff_seconds":7200,"error":"outside_cancel_policy","message":"Too close to the start; a manager override needs a reason."})"},
        {ErrorCode::MalformedTicketCode, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"malformed_qr","message":"This is not a Marquee ticket code (MQ1.<payload>.<signature>, or MQ2. for a ticket a till signed)."})"},
        {ErrorCode::NonceReused, QJsonObject(), QStringList(),
         "422\nContent-Type: application/json\n" R"({"error":"nonce_reused","message":"This nonce was already used for a different scan."})"},
        {ErrorCode::TicketStoreUnavailable, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\nRetry-After: 1\n" R"({"error":"unavailable","message":"The ticket database is not answering; keep the scan and upload it again."})"},
        {ErrorCode::WaitingRoomStoreUnavailable, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\nRetry-After: 1\n" R"({"error":"unavailable","message":"The booking database is not answering; try again shortly."})"},
        {ErrorCode::BoxOfficeHoldLimit, QJsonObject(), {QStringLiteral("3"), QStringLiteral("42")},
         "409\nContent-Type: application/json\n" R"({"error":"box_office_hold_limit","message":"This till or session already has 3 live holds on show 42, the most the box office may have while its waiting room is on; sell or release one first."})"},
        {ErrorCode::AdmissionRequired, QJsonObject(), {QStringLiteral("42")},
         "403\nContent-Type: application/json\n" R"({"error":"admission_required","message":"Show 42 sells through its waiting room: join it (POST /api/v1/queue/42/join) and send the admission token in the Admission-Token header."})"},
        {ErrorCode::AdmissionInvalid, QJsonObject(), {QStringLiteral("42")},
         "403\nContent-Type: application/json\n" R"({"error":"admission_invalid","message":"The admission token is not a valid admission to show 42."})"},
        {ErrorCode::AdmissionGone, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"admission_invalid","message":"This admission no longer exists."})"},
        {ErrorCode::AdmissionWrongHolder, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"admission_wrong_holder","message":"This admission token was issued to another device or session."})"},
        {ErrorCode::AdmissionExpired, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"admission_expired","message":"This admission has expired; join the waiting room again."})"},
        {ErrorCode::AdmissionHoldActive, QJsonObject{{QStringLiteral("hold_id"), QStringLiteral("4b7c3a4e-0000-4000-8000-0000000000c1")}}, QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"admission_hold_active","hold_id":"4b7c3a4e-0000-4000-8000-0000000000c1","message":"This admission already has a live hold; release it or let it expire first."})"},
        {ErrorCode::AdmissionHoldInProgress, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"admission_hold_in_progress","message":"Another hold with this admission is being placed right now."})"},
        {ErrorCode::WaitingRoomNotFound, QJsonObject(), {QStringLiteral("42")},
         "404\nContent-Type: application/json\n" R"({"error":"waiting_room_not_found","message":"Show 42 has no waiting room (the show is unknown or sells without one)."})"},
        {ErrorCode::ShowSoldOut, QJsonObject(), {QStringLiteral("42")},
         "409\nContent-Type: application/json\n" R"({"error":"sold_out","message":"Show 42 is sold out."})"},
        {ErrorCode::WaitingRoomClosed, QJsonObject(), {QStringLiteral("42")},
         "409\nContent-Type: application/json\n" R"({"error":"waiting_room_closed","message":"The waiting room of show 42 is closed."})"},
        {ErrorCode::InvalidQueueToken, QJsonObject(), {QStringLiteral("42")},
         "400\nContent-Type: application/json\n" R"({"error":"invalid_queue_token","message":"This is not a queue token of show 42's waiting room."})"},
        {ErrorCode::QueueTokenWrongHolder, QJsonObject(), QStringList(),
         "403\nContent-Type: application/json\n" R"({"error":"queue_token_wrong_holder","message":"This queue token belongs to another device or session."})"},
        {ErrorCode::QueueEntryNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"queue_entry_not_found","message":"This queue entry no longer exists."})"},
        {ErrorCode::QueueOwnerUnusable, QJsonObject(), QStringList(),
         "500\nContent-Type: application/json\n" R"({"error":"internal_error","message":"Something went wrong on the server; nothing was changed."})"},
        {ErrorCode::InvalidPairingCode, QJsonObject(), QStringList(),
         "400\nContent-Type: application/json\n" R"({"error":"invalid_pairing_code","message":"A pairing code is 8 letters and digits, like 7K3M-Q9TZ."})"},
        {ErrorCode::PairingCodeNotFound, QJsonObject(), QStringList(),
         "404\nContent-Type: application/json\n" R"({"error":"pairing_code_not_found","message":"No such pairing code; check it and try again."})"},
        {ErrorCode::PairingCodeUsed, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"pairing_code_used","message":"This pairing code was used already; ask for a new one."})"},
        {ErrorCode::PairingCodeExpired, QJsonObject(), QStringList(),
         "410\nContent-Type: application/json\n" R"({"error":"pairing_code_expired","message":"This pairing code has expired; ask for a new one."})"},
        {ErrorCode::PairingNameTaken, QJsonObject(), QStringList(),
         "409\nContent-Type: application/json\n" R"({"error":"device_exists","message":"A device of this code's name was enrolled meanwhile; ask for a new code."})"},
        {ErrorCode::PairingLockedFleetWide, QJsonObject{{QStringLiteral("retry_after_s"), 300}}, QStringList(),
         "429\nContent-Type: application/json\nRetry-After: 300\n" R"({"error":"pairing_locked","message":"Too many wrong pairing codes lately: pairing is locked for a while.","retry_after_s":300})"},
        {ErrorCode::PairingLockedForAddress, QJsonObject{{QStringLiteral("retry_after_s"), 300}}, QStringList(),
         "429\nContent-Type: application/json\nRetry-After: 300\n" R"({"error":"pairing_locked","message":"Too many wrong pairing codes from this address: pairing is locked for a while.","retry_after_s":300})"},
        {ErrorCode::PairingStoreUnavailable, QJsonObject(), QStringList(),
         "503\nContent-Type: application/json\nRetry-After: 1\n" R"({"error":"unavailable","message":"The booking database is not answering; the device is not paired. Try again."})"},

    };
    std::set<int> pinned;
    for (const Pin &pin : pins) {
        pinned.insert(int(pin.code));
        const http::HttpResponse response = http::orderAnswer(Refusal{pin.code, pin.data, pin.arguments});
        QByteArray wire = QByteArray::number(response.status) + "\nContent-Type: " + response.contentType + '\n';
        for (const auto &[name, value] : response.headers)
            wire += name + ": " + value + '\n';
        EXPECT_EQ((wire + response.body).toStdString(), pin.wire) << errorEntry(pin.code).code;
    }
    // Every refusal of these services has its pin: the entries of the orders, holds, leases, check-in, the waiting room
    // (the admission a hold on its show needs, joins and status polls) and device pairing.
    for (int code = int(ErrorCode::SeatsUnavailable); code <= int(ErrorCode::OutsideCancelPolicyNeedsReason); ++code)
        EXPECT_TRUE(pinned.count(code)) << errorEntry(ErrorCode(code)).code << " (entry " << code << ") has no pin";
    for (int code = int(ErrorCode::MalformedTicketCode); code <= int(ErrorCode::PairingStoreUnavailable); ++code)
        EXPECT_TRUE(pinned.count(code)) << errorEntry(ErrorCode(code)).code << " (entry " << code << ") has no pin";
}
