// SPDX-License-Identifier: AGPL-3.0-or-later
// Every staff action is in the append-only audit log — sign-in, sign-out, re-authentication (right and
// wrong), PIN changes, sales and check-ins made by staff — each once, with who, what, when and from which device.
#include "store/authrepository.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
struct AuditedTill {
    TestServer server;
    QString tillToken;
    qint64 tillId = 0;

    AuditedTill()
    {
        tillToken = server.deviceToken(QStringLiteral("till"));
        tillId = server.scalar(QStringLiteral("SELECT max(device_id) FROM devices")).toLongLong();
        QString error;
        if (!server.context().auth.addStaff(QStringLiteral("sam"), Role::Cashier, QString::fromLatin1(TestServer::kStaffPassword), &error))
            ADD_FAILURE() << qPrintable(error);
    }
    QJsonObject credentials(const QString &password = QString::fromLatin1(TestServer::kStaffPassword)) const
    {
        return {{QStringLiteral("name"), QStringLiteral("sam")}, {QStringLiteral("password"), password}};
    }
    /** @brief Sign sam in on the till (its device token with the sign-in); the session token. */
    QString signInOnTill()
    {
        const HttpResult r = server.client(tillToken)->post("/api/v1/sessions", credentials());
        EXPECT_EQ(r.status, 201) << r.body.constData();
        return r.json().value(QStringLiteral("token")).toString();
    }
    qint64 rows(const QString &where = QStringLiteral("true"))
    {
        return server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE %1").arg(where)).toLongLong();
    }
    /** @brief "actor|actor_name|actor_role|device_id|target" of the one row of @p action. */
    QString row(const QString &action)
    {
        return server
            .scalar(QStringLiteral("SELECT concat_ws('|', actor, actor_name, actor_role, device_id, target) FROM audit_log WHERE action = '%1'").arg(action))
            .toString();
    }
};
} // namespace

TEST(StaffAudit, SignInSignOutReauthAndPinChangesEachLeaveOneRowNamingTheDevice)
{
    AuditedTill f;
    // Failed sign-ins are not audited: anyone may send them without a token, and the log can never be pruned. (Four:
    // the fifth wrong password for one name would lock it out, and that lockout is audited; see tst_signin.)
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(f.server.client(f.tillToken)->post("/api/v1/sessions", f.credentials(QStringLiteral("guess %1").arg(i))).status, 401);
        EXPECT_EQ(f.server.client()->post("/api/v1/sessions", {{"name", QStringLiteral("nobody%1").arg(i)}, {"password", "x"}}).status, 401);
    }
    EXPECT_EQ(f.rows(), 0);

    const QString token = f.signInOnTill();
    ASSERT_FALSE(token.isEmpty());
    const qint64 sessionId = f.server.scalar(QStringLiteral("SELECT max(session_id) FROM sessions")).toLongLong();
    const QString actor = QStringLiteral("session:%1").arg(sessionId);
    const QString who = QStringLiteral("%1|sam|cashier|%2|%1").arg(actor).arg(f.tillId);
    EXPECT_EQ(f.rows(), 1);
    EXPECT_EQ(f.row(QStringLiteral("session.sign_in")), who);

    auto sam = f.server.client(token);
    // A PIN change: one row, and neither the PIN nor the password is in it.
    const HttpResult badPin = sam->request("PUT", "/api/v1/sessions/current/pin", R"({"password": "correct horse battery", "pin": "12"})",
                                           {{"Content-Type", "application/json"}});
    EXPECT_EQ(badPin.status, 400);
    const HttpResult wrongPassword = sam->request("PUT", "/api/v1/sessions/current/pin", R"({"password": "not it", "pin": "4321"})",
                                                  {{"Content-Type", "application/json"}});
    EXPECT_EQ(wrongPassword.status, 401);
    EXPECT_EQ(f.rows(), 1) << "refused PIN changes are not audited";
    const HttpResult pin = sam->request("PUT", "/api/v1/sessions/current/pin", R"({"password": "correct horse battery", "pin": "4321"})",
                                        {{"Content-Type", "application/json"}});
    ASSERT_EQ(pin.status, 204) << pin.body.constData();
    EXPECT_EQ(f.row(QStringLiteral("session.pin_change")), who);
    EXPECT_EQ(f.rows(QStringLiteral("details::text LIKE '%4321%' OR details::text LIKE '%horse%'")), 0);

    // Re-authentication with the PIN, then a wrong password: one row each, the method and attempts left recorded.
    ASSERT_EQ(sam->post("/api/v1/sessions/reauth", {{"pin", "4321"}}).status, 200);
    EXPECT_EQ(f.row(QStringLiteral("session.reauth")), who);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT details->>'method' FROM audit_log WHERE action = 'session.reauth'")).toString(), QStringLiteral("pin"));
    EXPECT_EQ(sam->post("/api/v1/sessions/reauth", {{"password", "wrong"}}).status, 401);
    EXPECT_EQ(f.row(QStringLiteral("session.reauth_failed")), who);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT details->>'attempts_left' FROM audit_log WHERE action = 'session.reauth_failed'")).toInt(),
              store::AuthRepository::kMaxFailedReauths - 1);
    // A malformed re-authentication is refused before anything is checked: no row.
    EXPECT_EQ(sam->post("/api/v1/sessions/reauth", {{"password", "x"}, {"pin", "1234"}}).status, 400);
    EXPECT_EQ(f.rows(), 4);

    ASSERT_EQ(sam->del("/api/v1/sessions/current").status, 204);
    EXPECT_EQ(f.row(QStringLiteral("session.sign_out")), who);
    EXPECT_EQ(f.rows(), 5);
    // The ended session cannot sign out again (401), so there is no second row.
    EXPECT_EQ(sam->del("/api/v1/sessions/current").status, 401);
    EXPECT_EQ(f.rows(), 5);
    EXPECT_EQ(f.rows(QStringLiteral("device_id = %1 AND actor = '%2'").arg(f.tillId).arg(actor)), 5);

    // The audit report shows them, newest first.
    auto manager = f.server.client(f.server.staffToken(QStringLiteral("manager")));
    const QJsonArray report = manager->get("/api/v1/reports/audit?actor=" + actor.toUtf8()).json()[QStringLiteral("rows")].toArray();
    ASSERT_EQ(report.size(), 5);
    EXPECT_EQ(report[0][QStringLiteral("action")].toString(), QStringLiteral("session.sign_out"));
    EXPECT_EQ(report[4][QStringLiteral("action")].toString(), QStringLiteral("session.sign_in"));
    EXPECT_EQ(report[4][QStringLiteral("device_id")].toInteger(), f.tillId);
}

TEST(StaffAudit, TheFifthWrongReauthEndsTheSessionAndEveryAttemptIsOneRow)
{
    AuditedTill f;
    auto sam = f.server.client(f.signInOnTill());
    for (int i = 1; i < store::AuthRepository::kMaxFailedReauths; ++i)
        EXPECT_EQ(sam->post("/api/v1/sessions/reauth", {{"password", "wrong"}}).status, 401);
    const HttpResult last = sam->post("/api/v1/sessions/reauth", {{"password", "wrong"}});
    EXPECT_EQ(last.json().value(QStringLiteral("error")).toString(), QStringLiteral("session_ended"));
    EXPECT_EQ(f.rows(QStringLiteral("action = 'session.reauth_failed'")), store::AuthRepository::kMaxFailedReauths);
    EXPECT_EQ(f.rows(QStringLiteral("action = 'session.reauth_failed' AND details->>'session_ended' = 'true'")), 1);
    // The session is gone: more guesses are refused before they reach the password check, and leave no row.
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(sam->post("/api/v1/sessions/reauth", {{"password", "wrong"}}).status, 401);
    EXPECT_EQ(f.rows(QStringLiteral("action = 'session.reauth_failed'")), store::AuthRepository::kMaxFailedReauths);
}

TEST(StaffAudit, StaffSalesAndCheckInsAreAuditedOnceDevicesActingThemselvesAreNot)
{
    AuditedTill f;
    const qint64 showId = f.server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600)); // doors open
    auto sam = f.server.client(f.signInOnTill());
    const qint64 before = f.rows();

    // A cash sale by the cashier: one order.create row with the amount, the tender and the change.
    const HttpResult hold = sam->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold", {{"seat_ids", QJsonArray{"A1", "A2"}}});
    ASSERT_EQ(hold.status, 200) << hold.body.constData();
    const HttpResult order = sam->post("/api/v1/orders", {{"hold_id", hold.json()[QStringLiteral("hold_id")]}, {"payment_method", "cash"}, {"tendered_minor", 5000}});
    ASSERT_EQ(order.status, 201) << order.body.constData();
    const QString orderId = order.json()[QStringLiteral("order_id")].toString();
    const qint64 amount = order.json()[QStringLiteral("amount_minor")].toInteger();
    EXPECT_EQ(f.rows() - before, 1);
    const QString actor = f.server.scalar(QStringLiteral("SELECT actor FROM audit_log WHERE action = 'session.sign_in'")).toString();
    EXPECT_EQ(f.row(QStringLiteral("order.create")), QStringLiteral("%1|sam|cashier|%2|order:%3").arg(actor).arg(f.tillId).arg(orderId));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT concat_ws('|', details->>'payment_method', details->>'amount_minor', details->>'tendered_minor', "
                                             "details->>'change_minor', details->>'show_id') FROM audit_log WHERE action = 'order.create'"))
                  .toString(),
              QStringLiteral("cash|%1|5000|%2|%3").arg(amount).arg(5000 - amount).arg(showId));
    // Confirming it (twice: a retry) adds no row: the sale was audited when it was taken.
    const QByteArray confirmPath = "/api/v1/orders/" + orderId.toLatin1() + "/confirm";
    const QJsonObject intent{{"payment_intent_id", order.json()[QStringLiteral("payment_intent_id")]}};
    const HttpResult confirmed = sam->post(confirmPath, intent);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.constData();
    EXPECT_EQ(sam->post(confirmPath, intent).status, 200);
    EXPECT_EQ(f.rows() - before, 1);
    // A refused order (unknown hold) leaves no row.
    EXPECT_EQ(sam->post("/api/v1/orders", {{"hold_id", "00000000-0000-0000-0000-000000000000"}, {"payment_method", "cash"}}).status, 404);
    EXPECT_EQ(f.rows() - before, 1);

    // A check-in by the cashier: one row with the result; the same scan uploaded again (same nonce) adds none.
    const QJsonObject ticket = confirmed.json().value(QStringLiteral("tickets")).toArray().first().toObject();
    const QString qr = ticket.value(QStringLiteral("qr")).toString();
    const QString ticketId = ticket.value(QStringLiteral("ticket_id")).toString();
    const QJsonObject scan{{"qr", qr}, {"nonce", "door-scan-1"}, {"scanned_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    const HttpResult admitted = sam->post("/api/v1/checkin", scan);
    ASSERT_EQ(admitted.status, 200) << admitted.body.constData();
    EXPECT_EQ(admitted.json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    EXPECT_EQ(sam->post("/api/v1/checkin", scan).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    EXPECT_EQ(f.rows(QStringLiteral("action = 'ticket.checkin'")), 1);
    EXPECT_EQ(f.row(QStringLiteral("ticket.checkin")), QStringLiteral("%1|sam|cashier|%2|ticket:%3").arg(actor).arg(f.tillId).arg(ticketId));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT details->>'result' FROM audit_log WHERE action = 'ticket.checkin'")).toString(), QStringLiteral("ok"));
    // A second scan of the same ticket (new nonce) is a second action: already redeemed, one more row.
    QJsonObject again = scan;
    again[QStringLiteral("nonce")] = QStringLiteral("door-scan-2");
    EXPECT_EQ(sam->post("/api/v1/checkin", again).json()[QStringLiteral("result")].toString(), QStringLiteral("already_redeemed"));
    EXPECT_EQ(f.rows(QStringLiteral("action = 'ticket.checkin'")), 2);
    // Malformed scans are refused and leave no row.
    EXPECT_EQ(sam->post("/api/v1/checkin", {{"qr", "not a ticket"}, {"nonce", "door-scan-3"}, {"scanned_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}}).status,
              400);
    EXPECT_EQ(f.rows(QStringLiteral("action = 'ticket.checkin'")), 2);

    // The till device selling and scanning as itself (no staff signed in) is not a staff action: no rows.
    const qint64 staffRows = f.rows();
    auto till = f.server.client(f.tillToken);
    const HttpResult tillHold = till->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold", {{"seat_ids", QJsonArray{"B1"}}});
    ASSERT_EQ(tillHold.status, 200) << tillHold.body.constData();
    ASSERT_EQ(till->post("/api/v1/orders", {{"hold_id", tillHold.json()[QStringLiteral("hold_id")]}, {"payment_method", "cash"}}).status, 201);
    QJsonObject tillScan = scan;
    tillScan[QStringLiteral("nonce")] = QStringLiteral("door-scan-4");
    EXPECT_EQ(till->post("/api/v1/checkin", tillScan).status, 200);
    EXPECT_EQ(f.rows(), staffRows);
}
