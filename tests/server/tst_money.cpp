// SPDX-License-Identifier: AGPL-3.0-or-later
// Who may give money back, and on whose word: a till's token cancels nothing (a staff session on the till does,
// after re-entering the password), every cancellation is audited with device, booking, amount and reason, and a
// ticket already admitted at the door is refunded only on a manager's explicit override.
#include "tilltesthelpers.h"

#include "core/isotime.h"
#include "core/tokenhash.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

QByteArray cancelPath(const QJsonObject &booking)
{
    return "/api/v1/bookings/" + booking.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";
}

qint64 deviceIdOf(TestServer &server, const QString &token)
{
    return server.scalar(QStringLiteral("SELECT device_id FROM devices WHERE token_hash = '%1'").arg(QString::fromLatin1(tokenHash(token)))).toLongLong();
}

/** @brief Sign @p name in on the device whose token is @p deviceToken (the till's own sign-in). */
QString signInOn(TestServer &server, const QString &deviceToken, const QString &name)
{
    const HttpResult r = server.client(deviceToken)->post("/api/v1/sessions", QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("password"), password()}});
    EXPECT_EQ(r.status, 201) << r.body.toStdString();
    return r.json().value(QStringLiteral("token")).toString();
}

QJsonObject scan(const QString &qr)
{
    return QJsonObject{{QStringLiteral("qr"), qr},
                       {QStringLiteral("nonce"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
                       {QStringLiteral("scanned_at"), toIsoUtc(QDateTime::currentDateTimeUtc())}};
}

} // namespace

TEST(Money, ATillTokenRefundsNothingAStaffSessionOnTheTillDoesAndIsAudited)
{
    Till till;
    const QString tillToken = till.server.deviceToken(QStringLiteral("till"));
    auto tillDevice = till.server.client(tillToken);
    auto otherTill = till.server.client(till.server.deviceToken(QStringLiteral("till")));
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));

    const QJsonObject sold = till.sellCash(*tillDevice, {QStringLiteral("A1"), QStringLiteral("A2")}, 2500);
    const HttpResult kioskSale = till.sellCard(*kiosk, {QStringLiteral("B1")});
    ASSERT_EQ(kioskSale.status, 200) << kioskSale.body.toStdString();
    const QJsonObject kioskBooking = kioskSale.json();
    const auto unchanged = [&] {
        return till.server.scalar(QStringLiteral("SELECT string_agg(state, ',' ORDER BY booking_id) || '|' || (SELECT count(*) FROM refunds) "
                                                 "|| '|' || (SELECT count(*) FROM audit_log WHERE action LIKE 'booking.%') FROM bookings"))
            .toString();
    };
    const QString before = unchanged();
    EXPECT_EQ(before, QStringLiteral("confirmed,confirmed|0|0"));

    // Another till, or the till that sold something else, does not even learn that the booking exists.
    EXPECT_API_ERROR(otherTill->post(cancelPath(sold), QJsonObject{}), 404, "booking_not_found");
    EXPECT_API_ERROR(tillDevice->post(cancelPath(kioskBooking), QJsonObject{}), 404, "booking_not_found");
    // Its own sale: the till's token alone gives no money back — a person must sign in on it.
    EXPECT_API_ERROR(tillDevice->post(cancelPath(sold), QJsonObject{{QStringLiteral("reason"), QStringLiteral("changed plans")}}), 403,
                     "staff_session_required");
    EXPECT_EQ(unchanged(), before);

    // A cashier signs in on that till, enters the password again and refunds: the audit row says who, from which
    // device, which booking, how much and why.
    QString error;
    ASSERT_TRUE(till.server.context().auth.addStaff(QStringLiteral("carla"), Role::Cashier, password(), &error)) << error.toStdString();
    auto cashier = till.server.client(signInOn(till.server, tillToken, QStringLiteral("carla")));
    EXPECT_API_ERROR(cashier->post(cancelPath(sold), QJsonObject{}), 403, "reauth_required");
    ASSERT_EQ(till.reauth(*cashier, QStringLiteral("password"), password()).status, 200);
    const HttpResult cancelled = cashier->post(cancelPath(sold), QJsonObject{{QStringLiteral("reason"), QStringLiteral("changed plans")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    EXPECT_EQ(cancelled.json().value(QStringLiteral("refund_minor")).toInteger(), 2 * kStandard);

    const QString bookingId = sold.value(QStringLiteral("booking_id")).toString();
    const QJsonObject audit = QJsonDocument::fromJson(
        till.server.scalar(QStringLiteral("SELECT json_build_object('action', action, 'name', actor_name, 'role', actor_role, 'device', device_id, "
                                          "'target', target, 'reason', reason, 'details', details)::text FROM audit_log WHERE action LIKE 'booking.%'"))
            .toString().toUtf8()).object();
    EXPECT_EQ(audit.value(QStringLiteral("action")).toString(), QStringLiteral("booking.cancel"));
    EXPECT_EQ(audit.value(QStringLiteral("name")).toString(), QStringLiteral("carla"));
    EXPECT_EQ(audit.value(QStringLiteral("role")).toString(), QStringLiteral("cashier"));
    EXPECT_EQ(audit.value(QStringLiteral("device")).toInteger(), deviceIdOf(till.server, tillToken));
    EXPECT_EQ(audit.value(QStringLiteral("target")).toString(), QStringLiteral("booking:") + bookingId);
    EXPECT_EQ(audit.value(QStringLiteral("reason")).toString(), QStringLiteral("changed plans"));
    const QJsonObject details = audit.value(QStringLiteral("details")).toObject();
    EXPECT_EQ(details.value(QStringLiteral("booking_id")).toString(), bookingId);
    EXPECT_EQ(details.value(QStringLiteral("amount_minor")).toInteger(), 2 * kStandard);
    EXPECT_EQ(details.value(QStringLiteral("refund_minor")).toInteger(), 2 * kStandard);
    EXPECT_EQ(details.value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
}

TEST(Money, RefundingATicketAdmittedAtTheDoorNeedsAManagersOverrideWithAReason)
{
    TestServer::Options options;
    options.threads = 2;
    options.paymentWebhookSecret = PaySimProcess::kSecret;
    options.cancelCutoffSeconds = 0; // the show starts soon; only the door decides here
    TestServer server(options);
    PaySimProcess sim(server, {});
    const qint64 show = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600), QDateTime::currentDateTimeUtc().addSecs(-60)); // both rows premium
    auto tillDevice = server.client(server.deviceToken(QStringLiteral("till")));
    const HttpResult held = tillDevice->post(holdPath(show), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}));
    ASSERT_EQ(held.status, 200) << held.body.toStdString();
    const HttpResult created = tillDevice->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))},
                                                                            {QStringLiteral("payment_method"), QStringLiteral("cash")},
                                                                            {QStringLiteral("tendered_minor"), 5000}});
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const HttpResult confirmed = tillDevice->post("/api/v1/orders/" + created.json().value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                                                  QJsonObject{{QStringLiteral("payment_intent_id"), created.json().value(QStringLiteral("payment_intent_id"))}});
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
    const QJsonObject booking = confirmed.json();
    const QJsonArray tickets = booking.value(QStringLiteral("tickets")).toArray();
    ASSERT_EQ(tickets.size(), 2);
    QString admittedQr, otherQr;
    for (const QJsonValue &t : tickets)
        (t.toObject().value(QStringLiteral("seat_id")).toString() == QLatin1String("A1") ? admittedQr : otherQr) = t.toObject().value(QStringLiteral("qr")).toString();
    // The customer was let in on A1.
    const HttpResult admitted = tillDevice->post("/api/v1/checkin", scan(admittedQr));
    ASSERT_EQ(admitted.status, 200) << admitted.body.toStdString();
    ASSERT_EQ(admitted.json().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));

    const auto state = [&] {
        return server.scalar(QStringLiteral("SELECT b.state || '|' || (SELECT count(*) FROM refunds) || '|' || "
                                            "(SELECT count(*) FROM tickets WHERE state = 'valid') || '|' || "
                                            "(SELECT count(*) FROM audit_log WHERE action LIKE 'booking.%') FROM bookings b"))
            .toString();
    };
    const QString before = state();
    EXPECT_EQ(before, QStringLiteral("confirmed|0|2|0"));
    const QByteArray path = cancelPath(booking);
    const QJsonObject why{{QStringLiteral("reason"), QStringLiteral("left after the trailers")}};

    auto cashier = server.client(server.elevatedStaffToken(QStringLiteral("cashier")));
    const HttpResult byCashier = cashier->post(path, why);
    EXPECT_API_ERROR(byCashier, 409, "ticket_admitted");
    EXPECT_EQ(byCashier.json().value(QStringLiteral("admitted_seats")).toArray(), QJsonArray{QStringLiteral("A1")});
    QJsonObject overriding = why;
    overriding.insert(QStringLiteral("admitted_override"), true);
    EXPECT_API_ERROR(cashier->post(path, overriding), 403, "override_not_allowed");

    auto manager = server.client(server.elevatedStaffToken(QStringLiteral("manager")));
    EXPECT_API_ERROR(manager->post(path, why), 409, "ticket_admitted");
    EXPECT_API_ERROR(manager->post(path, QJsonObject{{QStringLiteral("admitted_override"), true}}), 422, "reason_required");
    EXPECT_API_ERROR(manager->post(path, QJsonObject{{QStringLiteral("admitted_override"), QStringLiteral("yes")}, {QStringLiteral("reason"), QStringLiteral("x")}}),
                     400, "invalid_type");
    EXPECT_EQ(state(), before);

    const HttpResult refunded = manager->post(path, overriding);
    ASSERT_EQ(refunded.status, 200) << refunded.body.toStdString();
    EXPECT_EQ(refunded.json().value(QStringLiteral("refund_minor")).toInteger(), 2 * kPremium);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT action || '|' || actor_role || '|' || reason || '|' || (details->'admitted_seat_ids')::text "
                                           "FROM audit_log WHERE action LIKE 'booking.%'")).toString(),
              QStringLiteral("booking.cancel.admitted_override|manager|left after the trailers|[\"A1\"]"));
    // The seat not yet used is refused at the door now.
    const HttpResult late = tillDevice->post("/api/v1/checkin", scan(otherQr));
    ASSERT_EQ(late.status, 200) << late.body.toStdString();
    EXPECT_EQ(late.json().value(QStringLiteral("result")).toString(), QStringLiteral("revoked"));
}

namespace {

QByteArray signedEvent(const QString &eventId, const QString &type, const QString &intentId, qint64 amount)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("event_id"), eventId},
                                     {QStringLiteral("type"), type},
                                     {QStringLiteral("payment_intent_id"), intentId},
                                     {QStringLiteral("amount_minor"), amount},
                                     {QStringLiteral("currency"), QStringLiteral("EUR")},
                                     {QStringLiteral("created_at"), toIsoUtc(QDateTime::currentDateTimeUtc())}})
        .toJson(QJsonDocument::Compact);
}

} // namespace

TEST(Money, ACorrectlySignedWebhookConfirmsNothingTheProviderDoesNotReportPaid)
{
    Till till;
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    const HttpResult created = till.order(*kiosk, till.hold(*kiosk, {QStringLiteral("A1")}), {{QStringLiteral("payment_method"), QStringLiteral("card")}});
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const QString orderId = created.json().value(QStringLiteral("order_id")).toString();
    const QString intent = created.json().value(QStringLiteral("payment_intent_id")).toString();
    const auto orderState = [&] { return till.server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString(); };

    // Signed with the real secret (a leaked one, or a replay), for an intent nobody has paid.
    const QByteArray forged = signedEvent(QStringLiteral("evt_forged"), QStringLiteral("payment_intent.succeeded"), intent, kStandard);
    const HttpResult answered = till.server.client()->request("POST", "/webhooks/payment", forged, signatureHeader(forged));
    ASSERT_EQ(answered.status, 200) << answered.body.toStdString();
    EXPECT_EQ(answered.json().value(QStringLiteral("state")).toString(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(orderState(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings")), 0);
    EXPECT_EQ(till.sim.intentStatus(intent), QStringLiteral("requires_payment"));

    // When the customer really pays, the simulator's own event books it: it is the provider that says so.
    ASSERT_EQ(till.sim.pay(intent, QStringLiteral("tok_visa")).status, 200);
    EXPECT_TRUE(eventually([&] { return orderState() == QLatin1String("CONFIRMED"); })) << orderState().toStdString();
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings")), 1);
}

TEST(Money, ARefundMadeAtTheProviderCancelsTheBookingAndTheDoorRefusesItsTickets)
{
    Till till;
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    auto door = till.server.client(till.server.deviceToken(QStringLiteral("till")));
    const HttpResult refundedSale = till.sellCard(*kiosk, {QStringLiteral("C1"), QStringLiteral("C2")});
    ASSERT_EQ(refundedSale.status, 200) << refundedSale.body.toStdString();
    const HttpResult keptSale = till.sellCard(*kiosk, {QStringLiteral("C3")});
    ASSERT_EQ(keptSale.status, 200) << keptSale.body.toStdString();
    const QJsonObject booking = refundedSale.json();
    const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
    const QString orderId = booking.value(QStringLiteral("order_id")).toString();
    const QString intent = till.server.scalar(QStringLiteral("SELECT payment_intent_id FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    const QString keptIntent = till.server.scalar(QStringLiteral("SELECT payment_intent_id FROM orders WHERE order_id = '%1'")
                                                      .arg(keptSale.json().value(QStringLiteral("order_id")).toString())).toString();

    // A refund event the provider does not stand behind changes nothing.
    const QByteArray forged = signedEvent(QStringLiteral("evt_forged_refund"), QStringLiteral("charge.refunded"), keptIntent, 1800);
    ASSERT_EQ(till.server.client()->request("POST", "/webhooks/payment", forged, signatureHeader(forged)).status, 200);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings WHERE state = 'confirmed'")), 2);

    // The venue refunds at the provider's dashboard; the provider's charge.refunded reaches the server.
    const HttpResult atProvider = till.sim.client()->post("/v1/intents/" + intent.toUtf8() + "/refund", QJsonObject{{QStringLiteral("amount_minor"), 2 * kPremium}});
    ASSERT_EQ(atProvider.status, 200) << atProvider.body.toStdString();
    const auto bookingState = [&] { return till.server.scalar(QStringLiteral("SELECT state FROM bookings WHERE booking_id = '%1'").arg(bookingId)).toString(); };
    ASSERT_TRUE(eventually([&] { return bookingState() == QLatin1String("cancelled"); })) << bookingState().toStdString();
    EXPECT_TRUE(eventually([&] {
        return till.server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString() == QLatin1String("REFUNDED");
    }));
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT amount_minor || '|' || status || '|' || requested_by FROM refunds WHERE order_id = '%1'").arg(orderId)).toString(),
              QStringLiteral("%1|succeeded|system:provider").arg(2 * kPremium));
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM tickets WHERE booking_id = '%1' AND state = 'valid'").arg(bookingId)), 0);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id IN ('C1', 'C2') AND status = 'available'").arg(till.showId)), 2);
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT actor || '|' || actor_role || '|' || target || '|' || (details->>'refund_minor') FROM audit_log "
                                                "WHERE action LIKE 'booking.cancel%'")).toString(),
              QStringLiteral("system:provider|system|booking:%1|%2").arg(bookingId).arg(2 * kPremium));
    // The door refuses the tickets; the other booking is untouched.
    for (const QJsonValue &ticket : booking.value(QStringLiteral("tickets")).toArray()) {
        const HttpResult scanned = door->post("/api/v1/checkin", scan(ticket.toObject().value(QStringLiteral("qr")).toString()));
        ASSERT_EQ(scanned.status, 200) << scanned.body.toStdString();
        EXPECT_EQ(scanned.json().value(QStringLiteral("result")).toString(), QStringLiteral("revoked"));
    }
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings WHERE state = 'confirmed'")), 1);
}

TEST(Money, TheEventFeedShowsADeviceOnlyItsOwnSalesAndAManagerEverything)
{
    Till till;
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    auto tillDevice = till.server.client(till.server.deviceToken(QStringLiteral("till")));
    const HttpResult kioskSale = till.sellCard(*kiosk, {QStringLiteral("A1")});
    ASSERT_EQ(kioskSale.status, 200) << kioskSale.body.toStdString();
    const QJsonObject tillSale = till.sellCash(*tillDevice, {QStringLiteral("B1")}, 2000);
    const QString kioskBooking = kioskSale.json().value(QStringLiteral("booking_id")).toString();
    const QString tillBooking = tillSale.value(QStringLiteral("booking_id")).toString();

    // Everything a reader sees, page by page (small pages: the cursor must never step over one of its own).
    const auto readAll = [](HttpClient &client) {
        QStringList aggregates;
        qint64 cursor = 0;
        for (int pages = 0; pages < 100; ++pages) {
            const HttpResult page = client.get("/api/v1/events?after=" + QByteArray::number(cursor) + "&limit=2");
            EXPECT_EQ(page.status, 200) << page.body.toStdString();
            const QJsonArray events = page.json().value(QStringLiteral("events")).toArray();
            for (const QJsonValue &event : events)
                aggregates << event.toObject().value(QStringLiteral("aggregate_id")).toString();
            const qint64 next = page.json().value(QStringLiteral("next_cursor")).toInteger();
            if (next == cursor)
                break;
            cursor = next;
        }
        return aggregates;
    };
    const QStringList seenByKiosk = readAll(*kiosk);
    const QStringList seenByTill = readAll(*tillDevice);
    auto manager = till.server.client(till.server.staffToken(QStringLiteral("manager")));
    const QStringList seenByManager = readAll(*manager);

    EXPECT_TRUE(seenByKiosk.contains(kioskBooking));
    EXPECT_FALSE(seenByKiosk.contains(tillBooking));
    EXPECT_TRUE(seenByTill.contains(tillBooking));
    EXPECT_FALSE(seenByTill.contains(kioskBooking));
    EXPECT_TRUE(seenByManager.contains(kioskBooking));
    EXPECT_TRUE(seenByManager.contains(tillBooking));
    EXPECT_EQ(seenByManager.size(), till.count(QStringLiteral("SELECT count(*) FROM outbox WHERE feed_position IS NOT NULL")));
    EXPECT_EQ(seenByKiosk.size() + seenByTill.size(), seenByManager.size()) << "every event belongs to one of the two sellers";
    // A device that sold nothing learns nothing.
    auto otherKiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    EXPECT_TRUE(readAll(*otherKiosk).isEmpty());
}
