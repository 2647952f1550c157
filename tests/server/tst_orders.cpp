// SPDX-License-Identifier: AGPL-3.0-or-later
// Orders, payments and bookings end to end: a real server, real PostgreSQL and a real marquee-paysim process.
#include "orderfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace marquee;
using namespace marquee::test;

using Fixture = OrderFixture;

TEST(Orders, CardPaymentConfirmsOnceWithTickets)
{
    Fixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const QString holdId = f.hold(*kiosk, {QStringLiteral("A1"), QStringLiteral("A2")});

    const HttpResult created = f.order(*kiosk, holdId);
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const QJsonObject order = created.json();
    EXPECT_EQ(order.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(order.value(QStringLiteral("amount_minor")).toInteger(), 2500);
    EXPECT_EQ(order.value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_FALSE(intentId.isEmpty());
    // The hold is frozen past the payment window (15 min by default) although a hold lasts 8 min.
    EXPECT_GT(f.count(QStringLiteral("SELECT extract(epoch FROM min(hold_expires_at) - now())::bigint FROM show_seats "
                                     "WHERE held_by = '%1'").arg(holdId)), 900);
    // A second order for the same hold is refused.
    EXPECT_EQ(f.order(*kiosk, holdId).status, 409);

    const HttpResult paid = f.sim.pay(intentId, QStringLiteral("tok_visa"));
    ASSERT_EQ(paid.status, 200);
    EXPECT_EQ(paid.json().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));

    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
    const QJsonObject booking = confirmed.json();
    EXPECT_EQ(booking.value(QStringLiteral("state")).toString(), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(booking.value(QStringLiteral("seats")).toArray().size(), 2);
    EXPECT_EQ(booking.value(QStringLiteral("amount_minor")).toInteger(), 2500);
    const QJsonArray tickets = booking.value(QStringLiteral("tickets")).toArray();
    ASSERT_EQ(tickets.size(), 2);
    EXPECT_TRUE(tickets[0].toObject().value(QStringLiteral("qr")).toString().startsWith(QStringLiteral("MQ1.")));
    const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
    const QString ref = booking.value(QStringLiteral("booking_ref")).toString();
    EXPECT_EQ(ref.size(), 8);
    EXPECT_EQ(f.seatStatus(QStringLiteral("A1")), QStringLiteral("booked"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A2")), QStringLiteral("booked"));

    // Repeating confirm returns the stored result; the webhook arriving too changes nothing.
    const HttpResult again = f.confirm(*kiosk, orderId, intentId);
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.json().value(QStringLiteral("booking_id")).toString(), bookingId);
    EXPECT_TRUE(eventually([&] {
        return f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1' AND processed_at IS NOT NULL").arg(intentId)) == 1;
    }));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 1);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("CONFIRMED"));

    const HttpResult byId = kiosk->get("/api/v1/bookings/" + bookingId.toUtf8());
    ASSERT_EQ(byId.status, 200);
    EXPECT_EQ(byId.json().value(QStringLiteral("booking_ref")).toString(), ref);
    EXPECT_EQ(byId.json().value(QStringLiteral("tickets")).toArray().size(), 2);
    const HttpResult byRef = kiosk->get("/api/v1/bookings?ref=" + ref.toUtf8());
    ASSERT_EQ(byRef.status, 200);
    EXPECT_EQ(byRef.json().value(QStringLiteral("booking_id")).toString(), bookingId);
    const HttpResult orderView = kiosk->get("/api/v1/orders/" + orderId.toUtf8());
    ASSERT_EQ(orderView.status, 200);
    EXPECT_EQ(orderView.json().value(QStringLiteral("state")).toString(), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(orderView.json().value(QStringLiteral("channel")).toString(), QStringLiteral("kiosk"));
    // Another device sees neither the order nor the booking.
    auto other = f.server.client(f.server.deviceToken());
    EXPECT_EQ(other->get("/api/v1/orders/" + orderId.toUtf8()).status, 404);
    EXPECT_EQ(other->get("/api/v1/bookings/" + bookingId.toUtf8()).status, 404);
    EXPECT_EQ(f.confirm(*other, orderId, intentId).status, 404);
    // Outbox: the order's transitions and the booking are events.
    EXPECT_GE(f.count(QStringLiteral("SELECT count(*) FROM outbox WHERE aggregate_id = '%1' AND event_type LIKE 'order.%%'").arg(orderId)), 4);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'booking.confirmed' AND aggregate_id = '%1'").arg(bookingId)), 1);
}

TEST(Orders, DeclinedCardFailsAndReleasesTheSeats)
{
    Fixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const QString holdId = f.hold(*kiosk, {QStringLiteral("B3")});
    const QJsonObject order = f.order(*kiosk, holdId).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    const HttpResult paid = f.sim.pay(intentId, QStringLiteral("tok_declined"));
    EXPECT_EQ(paid.json().value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 402) << confirmed.body.toStdString();
    EXPECT_EQ(confirmed.json().value(QStringLiteral("error")).toString(), QStringLiteral("payment_failed"));
    EXPECT_EQ(confirmed.json().value(QStringLiteral("state")).toString(), QStringLiteral("FAILED"));
    EXPECT_EQ(confirmed.json().value(QStringLiteral("reason")).toString(), QStringLiteral("card_declined"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("B3")), QStringLiteral("available"));
    EXPECT_EQ(f.confirm(*kiosk, orderId, intentId).status, 402);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);
    // The failure webhook, whenever it lands, changes nothing more.
    EXPECT_TRUE(eventually([&] {
        return f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1' AND processed_at IS NOT NULL").arg(intentId)) == 1;
    }));
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("FAILED"));
}

TEST(Orders, WebhookAloneConfirmsAndDuplicatesAreIgnored)
{
    Fixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("C1")})).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_duplicate")).status, 200);
    // Nobody calls confirm: the webhook drives the order to CONFIRMED; its second copy is a duplicate.
    EXPECT_TRUE(eventually([&] { return f.orderState(orderId) == QLatin1String("CONFIRMED"); }));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1'").arg(intentId)), 1);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 1);
    EXPECT_EQ(f.seatStatus(QStringLiteral("C1")), QStringLiteral("booked"));
    // A later confirm by the kiosk gets the booking the webhook made.
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 200);
    EXPECT_EQ(confirmed.json().value(QStringLiteral("tickets")).toArray().size(), 1);
}

TEST(Orders, LostWebhookIsFoundByConfirmAndByTheReconciler)
{
    Fixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    // Confirm queries the provider when no webhook came.
    const QJsonObject first = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("A4")})).json();
    ASSERT_EQ(f.sim.pay(first.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_lost")).status, 200);
    const HttpResult confirmed = f.confirm(*kiosk, first.value(QStringLiteral("order_id")).toString(),
                                           first.value(QStringLiteral("payment_intent_id")).toString());
    EXPECT_EQ(confirmed.status, 200) << confirmed.body.toStdString();

    // Nobody confirms at all (the kiosk crashed after the terminal approved): the reconciler finishes the sale.
    const QJsonObject second = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("A5")})).json();
    const QString orderId = second.value(QStringLiteral("order_id")).toString();
    ASSERT_EQ(f.sim.pay(second.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_lost")).status, 200);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_GE(f.server.context().orderService.reconcileOnce(), 1);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A5")), QStringLiteral("booked"));
}

TEST(Orders, SlowAndLateCardsConfirm)
{
    Fixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject slow = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("B1")})).json();
    const HttpResult paid = f.sim.pay(slow.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_slow"));
    EXPECT_EQ(paid.json().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(f.confirm(*kiosk, slow.value(QStringLiteral("order_id")).toString(), slow.value(QStringLiteral("payment_intent_id")).toString()).status, 200);

    // tok_late: confirm before the webhook (found by the status query), then the late webhook is a no-op.
    const QJsonObject late = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("B2")})).json();
    const QString intentId = late.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_late")).status, 200);
    const HttpResult confirmed = f.confirm(*kiosk, late.value(QStringLiteral("order_id")).toString(), intentId);
    ASSERT_EQ(confirmed.status, 200);
    EXPECT_TRUE(eventually([&] {
        return f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1' AND processed_at IS NOT NULL").arg(intentId)) == 1;
    }));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(late.value(QStringLiteral("order_id")).toString())), 1);
}

TEST(Orders, PaymentAfterTheHoldWasLostIsRefundedAndTheSeatStaysWithItsNewOwner)
{
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = 1;
    options.paymentGraceSeconds = 0;
    Fixture f(options);
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("D1")})).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    // The frozen hold runs out; another customer takes the seat. (Wait for "no longer held unexpired by this
    // hold", not for "held and expired": the reaper, every 200 ms, may free the seat between two looks, after
    // which "held and expired" never comes true again.)
    ASSERT_TRUE(eventually([&] {
        return f.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1' AND hold_expires_at >= now()").arg(
                   order.value(QStringLiteral("hold_id")).toString())) == 0;
    }));
    auto rival = f.server.client(f.server.deviceToken());
    const QString rivalHold = f.hold(*rival, {QStringLiteral("D1")});
    ASSERT_FALSE(rivalHold.isEmpty());

    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_late")).status, 200);
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 409) << confirmed.body.toStdString();
    EXPECT_EQ(confirmed.json().value(QStringLiteral("error")).toString(), QStringLiteral("hold_lost"));
    EXPECT_EQ(confirmed.json().value(QStringLiteral("state")).toString(), QStringLiteral("REFUND_PENDING"));
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("REFUNDED"));
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("refunded"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1' AND status = 'succeeded'").arg(orderId)), 1);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT held_by::text FROM show_seats WHERE show_id = %1 AND seat_id = 'D1'").arg(f.showId)).toString(), rivalHold);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);
    // The late webhook (and a repeated confirm) change nothing: still one refund, no booking.
    EXPECT_TRUE(eventually([&] {
        return f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE payment_intent_id = '%1' AND event_type = 'payment_intent.succeeded' "
                                      "AND processed_at IS NOT NULL").arg(intentId)) == 1;
    }));
    EXPECT_EQ(f.confirm(*kiosk, orderId, intentId).status, 409);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("REFUNDED"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1'").arg(orderId)), 1);
}

TEST(Orders, ConfirmRacingTheReaperHasExactlyOneOutcome)
{
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = 1;
    options.paymentGraceSeconds = 0;
    options.reaperIntervalMs = 600000; // the test runs the reaper's sweep itself, at the same moment as confirm
    Fixture f(options);
    for (int round = 0; round < 4; ++round) {
        auto kiosk = f.server.client(f.server.deviceToken());
        const QString seat = QStringLiteral("C%1").arg(round + 2);
        const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {seat})).json();
        const QString orderId = order.value(QStringLiteral("order_id")).toString();
        const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
        ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200);
        ASSERT_TRUE(eventually([&] {
            return f.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id = '%2' AND hold_expires_at < now()")
                               .arg(f.showId).arg(seat)) == 1;
        }));
        std::atomic<int> status{0};
        std::thread confirmer([&] { status = f.confirm(*kiosk, orderId, intentId).status; });
        std::thread reaper([&] { f.server.context().holds.reapExpired(1000); f.server.context().database.closeThreadConnection(); });
        confirmer.join();
        reaper.join();
        const QString seatStatus = f.seatStatus(seat);
        const QString state = f.orderState(orderId);
        if (status == 200) {
            EXPECT_EQ(seatStatus, QStringLiteral("booked"));
            EXPECT_EQ(state, QStringLiteral("CONFIRMED"));
            EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds WHERE order_id = '%1'").arg(orderId)), 0);
        } else {
            EXPECT_EQ(status, 409);
            EXPECT_EQ(seatStatus, QStringLiteral("available"));
            EXPECT_EQ(state, QStringLiteral("REFUNDED"));
            EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);
        }
    }
}

TEST(Orders, ReconcilerExpiresUnpaidOrdersAndCancelsTheirIntent)
{
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = 1;
    Fixture f(options);
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("D2")})).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_TRUE(eventually([&] {
        f.server.context().orderService.reconcileOnce();
        return f.orderState(orderId) == QLatin1String("EXPIRED");
    }));
    EXPECT_EQ(f.seatStatus(QStringLiteral("D2")), QStringLiteral("available"));
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("canceled"));
    // A terminal that tries to pay now is refused by the provider: no money can be taken for an expired order.
    EXPECT_EQ(f.sim.pay(intentId, QStringLiteral("tok_visa")).status, 409);
    EXPECT_EQ(f.confirm(*kiosk, orderId, intentId).status, 409);
}

TEST(Orders, ProviderUnreachableKeepsTheSeatsUntilTheFinalBoundThenACaptureIsRefunded)
{
    // The provider's answer is unknown: nothing is decided, the seats stay held until the order's final bound
    // (payment window + grace); after that the seats go back on sale, and a capture that turns up later is
    // refunded (fail closed), never booked on top of the seat's new owner.
    TestServer::Options options = paymentOptions();
    options.paymentWindowSeconds = 2;
    options.paymentGraceSeconds = 2;
    Fixture f(options);
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("D4")})).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200); // captured; no webhook

    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:1")); // nothing listens there
    const HttpResult unknown = f.confirm(*kiosk, orderId, intentId);
    EXPECT_EQ(unknown.status, 503) << unknown.body.toStdString();
    EXPECT_EQ(unknown.json().value(QStringLiteral("error")).toString(), QStringLiteral("payment_status_unknown"));
    EXPECT_EQ(f.server.context().orderService.reconcileOnce(), 0);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("D4")), QStringLiteral("held"));

    // Past the final bound the reaper frees the seat and someone else takes it; the order is still undecided.
    ASSERT_TRUE(eventually([&] { return f.seatStatus(QStringLiteral("D4")) == QLatin1String("available"); }));
    auto rival = f.server.client(f.server.deviceToken());
    const QString rivalHold = f.hold(*rival, {QStringLiteral("D4")});
    ASSERT_FALSE(rivalHold.isEmpty());
    f.server.context().orderService.reconcileOnce();
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));

    // The provider answers again: the capture is refunded and the seat stays with its new owner.
    f.server.context().orderService.setProviderUrl(f.sim.url());
    EXPECT_GE(f.server.context().orderService.reconcileOnce(), 1);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("REFUNDED"));
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("refunded"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT held_by::text FROM show_seats WHERE show_id = %1 AND seat_id = 'D4'").arg(f.showId)).toString(), rivalHold);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)), 0);
    const HttpResult answer = f.confirm(*kiosk, orderId, intentId);
    EXPECT_EQ(answer.status, 409);
    EXPECT_EQ(answer.json().value(QStringLiteral("error")).toString(), QStringLiteral("hold_lost"));
}
