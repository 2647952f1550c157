// SPDX-License-Identifier: AGPL-3.0-or-later
// The box-office till: shifts and the cash drawer, cash tendered and change, split payments,
// re-authentication and the inactivity lock, refunds with a manager override, Z-report arithmetic, house holds.
#include "tilltesthelpers.h"

#include "core/isotime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;


TEST(Till, CashSaleRecordsTenderedAndChangeAndRefusesTooLittleCash)
{
    Till till;
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    ASSERT_EQ(till.openShift(*cashier, 10000).status, 201);

    const HttpResult created = till.order(*cashier, till.hold(*cashier, {QStringLiteral("A1"), QStringLiteral("A2")}),
                                          {{QStringLiteral("payment_method"), QStringLiteral("cash")}, {QStringLiteral("tendered_minor"), 5000}});
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const QJsonObject order = created.json();
    EXPECT_EQ(order.value(QStringLiteral("payment_method")).toString(), QStringLiteral("cash"));
    EXPECT_EQ(field(order, "amount_minor"), 2 * kStandard);
    EXPECT_EQ(field(order, "tendered_minor"), 5000);
    EXPECT_EQ(field(order, "change_minor"), 5000 - 2 * kStandard);
    EXPECT_EQ(field(order, "cash_minor"), 2 * kStandard);
    const HttpResult confirmed = till.confirm(*cashier, order);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
    // Stored with the order, and the sale belongs to the cashier's shift.
    const HttpResult read = cashier->get("/api/v1/orders/" + order.value(QStringLiteral("order_id")).toString().toUtf8());
    EXPECT_EQ(field(read.json(), "change_minor"), 5000 - 2 * kStandard);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM orders WHERE shift_id IS NOT NULL")), 1);
    const QJsonObject shift = cashier->get("/api/v1/shifts/current").json();
    EXPECT_EQ(field(shift, "sales.by_method.cash_minor"), 2 * kStandard);
    EXPECT_EQ(field(shift, "sales.change_given_minor"), 5000 - 2 * kStandard);
    EXPECT_EQ(field(shift, "expected_cash_minor"), 10000 + 2 * kStandard);

    // Too little cash: refused before anything is written; the hold stays the cashier's.
    const QString holdId = till.hold(*cashier, {QStringLiteral("A3")});
    const qint64 orders = till.count(QStringLiteral("SELECT count(*) FROM orders"));
    const HttpResult tooLittle = till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("cash")}, {QStringLiteral("tendered_minor"), 1000}});
    EXPECT_API_ERROR(tooLittle, 422, "insufficient_tender");
    EXPECT_EQ(field(tooLittle.json(), "cash_due_minor"), kStandard);
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("cash")}, {QStringLiteral("tendered_minor"), -5}}), 400, "invalid_amount");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("cash")}, {QStringLiteral("tendered_minor"), QStringLiteral("lots")}}), 400, "invalid_type");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("card")}, {QStringLiteral("tendered_minor"), 2000}}), 400, "invalid_field");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM orders")), orders);
    EXPECT_EQ(seatStatuses(*cashier, till.showId).value(QStringLiteral("A3")), QStringLiteral("held"));
    // Exact cash when nothing is said about the tender.
    const HttpResult exact = till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("cash")}});
    ASSERT_EQ(exact.status, 201) << exact.body.toStdString();
    EXPECT_EQ(field(exact.json(), "tendered_minor"), kStandard);
    EXPECT_EQ(field(exact.json(), "change_minor"), 0);
}

TEST(Till, SplitPaymentTakesCashAndCardAndRefundsBothParts)
{
    Till till;
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    ASSERT_EQ(till.openShift(*cashier, 0).status, 201);
    const QString holdId = till.hold(*cashier, {QStringLiteral("C1"), QStringLiteral("C2")}); // 2 × premium
    // The cash part must leave something for the card, and be covered by what was handed over.
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 2 * kPremium}}), 422, "invalid_split");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("split")}}), 400, "missing_field");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 1000},
                                                   {QStringLiteral("tendered_minor"), 500}}), 422, "insufficient_tender");
    auto kiosk = till.server.client(till.server.deviceToken());
    EXPECT_API_ERROR(till.order(*kiosk, till.hold(*kiosk, {QStringLiteral("D6")}), {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 100}}),
                     403, "payment_method_not_allowed");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM orders")), 0);

    const HttpResult created = till.order(*cashier, holdId, {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 1000},
                                                             {QStringLiteral("tendered_minor"), 2000}});
    ASSERT_EQ(created.status, 201) << created.body.toStdString();
    const QJsonObject order = created.json();
    EXPECT_EQ(order.value(QStringLiteral("payment_method")).toString(), QStringLiteral("split"));
    EXPECT_EQ(field(order, "cash_minor"), 1000);
    EXPECT_EQ(field(order, "card_minor"), 2 * kPremium - 1000);
    EXPECT_EQ(field(order, "change_minor"), 1000);
    // The card terminal is asked for the rest only.
    const QString intent = order.value(QStringLiteral("payment_intent_id")).toString();
    EXPECT_EQ(till.sim.client()->get("/v1/intents/" + intent.toUtf8()).json().value(QStringLiteral("amount_minor")).toInteger(), 2 * kPremium - 1000);
    ASSERT_EQ(till.sim.pay(intent, QStringLiteral("tok_visa")).status, 200);
    const HttpResult confirmed = till.confirm(*cashier, order);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
    const QJsonObject z = cashier->get("/api/v1/shifts/current").json();
    EXPECT_EQ(field(z, "sales.by_method.cash_minor"), 1000);
    EXPECT_EQ(field(z, "sales.by_method.card_minor"), 2 * kPremium - 1000);
    EXPECT_EQ(field(z, "sales.split_count"), 1);

    // A refund gives the card part back through the provider and the cash part from this drawer.
    const HttpResult cancelled = cashier->post("/api/v1/bookings/" + confirmed.json().value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel",
                                               QJsonObject{{QStringLiteral("reason"), QStringLiteral("wrong day")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    EXPECT_EQ(cancelled.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("REFUNDED"));
    EXPECT_EQ(till.sim.intentStatus(intent), QStringLiteral("refunded"));
    EXPECT_EQ(till.count(QStringLiteral("SELECT cash_minor FROM refunds")), 1000);
    const QJsonObject after = cashier->get("/api/v1/shifts/current").json();
    EXPECT_EQ(field(after, "refunds.cash_minor"), 1000);
    EXPECT_EQ(field(after, "refunds.card_minor"), 2 * kPremium - 1000);
    EXPECT_EQ(field(after, "expected_cash_minor"), 0);
}

TEST(Till, ReauthenticationGuardsRefundsOverridesAndTheDrawer)
{
    Till till;
    const qint64 soon = till.server.createShow(3, 4, QDateTime::currentDateTimeUtc().addSecs(3600)); // inside the 2 h cutoff; row A standard
    auto cashier = till.server.client(till.server.staffToken());
    // Opening a shift puts the float in the drawer: without a fresh re-authentication it is refused like the other
    // drawer operations, and nothing is opened or audited.
    EXPECT_API_ERROR(till.openShift(*cashier, 5000), 403, "reauth_required");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM shifts")), 0);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'shift.open'")), 0);
    ASSERT_EQ(till.reauth(*cashier, QStringLiteral("password"), password()).status, 200);
    ASSERT_EQ(till.openShift(*cashier, 5000).status, 201);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'shift.open'")), 1);
    // The elevation ends (as if its window had passed): what follows needs it again.
    till.server.scalar(QStringLiteral("UPDATE sessions SET elevated_until = NULL RETURNING 1"));
    till.server.context().auth.clearCache();
    const QJsonObject booking = till.sellCash(*cashier, {QStringLiteral("A1"), QStringLiteral("A2")}, 2500, soon);
    const QByteArray cancel = "/api/v1/bookings/" + booking.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel";
    const QJsonObject why{{QStringLiteral("reason"), QStringLiteral("projector broke")}};

    // Not re-authenticated: refused with a clear code, nothing changes.
    EXPECT_API_ERROR(cashier->post(cancel, why), 403, "reauth_required");
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("no_sale"), Till::kNoAmount), 403, "reauth_required");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM drawer_operations")), 0);

    // The cashier re-authenticates, but the start is too close: a cashier cannot override the policy.
    EXPECT_API_ERROR(till.reauth(*cashier, QStringLiteral("password"), QStringLiteral("wrong one")), 401, "invalid_credentials");
    ASSERT_EQ(till.reauth(*cashier, QStringLiteral("password"), password()).status, 200);
    EXPECT_API_ERROR(cashier->post(cancel, why), 422, "outside_cancel_policy");

    // A manager overrides, after entering their PIN again.
    const QString managerToken = till.server.staffToken(QStringLiteral("manager"));
    auto manager = till.server.client(managerToken);
    EXPECT_API_ERROR(manager->post(cancel, why), 403, "reauth_required");
    EXPECT_API_ERROR(till.reauth(*manager, QStringLiteral("pin"), QStringLiteral("4321")), 422, "no_pin");
    EXPECT_API_ERROR(manager->request("PUT", "/api/v1/sessions/current/pin", QJsonDocument(QJsonObject{{QStringLiteral("password"), password()}, {QStringLiteral("pin"), QStringLiteral("12ab")}}).toJson(),
                                      {{"Content-Type", "application/json"}}), 400, "invalid_pin");
    EXPECT_API_ERROR(manager->request("PUT", "/api/v1/sessions/current/pin", QJsonDocument(QJsonObject{{QStringLiteral("password"), QStringLiteral("guess")}, {QStringLiteral("pin"), QStringLiteral("4321")}}).toJson(),
                                      {{"Content-Type", "application/json"}}), 401, "invalid_credentials");
    ASSERT_EQ(manager->request("PUT", "/api/v1/sessions/current/pin", QJsonDocument(QJsonObject{{QStringLiteral("password"), password()}, {QStringLiteral("pin"), QStringLiteral("4321")}}).toJson(),
                               {{"Content-Type", "application/json"}}).status, 204);
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT pin_hash LIKE 'pbkdf2-sha256$%' FROM staff WHERE role = 'manager'")).toBool(), true);
    const HttpResult wrongPin = till.reauth(*manager, QStringLiteral("pin"), QStringLiteral("1234"));
    EXPECT_API_ERROR(wrongPin, 401, "invalid_credentials");
    EXPECT_EQ(field(wrongPin.json(), "attempts_left"), 4);
    EXPECT_API_ERROR(till.reauth(*manager, QStringLiteral("pin"), QString()), 400, "missing_field");
    EXPECT_API_ERROR(manager->post("/api/v1/sessions/reauth", QJsonObject{{QStringLiteral("pin"), QStringLiteral("4321")}, {QStringLiteral("password"), password()}}), 400, "missing_field");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM refunds")), 0);
    const HttpResult elevated = till.reauth(*manager, QStringLiteral("pin"), QStringLiteral("4321"));
    ASSERT_EQ(elevated.status, 200) << elevated.body.toStdString();
    EXPECT_GT(fromIso(elevated.json().value(QStringLiteral("elevated_until")).toString()), QDateTime::currentDateTimeUtc());
    const HttpResult overridden = manager->post(cancel, why);
    ASSERT_EQ(overridden.status, 200) << overridden.body.toStdString();
    EXPECT_EQ(overridden.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("REFUNDED"));
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT action || '|' || actor_role || '|' || reason FROM audit_log WHERE action LIKE 'booking.%'")).toString(),
              QStringLiteral("booking.cancel.override|manager|projector broke"));
    // The cash went back out of the drawer that took it (the manager has no shift of their own).
    const QJsonObject z = cashier->get("/api/v1/shifts/current").json();
    EXPECT_EQ(field(z, "refunds.cash_minor"), 2 * kStandard);
    EXPECT_EQ(field(z, "expected_cash_minor"), 5000);

    // An elevation does not last: once it lapses the guard is back.
    till.server.scalar(QStringLiteral("UPDATE sessions SET elevated_until = now() - interval '1 second' RETURNING 1"));
    till.server.context().auth.clearCache();
    EXPECT_API_ERROR(cashier->post("/api/v1/shifts/current/close", QJsonObject{{QStringLiteral("counted_cash_minor"), 5000}}), 403, "reauth_required");
}

TEST(Till, SessionsLockAfterInactivityAndWrongGuessesEndThem)
{
    Till till;
    const QString token = till.server.staffToken();
    auto cashier = till.server.client(token);
    EXPECT_EQ(cashier->get("/api/v1/shifts/current").status, 404); // signed in, no shift yet
    auto idle = [&till] {
        till.server.scalar(QStringLiteral("UPDATE sessions SET last_active_at = now() - interval '1 hour' RETURNING 1"));
        till.server.context().auth.clearCache();
    };
    idle();
    EXPECT_API_ERROR(cashier->get("/api/v1/shifts/current"), 401, "session_locked");
    EXPECT_API_ERROR(till.openShift(*cashier, 100), 401, "session_locked");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM shifts")), 0);
    ASSERT_EQ(till.reauth(*cashier, QStringLiteral("password"), password()).status, 200);
    EXPECT_EQ(cashier->get("/api/v1/shifts/current").status, 404); // unlocked

    // Activity keeps it unlocked: a request after the cache lifetime records it.
    const QDateTime before = till.server.scalar(QStringLiteral("SELECT last_active_at FROM sessions")).toDateTime();
    till.server.context().auth.clearCache();
    EXPECT_EQ(cashier->get("/api/v1/shifts/current").status, 404);
    EXPECT_GE(till.server.scalar(QStringLiteral("SELECT last_active_at FROM sessions")).toDateTime(), before);

    // Five wrong answers end a locked session for good.
    idle();
    for (int attempt = 1; attempt < store::AuthRepository::kMaxFailedReauths; ++attempt)
        EXPECT_API_ERROR(till.reauth(*cashier, QStringLiteral("password"), QStringLiteral("guess %1").arg(attempt)), 401, "invalid_credentials");
    EXPECT_API_ERROR(till.reauth(*cashier, QStringLiteral("password"), QStringLiteral("last guess")), 401, "session_ended");
    EXPECT_API_ERROR(till.reauth(*cashier, QStringLiteral("password"), password()), 401, "unauthorized");
    EXPECT_API_ERROR(cashier->get("/api/v1/shifts/current"), 401, "unauthorized");
}

TEST(Till, ZReportAddsUpAgainstTheBookings)
{
    Till till;
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("cash_in"), 500), 404, "no_open_shift");
    const HttpResult opened = till.openShift(*cashier, 20000);
    ASSERT_EQ(opened.status, 201) << opened.body.toStdString();
    EXPECT_API_ERROR(till.openShift(*cashier, 1), 409, "shift_already_open");
    const qint64 shiftId = field(opened.json(), "shift_id");

    // The shift's business: cash, card, split, a declined card (a void), drawer operations, a cash refund.
    till.sellCash(*cashier, {QStringLiteral("A1"), QStringLiteral("A2")}, 3000);                       // cash 2500, change 500
    ASSERT_EQ(till.sellCard(*cashier, {QStringLiteral("B1")}).status, 200);                            // card 1250
    {
        const HttpResult split = till.order(*cashier, till.hold(*cashier, {QStringLiteral("C1")}),
                                            {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 800}});
        ASSERT_EQ(split.status, 201);
        ASSERT_EQ(till.sim.pay(split.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
        ASSERT_EQ(till.confirm(*cashier, split.json()).status, 200);                                   // cash 800 + card 1000
    }
    EXPECT_EQ(till.sellCard(*cashier, {QStringLiteral("B2")}, QStringLiteral("tok_declined")).status, 402); // void 1250
    const QJsonObject refunded = till.sellCash(*cashier, {QStringLiteral("A3")}, kStandard);          // cash 1250, then refunded
    ASSERT_EQ(cashier->post("/api/v1/bookings/" + refunded.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel", QJsonObject{}).status, 200);
    ASSERT_EQ(till.drawer(*cashier, QStringLiteral("cash_in"), 5000).status, 201);
    ASSERT_EQ(till.drawer(*cashier, QStringLiteral("cash_out"), 2000, QStringLiteral("banked")).status, 201);
    const HttpResult noSale = till.drawer(*cashier, QStringLiteral("no_sale"), Till::kNoAmount, QStringLiteral("change for a customer"));
    ASSERT_EQ(noSale.status, 201) << noSale.body.toStdString();
    EXPECT_TRUE(noSale.json().value(QStringLiteral("open_drawer")).toBool());
    // A kiosk sale meanwhile is not the till's business.
    auto kiosk = till.server.client(till.server.deviceToken());
    const HttpResult kioskOrder = till.order(*kiosk, till.hold(*kiosk, {QStringLiteral("D1")}), {});
    ASSERT_EQ(till.sim.pay(kioskOrder.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
    ASSERT_EQ(till.confirm(*kiosk, kioskOrder.json()).status, 200);

    // The figures the till must show, from what the database holds for this shift's orders.
    const auto sum = [&till, shiftId](const char *expression, const char *from) {
        return till.count(QStringLiteral("SELECT coalesce(sum(%1), 0) FROM %2 WHERE o.shift_id = %3").arg(QLatin1String(expression), QLatin1String(from)).arg(shiftId));
    };
    const qint64 bookedTotal = sum("b.amount_minor", "orders o JOIN bookings b ON b.order_id = o.order_id");
    const qint64 bookedCash = sum("o.cash_minor", "orders o JOIN bookings b ON b.order_id = o.order_id");
    const qint64 refundedCash = sum("r.cash_minor", "refunds r JOIN orders o ON o.order_id = r.order_id");
    EXPECT_EQ(bookedTotal, 2 * kStandard + kStandard + kPremium + kStandard);
    EXPECT_EQ(bookedCash, 2 * kStandard + 800 + kStandard);
    EXPECT_EQ(refundedCash, kStandard);
    const qint64 expected = 20000 + bookedCash + 5000 - 2000 - refundedCash;

    const HttpResult notElevated = till.server.client(till.server.staffToken())->post("/api/v1/shifts/current/close", QJsonObject{{QStringLiteral("counted_cash_minor"), 1}});
    EXPECT_API_ERROR(notElevated, 403, "reauth_required");
    EXPECT_API_ERROR(cashier->post("/api/v1/shifts/current/close", QJsonObject{{QStringLiteral("counted_cash_minor"), -1}}), 400, "invalid_amount");
    const HttpResult closed = cashier->post("/api/v1/shifts/current/close", QJsonObject{{QStringLiteral("counted_cash_minor"), expected - 150},
                                                                                         {QStringLiteral("note"), QStringLiteral("one coin roll short")}});
    ASSERT_EQ(closed.status, 200) << closed.body.toStdString();
    const QJsonObject z = closed.json();
    EXPECT_EQ(z.value(QStringLiteral("state")).toString(), QStringLiteral("closed"));
    EXPECT_EQ(field(z, "sales.count"), 4);
    EXPECT_EQ(field(z, "sales.tickets"), 5);
    EXPECT_EQ(field(z, "sales.total_minor"), bookedTotal);
    EXPECT_EQ(field(z, "sales.by_method.cash_minor"), bookedCash);
    EXPECT_EQ(field(z, "sales.by_method.card_minor"), bookedTotal - bookedCash);
    EXPECT_EQ(field(z, "sales.change_given_minor"), 500);
    EXPECT_EQ(field(z, "voids.count"), 1);
    EXPECT_EQ(field(z, "voids.total_minor"), kStandard);
    EXPECT_EQ(field(z, "refunds.count"), 1);
    EXPECT_EQ(field(z, "refunds.cash_minor"), kStandard);
    EXPECT_EQ(field(z, "drawer.cash_in_minor"), 5000);
    EXPECT_EQ(field(z, "drawer.cash_out_minor"), 2000);
    EXPECT_EQ(field(z, "drawer.no_sale_count"), 1);
    EXPECT_EQ(field(z, "expected_cash_minor"), expected);
    EXPECT_EQ(field(z, "counted_cash_minor"), expected - 150);
    EXPECT_EQ(field(z, "over_short_minor"), -150);
    EXPECT_EQ(z.value(QStringLiteral("note")).toString(), QStringLiteral("one coin roll short"));

    // Closed once; the stored report is what the manager sees, filterable by cashier.
    EXPECT_API_ERROR(cashier->post("/api/v1/shifts/current/close", QJsonObject{{QStringLiteral("counted_cash_minor"), 0}}), 404, "no_open_shift");
    auto manager = till.server.client(till.server.staffToken(QStringLiteral("manager")));
    const QString name = z.value(QStringLiteral("cashier")).toObject().value(QStringLiteral("name")).toString();
    const HttpResult listed = manager->get("/api/v1/reports/shifts?cashier=" + name.toUtf8());
    ASSERT_EQ(listed.status, 200) << listed.body.toStdString();
    ASSERT_EQ(listed.jsonArray().size(), 1) << listed.body.toStdString();
    EXPECT_EQ(listed.jsonArray().first().toObject(), z);
    EXPECT_EQ(manager->get("/api/v1/reports/shifts?cashier=nobody").jsonArray().size(), 0);
    EXPECT_EQ(manager->get("/api/v1/reports/shifts?device_id=999").jsonArray().size(), 0);
    EXPECT_API_ERROR(manager->get("/api/v1/reports/shifts?device_id=x"), 400, "invalid_query");
    EXPECT_API_ERROR(manager->get("/api/v1/reports/shifts?from=2026-13-01"), 400, "invalid_query");
    // Every drawer operation and the open and close are in the audit log.
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT string_agg(action, ',' ORDER BY audit_id) FROM audit_log WHERE target = 'shift:%1'").arg(shiftId)).toString(),
              QStringLiteral("shift.open,drawer.cash_in,drawer.cash_out,drawer.no_sale,shift.close"));
    // A new shift starts from nothing.
    const HttpResult next = till.openShift(*cashier, 100);
    ASSERT_EQ(next.status, 201);
    EXPECT_EQ(field(next.json(), "expected_cash_minor"), 100);
}

TEST(Till, DrawerRefusesBadInputAndChangesNothing)
{
    Till till;
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    EXPECT_API_ERROR(till.openShift(*cashier, -1), 400, "invalid_amount");
    EXPECT_API_ERROR(cashier->post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), 0}, {QStringLiteral("currency"), QStringLiteral("eur")}}), 400, "invalid_currency");
    EXPECT_API_ERROR(cashier->post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), 0}, {QStringLiteral("currency"), QStringLiteral("EUR")}, {QStringLiteral("device_id"), 4242}}), 404, "device_not_found");
    EXPECT_API_ERROR(cashier->request("POST", "/api/v1/shifts", "{nope", {{"Content-Type", "application/json"}}), 400, "malformed_json");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM shifts")), 0);
    ASSERT_EQ(till.openShift(*cashier, 0).status, 201);
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("steal"), 100), 400, "invalid_value");
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("cash_out"), 0), 400, "invalid_amount");
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("cash_out"), -100), 400, "invalid_amount");
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("no_sale"), 100), 400, "invalid_amount");
    EXPECT_API_ERROR(till.drawer(*cashier, QStringLiteral("cash_in"), 100, QStringLiteral("  ")), 400, "missing_field");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM drawer_operations")), 0);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action LIKE 'drawer.%'")), 0);
}

TEST(Till, HouseHoldsKeepSeatsBackWithoutTouchingSoldOnes)
{
    Till till;
    auto manager = till.server.client(till.server.staffToken(QStringLiteral("manager")));
    auto cashier = till.server.client(till.server.staffToken());
    const QByteArray path = "/api/v1/shows/" + QByteArray::number(till.showId) + "/house-holds";
    till.sellCash(*cashier, {QStringLiteral("B1")}, kStandard);

    // A sold seat in the request: nothing is held (all or nothing), the sold seat is untouched.
    const HttpResult clash = manager->post(path, QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("B1"), QStringLiteral("B2")}},
                                                             {QStringLiteral("reason"), QStringLiteral("press")}});
    EXPECT_API_ERROR(clash, 409, "seats_unavailable");
    EXPECT_EQ(seatStatuses(*manager, till.showId).value(QStringLiteral("B1")), QStringLiteral("booked"));
    EXPECT_EQ(seatStatuses(*manager, till.showId).value(QStringLiteral("B2")), QStringLiteral("available"));
    EXPECT_API_ERROR(manager->post(path, seatsBody({QStringLiteral("A1")})), 400, "missing_field");
    EXPECT_API_ERROR(manager->post(path, QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("Z99")}}, {QStringLiteral("reason"), QStringLiteral("x")}}), 400, "unknown_seat");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action LIKE 'house_hold.%'")), 0);

    const HttpResult held = manager->post(path, QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A4"), QStringLiteral("A5"), QStringLiteral("A6")}},
                                                            {QStringLiteral("reason"), QStringLiteral("director and guests")}},
                                          {{"Idempotency-Key", "house-1"}});
    ASSERT_EQ(held.status, 200) << held.body.toStdString();
    const QString holdId = held.json().value(QStringLiteral("hold_id")).toString();
    EXPECT_GT(fromIso(held.json().value(QStringLiteral("expires_at")).toString()), QDateTime::currentDateTimeUtc().addDays(300));
    // A retry with the same key is the same hold, audited once.
    EXPECT_EQ(manager->post(path, QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A4"), QStringLiteral("A5"), QStringLiteral("A6")}},
                                              {QStringLiteral("reason"), QStringLiteral("director and guests")}},
                            {{"Idempotency-Key", "house-1"}}).json().value(QStringLiteral("hold_id")).toString(), holdId);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'house_hold.place'")), 1);
    // Nobody else can take them, and the reaper leaves them alone.
    EXPECT_API_ERROR(cashier->post(holdPath(till.showId), seatsBody({QStringLiteral("A5")})), 409, "seats_unavailable");
    EXPECT_EQ(till.server.context().holds.reapExpired(1000), 0);
    const QJsonArray listed = manager->get(path).jsonArray();
    ASSERT_EQ(listed.size(), 1);
    EXPECT_EQ(listed.first()[QStringLiteral("reason")].toString(), QStringLiteral("director and guests"));
    const QJsonObject occupancy = manager->get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(till.showId)).json();
    EXPECT_EQ(field(occupancy, "house_held"), 3);
    EXPECT_EQ(field(occupancy, "sold"), 1);

    EXPECT_API_ERROR(manager->del("/api/v1/house-holds/" + QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8()), 404, "hold_not_found");
    EXPECT_EQ(manager->del("/api/v1/house-holds/" + holdId.toUtf8() + "?reason=guests%20cancelled").status, 204);
    EXPECT_EQ(manager->del("/api/v1/house-holds/" + holdId.toUtf8()).status, 204); // again: harmless
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT string_agg(action || ':' || reason, ',' ORDER BY audit_id) FROM audit_log WHERE action LIKE 'house_hold.%'")).toString(),
              QStringLiteral("house_hold.place:director and guests,house_hold.release:guests cancelled"));
    EXPECT_EQ(seatStatuses(*manager, till.showId).value(QStringLiteral("A5")), QStringLiteral("available"));
    EXPECT_EQ(manager->get(path).jsonArray().size(), 0);
    // A cashier's own hold is not a house hold and cannot be released as one.
    const QString cashierHold = till.hold(*cashier, {QStringLiteral("A6")});
    EXPECT_API_ERROR(manager->del("/api/v1/house-holds/" + cashierHold.toUtf8()), 404, "hold_not_found");
}

TEST(Till, BookingsAreFoundByTheCustomersPhoneOrEmailByStaffOnly)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    // The contact goes with the order (any spelling of the same number or address) and onto the booking.
    auto sellTo = [&](const QStringList &seats, const QJsonObject &contact) {
        QJsonObject payment = contact;
        payment.insert(QStringLiteral("payment_method"), QStringLiteral("cash"));
        const HttpResult created = till.order(*cashier, till.hold(*cashier, seats), payment);
        EXPECT_EQ(created.status, 201) << created.body.toStdString();
        const HttpResult confirmed = till.confirm(*cashier, created.json());
        EXPECT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
        return confirmed.json().value(QStringLiteral("booking_ref")).toString();
    };
    const QString first = sellTo({QStringLiteral("A1")}, {{QStringLiteral("customer_phone"), QStringLiteral("+31 (6) 1234-5678")},
                                                          {QStringLiteral("customer_email"), QStringLiteral(" Ana.Sousa@Example.org ")}});
    const QString second = sellTo({QStringLiteral("A2"), QStringLiteral("A3")}, {{QStringLiteral("customer_phone"), QStringLiteral("+31612345678")}});
    const QString other = sellTo({QStringLiteral("B1")}, {{QStringLiteral("customer_email"), QStringLiteral("bo@example.org")}});
    sellTo({QStringLiteral("B2")}, {});
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings WHERE customer_phone = '+31612345678'")), 2);

    auto refs = [](const HttpResult &r) {
        QStringList out;
        for (const QJsonValue &row : r.json().value(QStringLiteral("bookings")).toArray())
            out.append(row.toObject().value(QStringLiteral("booking_ref")).toString());
        return out;
    };
    const HttpResult byPhone = cashier->get("/api/v1/customers/bookings?phone=%2B31%20612%2034%2056%2078");
    ASSERT_EQ(byPhone.status, 200) << byPhone.body.toStdString();
    EXPECT_EQ(refs(byPhone), (QStringList{second, first})); // newest first
    const HttpResult byEmail = cashier->get("/api/v1/customers/bookings?email=ANA.SOUSA%40example.org");
    ASSERT_EQ(byEmail.status, 200) << byEmail.body.toStdString();
    EXPECT_EQ(refs(byEmail), QStringList{first});
    EXPECT_EQ(byEmail.json().value(QStringLiteral("bookings")).toArray().first().toObject().value(QStringLiteral("customer_phone")).toString(),
              QStringLiteral("+31612345678"));
    EXPECT_EQ(refs(cashier->get("/api/v1/customers/bookings?email=bo%40example.org")), QStringList{other});
    EXPECT_TRUE(refs(cashier->get("/api/v1/customers/bookings?email=nobody%40example.org")).isEmpty());

    // Bad input: a clear 400 each.
    EXPECT_API_ERROR(cashier->get("/api/v1/customers/bookings"), 400, "invalid_query");
    EXPECT_API_ERROR(cashier->get("/api/v1/customers/bookings?phone=123&email=a%40b.org"), 400, "invalid_query");
    EXPECT_API_ERROR(cashier->get("/api/v1/customers/bookings?phone=12ab34567"), 400, "invalid_phone");
    EXPECT_API_ERROR(cashier->get("/api/v1/customers/bookings?phone=123"), 400, "invalid_phone");
    EXPECT_API_ERROR(cashier->get("/api/v1/customers/bookings?email=not-an-address"), 400, "invalid_email");
    // Devices never search customers.
    EXPECT_EQ(till.server.client(till.server.deviceToken(QStringLiteral("till")))->get("/api/v1/customers/bookings?phone=31612345678").status, 403);
    EXPECT_EQ(till.server.client(till.server.deviceToken(QStringLiteral("kiosk")))->get("/api/v1/customers/bookings?phone=31612345678").status, 403);

    // A bad contact on the order is refused and nothing is written.
    const QString holdId = till.hold(*cashier, {QStringLiteral("C1")});
    const qint64 orders = till.count(QStringLiteral("SELECT count(*) FROM orders"));
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("customer_email"), QStringLiteral("ana@")}}), 400, "invalid_email");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("customer_phone"), QStringLiteral("call me")}}), 400, "invalid_phone");
    EXPECT_API_ERROR(till.order(*cashier, holdId, {{QStringLiteral("customer_phone"), 612345678}}), 400, "invalid_type");
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM orders")), orders);

}
