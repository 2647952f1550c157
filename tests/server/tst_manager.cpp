// SPDX-License-Identifier: AGPL-3.0-or-later
// Manager routes: creating and editing shows, device heartbeats and the fleet, the append-only audit log.
#include "store/staffrepository.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <functional>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
QByteArray api(qint64 showId, const char *suffix = "")
{
    return "/api/v1/shows/" + QByteArray::number(showId) + suffix;
}

QString isoIn(qint64 seconds)
{
    return QDateTime::currentDateTimeUtc().addSecs(seconds).toString(Qt::ISODate);
}

class ManagerRoutes : public ::testing::Test
{
protected:
    void SetUp() override
    {
        showId = server.createShow(4, 8);
        screenId = server.scalar(QStringLiteral("SELECT screen_id FROM shows WHERE show_id = %1").arg(showId)).toLongLong();
        movieId = server.lastMovieId();
        manager = server.client(server.staffToken(QStringLiteral("manager")));
    }
    QJsonObject newShow() const
    {
        return {{QStringLiteral("movie_id"), movieId},
                {QStringLiteral("screen_id"), screenId},
                {QStringLiteral("starts_at"), isoIn(3 * 86400)},
                {QStringLiteral("currency"), QStringLiteral("EUR")},
                {QStringLiteral("price_tiers"), QJsonObject{{QStringLiteral("standard"), 1100}, {QStringLiteral("premium"), 1600}}}};
    }
    qint64 count(const QString &table)
    {
        return server.scalar(QStringLiteral("SELECT count(*) FROM %1").arg(table)).toLongLong();
    }

    TestServer server;
    qint64 showId = 0;
    qint64 screenId = 0;
    qint64 movieId = 0;
    std::unique_ptr<HttpClient> manager;
};
} // namespace

TEST_F(ManagerRoutes, CreatesShowWithSeatsAndAudit)
{
    const HttpResult created = manager->post("/api/v1/shows", newShow());
    ASSERT_EQ(created.status, 201) << created.body.constData();
    const qint64 newId = created.json().value(QStringLiteral("show_id")).toInteger();
    EXPECT_EQ(created.json().value(QStringLiteral("price_tiers")).toObject().value(QStringLiteral("premium")).toInt(), 1600);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'available'").arg(newId)).toInt(), 32);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'show.create' AND target = 'show:%1'").arg(newId)).toInt(), 1);

    // The new show sells: a kiosk can hold one of its seats.
    auto kiosk = server.client(server.deviceToken());
    EXPECT_EQ(kiosk->post(api(newId, "/hold"), {{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A2")}}}).status, 200);
}

TEST_F(ManagerRoutes, RefusesBadShowsAndChangesNothing)
{
    const qint64 shows = count(QStringLiteral("shows"));
    const qint64 audits = count(QStringLiteral("audit_log"));
    auto expect = [&](QJsonObject body, int status, const char *code) {
        const HttpResult result = manager->post("/api/v1/shows", body);
        EXPECT_EQ(result.status, status) << code << " " << result.body.constData();
        EXPECT_EQ(result.json().value(QStringLiteral("error")).toString(), QLatin1String(code)) << result.body.constData();
    };
    QJsonObject body = newShow();
    body.remove(QStringLiteral("starts_at"));
    expect(body, 400, "missing_field");
    body = newShow();
    body[QStringLiteral("starts_at")] = QStringLiteral("next tuesday");
    expect(body, 400, "invalid_time");
    body[QStringLiteral("starts_at")] = QStringLiteral("2030-01-01T10:00:00"); // no offset: ambiguous
    expect(body, 400, "invalid_time");
    body = newShow();
    body[QStringLiteral("currency")] = QStringLiteral("eur");
    expect(body, 400, "invalid_currency");
    body = newShow();
    body[QStringLiteral("price_tiers")] = QJsonObject{{QStringLiteral("standard"), 1100}};
    expect(body, 400, "missing_price");
    body[QStringLiteral("price_tiers")] = QJsonObject{{QStringLiteral("standard"), -5}, {QStringLiteral("premium"), 1}};
    expect(body, 400, "invalid_price");
    body[QStringLiteral("price_tiers")] = QJsonObject{{QStringLiteral("standard"), 12.5}, {QStringLiteral("premium"), 1}};
    expect(body, 400, "invalid_price");
    body = newShow();
    body[QStringLiteral("movie_id")] = QStringLiteral("7");
    expect(body, 400, "invalid_type");
    body = newShow();
    body[QStringLiteral("movie_id")] = 999999;
    expect(body, 404, "movie_not_found");
    body = newShow();
    body[QStringLiteral("screen_id")] = 999999;
    expect(body, 404, "screen_not_found");
    body = newShow();
    body[QStringLiteral("starts_at")] = isoIn(-3600);
    expect(body, 422, "starts_in_past");
    body = newShow();
    body[QStringLiteral("sales_open_at")] = isoIn(4 * 86400);
    expect(body, 400, "invalid_sales_window");
    EXPECT_EQ(manager->request("POST", "/api/v1/shows", "{\"movie_id\": ").status, 400);

    // Roles: only managers and admins create shows.
    for (const QString &token : {server.deviceToken(), server.deviceToken(QStringLiteral("till")), server.staffToken(QStringLiteral("cashier"))}) {
        auto other = server.client(token);
        EXPECT_EQ(other->post("/api/v1/shows", newShow()).status, 403);
    }
    EXPECT_EQ(server.client(server.staffToken(QStringLiteral("admin")))->post("/api/v1/shows", newShow()).status, 201);
    EXPECT_EQ(count(QStringLiteral("shows")), shows + 1);     // only the admin's
    EXPECT_EQ(count(QStringLiteral("audit_log")), audits + 1);
}

TEST_F(ManagerRoutes, ANewShowWithoutACurrencySellsInItsVenuesAndShowsCarryTheirZone)
{
    // The fixture's venue has no currency set: a show there must name one, and nothing is created.
    const qint64 shows = count(QStringLiteral("shows"));
    QJsonObject body = newShow();
    body.remove(QStringLiteral("currency"));
    HttpResult refused = manager->post("/api/v1/shows", body);
    EXPECT_EQ(refused.status, 400) << refused.body.constData();
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("missing_field"));
    EXPECT_EQ(count(QStringLiteral("shows")), shows);

    // A cinema in Pune: rupees, Asia/Kolkata.
    server.scalar(QStringLiteral("UPDATE venues SET currency = 'INR' WHERE venue_id = (SELECT venue_id FROM screens WHERE screen_id = %1) RETURNING 1")
                      .arg(screenId));
    server.scalar(QStringLiteral("UPDATE cities SET time_zone = 'Asia/Kolkata' RETURNING 1"));
    const HttpResult created = manager->post("/api/v1/shows", body);
    ASSERT_EQ(created.status, 201) << created.body.constData();
    EXPECT_EQ(created.json().value(QStringLiteral("currency")).toString(), QStringLiteral("INR"));
    EXPECT_EQ(created.json().value(QStringLiteral("time_zone")).toString(), QStringLiteral("Asia/Kolkata"));
    EXPECT_EQ(created.json().value(QStringLiteral("venue")).toObject().value(QStringLiteral("currency")).toString(), QStringLiteral("INR"));
    const qint64 newId = created.json().value(QStringLiteral("show_id")).toInteger();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT currency FROM shows WHERE show_id = %1").arg(newId)).toString(), QStringLiteral("INR"));

    // A currency given still wins over the venue's; a null one is the venue's; a bad one is refused.
    EXPECT_EQ(manager->post("/api/v1/shows", newShow()).json().value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
    body[QStringLiteral("currency")] = QJsonValue::Null;
    EXPECT_EQ(manager->post("/api/v1/shows", body).json().value(QStringLiteral("currency")).toString(), QStringLiteral("INR"));
    body[QStringLiteral("currency")] = QString();
    EXPECT_EQ(manager->post("/api/v1/shows", body).json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_currency"));

    // The list of a movie's shows and the single show say the same.
    const HttpResult one = manager->get(api(newId));
    EXPECT_EQ(one.json().value(QStringLiteral("time_zone")).toString(), QStringLiteral("Asia/Kolkata"));
}

TEST_F(ManagerRoutes, EditNeverTouchesHeldOrSoldSeats)
{
    auto kiosk = server.client(server.deviceToken());
    ASSERT_EQ(kiosk->post(api(showId, "/hold"), {{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("B3"), QStringLiteral("B4")}}}).status, 200);
    const QString seatsBefore = server.scalar(QStringLiteral("SELECT string_agg(seat_id || status::text || coalesce(held_by::text, ''), ',' ORDER BY seat_id) "
                                                            "FROM show_seats WHERE show_id = %1").arg(showId)).toString();

    const HttpResult edited = manager->request("PATCH", api(showId),
        R"({"price_tiers": {"standard": 1400}, "starts_at": ")" + isoIn(2 * 86400).toUtf8() + R"(", "reason": "evening price"})");
    ASSERT_EQ(edited.status, 200) << edited.body.constData();
    EXPECT_EQ(edited.json().value(QStringLiteral("price_tiers")).toObject().value(QStringLiteral("standard")).toInt(), 1400);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(seat_id || status::text || coalesce(held_by::text, ''), ',' ORDER BY seat_id) "
                                           "FROM show_seats WHERE show_id = %1").arg(showId)).toString(), seatsBefore);
    // The seat map shows the new price at once (its cached layout was dropped).
    const QJsonArray seats = kiosk->get(api(showId, "/seatmap")).json().value(QStringLiteral("seats")).toArray();
    bool checked = false;
    for (const QJsonValue &seat : seats) {
        if (seat[QStringLiteral("seat_id")].toString() == QLatin1String("A5")) {
            EXPECT_EQ(seat[QStringLiteral("price_minor")].toInt(), 1400);
            checked = true;
        }
        if (seat[QStringLiteral("seat_id")].toString() == QLatin1String("B3")) {
            EXPECT_EQ(seat[QStringLiteral("status")].toString(), QStringLiteral("held"));
        }
    }
    EXPECT_TRUE(checked);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT reason FROM audit_log WHERE action = 'show.update'")).toString(), QStringLiteral("evening price"));

    const qint64 audits = count(QStringLiteral("audit_log"));
    EXPECT_EQ(manager->request("PATCH", api(showId), R"({"screen_id": 3})").status, 400);
    EXPECT_EQ(manager->request("PATCH", api(showId), R"({"waiting_room": "yes"})").status, 400);
    EXPECT_EQ(manager->request("PATCH", api(showId), R"({"sales_open_at": ")" + isoIn(5 * 86400).toUtf8() + "\"}").status, 400);
    EXPECT_EQ(manager->request("PATCH", api(999999), R"({"waiting_room": true})").status, 404);
    EXPECT_EQ(kiosk->request("PATCH", api(showId), R"({"waiting_room": true})").status, 403);
    EXPECT_EQ(count(QStringLiteral("audit_log")), audits);
    EXPECT_EQ(manager->request("PATCH", api(showId), R"({"waiting_room": true})").status, 200);
    EXPECT_TRUE(server.scalar(QStringLiteral("SELECT waiting_room FROM shows WHERE show_id = %1").arg(showId)).toBool());

    // A show that has started cannot be edited.
    const qint64 started = server.createShow(1, 2, QDateTime::currentDateTimeUtc().addSecs(-60), QDateTime::currentDateTimeUtc().addSecs(-3600));
    EXPECT_EQ(manager->request("PATCH", api(started), R"({"waiting_room": true})").status, 422);
}

TEST_F(ManagerRoutes, AHeldSeatKeepsThePriceItWasHeldAtThroughAPriceEdit)
{
    // createShow prices: rows before the last two standard (1250), the last two premium (1800).
    const qint64 standard = server.scalar(QStringLiteral("SELECT amount_minor FROM show_prices WHERE show_id = %1 AND tier = 'standard'").arg(showId)).toLongLong();
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    auto holdSeats = [&](const QStringList &seats) {
        const HttpResult r = till->post(api(showId, "/hold"), QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
        EXPECT_EQ(r.status, 200) << r.body.constData();
        return r.json().value(QStringLiteral("hold_id")).toString();
    };
    auto orderAmount = [&](const QString &holdId) {
        const HttpResult r = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), holdId}, {QStringLiteral("payment_method"), QStringLiteral("cash")}});
        EXPECT_EQ(r.status, 201) << r.body.constData();
        return r.json().value(QStringLiteral("amount_minor")).toInteger();
    };
    const QString before = holdSeats({QStringLiteral("A1"), QStringLiteral("A2")});
    ASSERT_EQ(manager->request("PATCH", api(showId), R"({"price_tiers": {"standard": 2000}, "reason": "premiere night"})").status, 200);
    ASSERT_EQ(manager->request("PATCH", api(showId), R"({"price_tiers": {"standard": 2100}, "reason": "again"})").status, 200);
    const QString after = holdSeats({QStringLiteral("A3")});
    // Held before the edits: charged what it was held at; held after: the newest price.
    EXPECT_EQ(orderAmount(before), 2 * standard);
    EXPECT_EQ(orderAmount(after), 2100);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT amount_minor FROM show_prices WHERE show_id = %1 AND tier = 'standard'").arg(showId)).toLongLong(), 2100);
}

TEST_F(ManagerRoutes, HeartbeatsFeedTheFleetView)
{
    auto kiosk = server.client(server.deviceToken());
    const QJsonObject beat{{QStringLiteral("queue_length"), 3}, {QStringLiteral("printer_state"), QStringLiteral("paper_low")},
                           {QStringLiteral("app_version"), QStringLiteral("0.1.0")}};
    ASSERT_EQ(kiosk->post("/api/v1/devices/heartbeat", beat).status, 200);
    QJsonObject bad = beat;
    bad[QStringLiteral("printer_state")] = QStringLiteral("on fire");
    EXPECT_EQ(kiosk->post("/api/v1/devices/heartbeat", bad).status, 400);
    bad = beat;
    bad[QStringLiteral("queue_length")] = -1;
    EXPECT_EQ(kiosk->post("/api/v1/devices/heartbeat", bad).status, 400);
    EXPECT_EQ(manager->post("/api/v1/devices/heartbeat", beat).status, 403); // people do not heartbeat

    EXPECT_EQ(kiosk->get("/api/v1/devices").status, 403);
    const HttpResult fleet = manager->get("/api/v1/devices");
    ASSERT_EQ(fleet.status, 200);
    int online = 0;
    for (const QJsonValue &device : fleet.jsonArray()) {
        if (device[QStringLiteral("online")].toBool()) {
            ++online;
            EXPECT_EQ(device[QStringLiteral("queue_length")].toInt(), 3);
            EXPECT_EQ(device[QStringLiteral("printer_state")].toString(), QStringLiteral("paper_low"));
        }
    }
    EXPECT_EQ(online, 1); // the bad heartbeats changed nothing, the other devices never reported
}

TEST_F(ManagerRoutes, KioskSendsItsReconciliationSummaryAndManagersReadIt)
{
    const QString kioskToken = server.deviceToken();
    auto kiosk = server.client(kioskToken);
    auto other = server.client(server.deviceToken(QStringLiteral("till")));
    const QJsonObject summary{
        {QStringLiteral("finished_at"), QStringLiteral("2026-11-30T06:00:00.000+01:00")},
        {QStringLiteral("complete"), false},
        {QStringLiteral("tickets"), QJsonObject{{QStringLiteral("confirmed"), 7}, {QStringLiteral("voided"), 1}, {QStringLiteral("unknown"), 1}}},
        {QStringLiteral("payments"),
         QJsonObject{{QStringLiteral("confirmed"), 4}, {QStringLiteral("refund_due"), 1}, {QStringLiteral("pending"), 0}, {QStringLiteral("unknown"), 0}}},
        {QStringLiteral("problems"),
         QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("payment")}, {QStringLiteral("id"), QStringLiteral("pi_42")},
                                {QStringLiteral("booking_ref"), QString()}, {QStringLiteral("state"), QStringLiteral("refund_due")},
                                {QStringLiteral("reason"), QStringLiteral("The seats could not be kept (hold_lost).")},
                                {QStringLiteral("injected"), QStringLiteral("dropped by the server")}},
                    QJsonObject{{QStringLiteral("kind"), QStringLiteral("ticket")}, {QStringLiteral("id"), QStringLiteral("t-1")},
                                {QStringLiteral("booking_ref"), QStringLiteral("MQ7K2P")}, {QStringLiteral("state"), QStringLiteral("voided")},
                                {QStringLiteral("reason"), QStringLiteral("The booking was refunded.")}}}},
        {QStringLiteral("problems_total"), 3}};
    QJsonObject beat{{QStringLiteral("queue_length"), 0}, {QStringLiteral("printer_state"), QStringLiteral("ok")},
                     {QStringLiteral("app_version"), QStringLiteral("0.2.0")}, {QStringLiteral("reconciliation"), summary}};
    ASSERT_EQ(kiosk->post("/api/v1/devices/heartbeat", beat).status, 200);
    EXPECT_EQ(other->post("/api/v1/devices/heartbeat", QJsonObject{{QStringLiteral("queue_length"), 0}, {QStringLiteral("printer_state"), QStringLiteral("ok")},
                                                                    {QStringLiteral("app_version"), QStringLiteral("0.2.0")}})
                  .status,
              200);
    auto reconciliationOf = [&](const QString &version, const char *role) {
        const HttpResult fleet = manager->get("/api/v1/devices");
        EXPECT_EQ(fleet.status, 200);
        for (const QJsonValue &device : fleet.jsonArray()) {
            if (device[QStringLiteral("app_version")].toString() == version && device[QStringLiteral("role")].toString() == QLatin1String(role))
                return device.toObject();
        }
        return QJsonObject();
    };
    const QJsonObject stored = reconciliationOf(QStringLiteral("0.2.0"), "kiosk");
    ASSERT_FALSE(stored.isEmpty());
    const QJsonObject got = stored[QStringLiteral("reconciliation")].toObject();
    EXPECT_EQ(got[QStringLiteral("finished_at")].toString(), QStringLiteral("2026-11-30T05:00:00.000Z"));
    EXPECT_FALSE(got[QStringLiteral("complete")].toBool());
    EXPECT_EQ(got[QStringLiteral("tickets")][QStringLiteral("voided")].toInt(), 1);
    EXPECT_EQ(got[QStringLiteral("tickets")][QStringLiteral("unknown")].toInt(), 1);
    EXPECT_EQ(got[QStringLiteral("payments")][QStringLiteral("refund_due")].toInt(), 1);
    EXPECT_EQ(got[QStringLiteral("problems_total")].toInt(), 3);
    ASSERT_EQ(got[QStringLiteral("problems")].toArray().size(), 2);
    EXPECT_EQ(got[QStringLiteral("problems")][0][QStringLiteral("id")].toString(), QStringLiteral("pi_42"));
    EXPECT_FALSE(got[QStringLiteral("problems")][0].toObject().contains(QStringLiteral("injected"))); // only the known fields are kept
    EXPECT_EQ(got[QStringLiteral("problems")][1][QStringLiteral("booking_ref")].toString(), QStringLiteral("MQ7K2P"));
    EXPECT_FALSE(stored[QStringLiteral("reconciliation_received_at")].toString().isEmpty());
    // The till never reconciled: null, not an empty report.
    EXPECT_TRUE(reconciliationOf(QStringLiteral("0.2.0"), "till")[QStringLiteral("reconciliation")].isNull());
    // Admins read it too; devices and cashiers do not.
    EXPECT_EQ(server.client(server.staffToken(QStringLiteral("admin")))->get("/api/v1/devices").status, 200);
    EXPECT_EQ(kiosk->get("/api/v1/devices").status, 403);
    EXPECT_EQ(server.client(server.staffToken(QStringLiteral("cashier")))->get("/api/v1/devices").status, 403);

    // A later heartbeat without a summary keeps the stored one.
    QJsonObject plain = beat;
    plain.remove(QStringLiteral("reconciliation"));
    plain[QStringLiteral("queue_length")] = 2;
    ASSERT_EQ(kiosk->post("/api/v1/devices/heartbeat", plain).status, 200);
    EXPECT_EQ(reconciliationOf(QStringLiteral("0.2.0"), "kiosk")[QStringLiteral("reconciliation")], stored[QStringLiteral("reconciliation")]);

    // Malformed summaries are refused whole: 400 and nothing of the heartbeat is recorded.
    const QString before = server.scalar(QStringLiteral("SELECT queue_length || '/' || reconciliation::text FROM devices WHERE reconciliation IS NOT NULL")).toString();
    auto withSummary = [&](const std::function<void(QJsonObject &)> &edit) {
        QJsonObject broken = summary;
        edit(broken);
        QJsonObject body = beat;
        body[QStringLiteral("queue_length")] = 9;
        body[QStringLiteral("reconciliation")] = broken;
        return body;
    };
    QJsonArray tooMany;
    for (int i = 0; i < 51; ++i)
        tooMany.append(summary[QStringLiteral("problems")][1]);
    const std::vector<std::pair<const char *, QJsonObject>> bad = {
        {"not an object", QJsonObject{{QStringLiteral("queue_length"), 9}, {QStringLiteral("printer_state"), QStringLiteral("ok")},
                                      {QStringLiteral("app_version"), QStringLiteral("0.2.0")}, {QStringLiteral("reconciliation"), QStringLiteral("all fine")}}},
        {"bad time", withSummary([](QJsonObject &s) { s[QStringLiteral("finished_at")] = QStringLiteral("yesterday"); })},
        {"negative count", withSummary([](QJsonObject &s) {
             s[QStringLiteral("tickets")] = QJsonObject{{QStringLiteral("confirmed"), -1}, {QStringLiteral("voided"), 0}, {QStringLiteral("unknown"), 0}};
         })},
        {"count as text", withSummary([](QJsonObject &s) {
             s[QStringLiteral("payments")] = QJsonObject{{QStringLiteral("confirmed"), QStringLiteral("4")}, {QStringLiteral("refund_due"), 0},
                                                         {QStringLiteral("pending"), 0}, {QStringLiteral("unknown"), 0}};
         })},
        {"missing count", withSummary([](QJsonObject &s) { s[QStringLiteral("tickets")] = QJsonObject{{QStringLiteral("confirmed"), 1}}; })},
        {"unknown state", withSummary([](QJsonObject &s) {
             QJsonArray problems = s[QStringLiteral("problems")].toArray();
             QJsonObject first = problems[0].toObject();
             first[QStringLiteral("state")] = QStringLiteral("lost");
             problems[0] = first;
             s[QStringLiteral("problems")] = problems;
         })},
        {"too many problems", withSummary([&](QJsonObject &s) {
             s[QStringLiteral("problems")] = tooMany;
             s[QStringLiteral("problems_total")] = 51;
         })},
        {"total below the list", withSummary([](QJsonObject &s) { s[QStringLiteral("problems_total")] = 1; })},
        {"complete as text", withSummary([](QJsonObject &s) { s[QStringLiteral("complete")] = QStringLiteral("yes"); })},
    };
    for (const auto &[name, body] : bad) {
        const HttpResult r = kiosk->post("/api/v1/devices/heartbeat", body);
        EXPECT_EQ(r.status, 400) << name << ": " << r.body.toStdString();
        EXPECT_FALSE(r.json()[QStringLiteral("message")].toString().isEmpty()) << name;
    }
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT queue_length || '/' || reconciliation::text FROM devices WHERE reconciliation IS NOT NULL")).toString(), before);
    // Staff cannot post a kiosk's report.
    EXPECT_EQ(manager->post("/api/v1/devices/heartbeat", beat).status, 403);
}

namespace {
QJsonArray auditRows(const HttpResult &page)
{
    return page.json()[QStringLiteral("rows")].toArray();
}
} // namespace

TEST_F(ManagerRoutes, AuditLogIsAppendOnlyAndFilterable)
{
    ASSERT_EQ(manager->request("PATCH", api(showId), R"({"waiting_room": true, "reason": "flash sale"})").status, 200);
    ASSERT_EQ(manager->post("/api/v1/shows", newShow()).status, 201);
    const HttpResult all = manager->get("/api/v1/reports/audit");
    ASSERT_EQ(all.status, 200);
    EXPECT_EQ(auditRows(all).size(), 2);
    EXPECT_EQ(all.json()[QStringLiteral("total")].toInteger(), 2);
    EXPECT_FALSE(all.json()[QStringLiteral("truncated")].toBool());
    EXPECT_TRUE(all.json()[QStringLiteral("next_before")].isNull());
    const HttpResult updates = manager->get("/api/v1/reports/audit?action=show.update");
    ASSERT_EQ(auditRows(updates).size(), 1);
    EXPECT_EQ(auditRows(updates)[0][QStringLiteral("reason")].toString(), QStringLiteral("flash sale"));
    EXPECT_EQ(auditRows(updates)[0][QStringLiteral("actor_role")].toString(), QStringLiteral("manager"));
    EXPECT_EQ(auditRows(manager->get("/api/v1/reports/audit?from=2020-01-01&to=2020-01-02")).size(), 0);
    EXPECT_EQ(manager->get("/api/v1/reports/audit?from=yesterday").status, 400);
    EXPECT_EQ(manager->get("/api/v1/reports/audit?limit=0").status, 400);
    EXPECT_EQ(server.client(server.staffToken(QStringLiteral("cashier")))->get("/api/v1/reports/audit").status, 403);

    QSqlQuery tamper(server.context().database.connection());
    EXPECT_FALSE(tamper.exec(QStringLiteral("UPDATE audit_log SET reason = 'nothing to see'")));
    EXPECT_FALSE(tamper.exec(QStringLiteral("DELETE FROM audit_log")));
    EXPECT_FALSE(tamper.exec(QStringLiteral("TRUNCATE audit_log")));
    EXPECT_EQ(count(QStringLiteral("audit_log")), 2);
}

TEST_F(ManagerRoutes, AuditReportPagesThroughALongRangeAndSaysHowManyThereAre)
{
    // 30 entries: 12 written in one statement share one `at` to the microsecond (ties broken by audit_id), 18 a
    // minute apart, 3 of the 30 another action; and one from long ago outside the range.
    server.scalar(QStringLiteral("INSERT INTO audit_log (actor, actor_name, actor_role, action, target) "
                                 "SELECT 'session:1', 'mia', 'manager', CASE WHEN g % 4 = 0 THEN 'show.update' ELSE 'drawer.no_sale' END, 't:' || g "
                                 "  FROM generate_series(1, 12) g RETURNING 1"));
    server.scalar(QStringLiteral("INSERT INTO audit_log (at, actor, actor_name, actor_role, action, target) "
                                 "SELECT now() - g * interval '1 minute', 'session:1', 'mia', 'manager', 'drawer.no_sale', 'm:' || g "
                                 "  FROM generate_series(1, 18) g RETURNING 1"));
    server.scalar(QStringLiteral("INSERT INTO audit_log (at, actor, actor_name, actor_role, action) "
                                 "VALUES (now() - interval '90 days', 'session:1', 'mia', 'manager', 'drawer.no_sale') RETURNING 1"));
    QList<qint64> expected;
    {
        QSqlQuery ordered(server.context().database.connection());
        ASSERT_TRUE(ordered.exec(QStringLiteral("SELECT audit_id FROM audit_log WHERE at > now() - interval '30 days' ORDER BY at DESC, audit_id DESC")));
        while (ordered.next())
            expected.append(ordered.value(0).toLongLong());
    }
    ASSERT_EQ(expected.size(), 30);

    // Pages of 7 follow each other without a gap or a repeat; each says the range's total and whether more follow.
    QList<qint64> seen;
    QByteArray next;
    int pages = 0;
    for (;;) {
        const HttpResult page = manager->get("/api/v1/reports/audit?limit=7" + (next.isEmpty() ? QByteArray() : "&before=" + next));
        ASSERT_EQ(page.status, 200) << page.body.constData();
        ++pages;
        const QJsonObject body = page.json();
        EXPECT_EQ(body[QStringLiteral("total")].toInteger(), 30);
        EXPECT_EQ(body[QStringLiteral("limit")].toInt(), 7);
        const QJsonArray rows = body[QStringLiteral("rows")].toArray();
        for (const QJsonValue &row : rows)
            seen.append(row[QStringLiteral("audit_id")].toInteger());
        if (!body[QStringLiteral("truncated")].toBool()) {
            EXPECT_TRUE(body[QStringLiteral("next_before")].isNull());
            EXPECT_EQ(rows.size(), 2);
            break;
        }
        ASSERT_EQ(rows.size(), 7);
        EXPECT_EQ(body[QStringLiteral("next_before")].toInteger(), rows.last()[QStringLiteral("audit_id")].toInteger());
        next = QByteArray::number(body[QStringLiteral("next_before")].toInteger());
        ASSERT_LT(pages, 10);
    }
    EXPECT_EQ(pages, 5);
    EXPECT_EQ(seen, expected);

    // Exactly one page's worth is not truncated; the filters hold across pages and count only their own rows.
    const QJsonObject whole = manager->get("/api/v1/reports/audit?limit=30").json();
    EXPECT_FALSE(whole[QStringLiteral("truncated")].toBool());
    EXPECT_EQ(whole[QStringLiteral("rows")].toArray().size(), 30);
    const QJsonObject firstUpdates = manager->get("/api/v1/reports/audit?action=show.update&limit=2").json();
    EXPECT_EQ(firstUpdates[QStringLiteral("total")].toInteger(), 3);
    ASSERT_TRUE(firstUpdates[QStringLiteral("truncated")].toBool());
    const QJsonObject lastUpdate = manager->get("/api/v1/reports/audit?action=show.update&limit=2&before="
                                                + QByteArray::number(firstUpdates[QStringLiteral("next_before")].toInteger()))
                                       .json();
    ASSERT_EQ(lastUpdate[QStringLiteral("rows")].toArray().size(), 1);
    EXPECT_EQ(lastUpdate[QStringLiteral("rows")].toArray()[0][QStringLiteral("action")].toString(), QStringLiteral("show.update"));
    EXPECT_FALSE(lastUpdate[QStringLiteral("truncated")].toBool());
    EXPECT_EQ(lastUpdate[QStringLiteral("total")].toInteger(), 3);
    // The old entry is counted only in a range that covers it.
    EXPECT_EQ(manager->get("/api/v1/reports/audit?from=" + QDate::currentDate().addDays(-100).toString(Qt::ISODate).toLatin1() + "&limit=1")
                  .json()[QStringLiteral("total")]
                  .toInteger(),
              31);

    // A cursor that is not an audit entry is refused.
    for (const QByteArray &bad : {QByteArray("0"), QByteArray("-4"), QByteArray("abc"), QByteArray("999999999")}) {
        const HttpResult refused = manager->get("/api/v1/reports/audit?before=" + bad);
        EXPECT_EQ(refused.status, 400) << bad.constData();
        EXPECT_EQ(refused.json()[QStringLiteral("error")].toString(), QStringLiteral("invalid_query")) << bad.constData();
    }
    EXPECT_EQ(count(QStringLiteral("audit_log")), 31);
}

// The audit log's append-only triggers hold against the server's own role only when that role does not own
// the table. Migration 025 gives audit_log to a NOLOGIN role; the test cluster connects as a superuser (which
// nothing protects against, and which the check says), so the server's role here is a plain login role with the
// grants marquee-admin audit-protection prints.
TEST_F(ManagerRoutes, ThePlainServerRoleCanAddAuditEntriesButNeitherChangeNorSilenceThem)
{
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'audit_log'::regclass")).toString(),
              QStringLiteral("marquee_audit_owner"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid = 'mq_refuse_audit_change()'::regprocedure")).toString(),
              QStringLiteral("marquee_audit_owner"));
    store::StaffRepository asSuperuser(server.context().database);
    const auto superuser = asSuperuser.auditProtection();
    ASSERT_TRUE(superuser.has_value());
    EXPECT_FALSE(superuser->inPlace);
    EXPECT_TRUE(superuser->reason.contains(QStringLiteral("superuser"))) << qPrintable(superuser->reason);

    ASSERT_EQ(manager->request("PATCH", api(showId), R"({"waiting_room": true, "reason": "flash sale"})").status, 200);
    const QString role = QStringLiteral("mq_server_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    {
        QSqlQuery admin(server.context().database.connection());
        ASSERT_TRUE(admin.exec(QStringLiteral("CREATE ROLE %1 LOGIN NOSUPERUSER NOCREATEROLE PASSWORD '%1'").arg(role))) << qPrintable(admin.lastError().text());
        // The printed SQL runs as it is (a second time changes nothing).
        ASSERT_TRUE(admin.exec(store::AuditProtection::setupSql(role))) << qPrintable(admin.lastError().text());
    }
    store::DatabaseConfig config = server.databaseConfig();
    config.user = role;
    config.password = role; // the test cluster asks every role for its password
    store::Database plain(config);
    QSqlQuery as(plain.connection());
    ASSERT_TRUE(plain.connection().isOpen()) << qPrintable(plain.connection().lastError().text());
    // It adds and reads entries, as the server does.
    ASSERT_TRUE(as.exec(QStringLiteral("INSERT INTO audit_log (actor, actor_name, actor_role, action) VALUES ('session:1', 'mia', 'manager', 'test.add')")))
        << qPrintable(as.lastError().text());
    ASSERT_TRUE(as.exec(QStringLiteral("SELECT count(*) FROM audit_log")) && as.next());
    EXPECT_EQ(as.value(0).toInt(), 2);
    const auto protection = store::StaffRepository(plain).auditProtection();
    ASSERT_TRUE(protection.has_value());
    EXPECT_TRUE(protection->inPlace) << qPrintable(protection->reason);
    EXPECT_EQ(protection->owner, QStringLiteral("marquee_audit_owner"));
    EXPECT_EQ(protection->role, role);

    // Everything that would change or remove an entry, or silence the triggers, is refused for lack of privilege.
    const QStringList refused = {
        QStringLiteral("UPDATE audit_log SET reason = 'nothing to see'"),
        QStringLiteral("DELETE FROM audit_log"),
        QStringLiteral("TRUNCATE audit_log"),
        QStringLiteral("DROP TRIGGER audit_log_append_only ON audit_log"),
        QStringLiteral("DROP TRIGGER audit_log_no_truncate ON audit_log"),
        QStringLiteral("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only"),
        QStringLiteral("ALTER TABLE audit_log DISABLE TRIGGER ALL"),
        QStringLiteral("ALTER TABLE audit_log OWNER TO %1").arg(role),
        QStringLiteral("CREATE OR REPLACE FUNCTION mq_refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$"),
        QStringLiteral("DROP FUNCTION mq_refuse_audit_change() CASCADE"),
        QStringLiteral("DROP TABLE audit_log"),
        QStringLiteral("SET ROLE marquee_audit_owner"),
        QStringLiteral("GRANT marquee_audit_owner TO %1").arg(role),
    };
    for (const QString &sql : refused) {
        EXPECT_FALSE(as.exec(sql)) << qPrintable(sql);
        EXPECT_EQ(as.lastError().nativeErrorCode(), QStringLiteral("42501")) << qPrintable(sql) << ": " << qPrintable(as.lastError().text());
    }
    // Granting itself more is at most a warning that grants nothing (PostgreSQL's rule for a role without the
    // grant option).
    as.exec(QStringLiteral("GRANT UPDATE, DELETE, TRUNCATE ON audit_log TO %1").arg(role));
    ASSERT_TRUE(as.exec(QStringLiteral("SELECT has_table_privilege('audit_log', 'UPDATE') OR has_table_privilege('audit_log', 'DELETE') "
                                       "OR has_table_privilege('audit_log', 'TRUNCATE')")) && as.next());
    EXPECT_FALSE(as.value(0).toBool());
    plain.closeThreadConnection();
    EXPECT_EQ(count(QStringLiteral("audit_log")), 2);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'audit_log'::regclass AND NOT tgisinternal AND tgenabled <> 'D'")).toInt(), 2);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'audit_log'::regclass")).toString(),
              QStringLiteral("marquee_audit_owner"));
}

TEST_F(ManagerRoutes, StaffActionsNameTheDeviceTheirSessionWasOpenedOn)
{
    QString error;
    ASSERT_TRUE(server.context().auth.addStaff(QStringLiteral("mona"), Role::Manager, QString::fromLatin1(TestServer::kStaffPassword), &error))
        << qPrintable(error);
    const QJsonObject credentials{{QStringLiteral("name"), QStringLiteral("mona")}, {QStringLiteral("password"), QString::fromLatin1(TestServer::kStaffPassword)}};
    const QString deskToken = server.deviceToken(QStringLiteral("till"));
    const qint64 deskId = server.scalar(QStringLiteral("SELECT max(device_id) FROM devices")).toLongLong();

    // Signed in on the enrolled device (its token comes with the sign-in): the session and the audit row name it.
    const HttpResult onDevice = server.client(deskToken)->post("/api/v1/sessions", credentials);
    ASSERT_EQ(onDevice.status, 201) << onDevice.body.constData();
    auto atDesk = server.client(onDevice.json().value(QStringLiteral("token")).toString());
    ASSERT_EQ(atDesk->request("PATCH", api(showId), R"({"waiting_room": true, "reason": "premiere"})").status, 200);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT device_id FROM audit_log WHERE action = 'show.update' AND reason = 'premiere'")).toLongLong(), deskId);
    const QJsonArray rows = auditRows(manager->get("/api/v1/reports/audit?action=show.update"));
    ASSERT_EQ(rows.size(), 1);
    EXPECT_EQ(rows[0][QStringLiteral("device_id")].toInteger(), deskId);
    EXPECT_EQ(rows[0][QStringLiteral("actor_name")].toString(), QStringLiteral("mona"));

    // Without a token the session has no device, and its actions say so (NULL), as before.
    const HttpResult anywhere = server.client(QString())->post("/api/v1/sessions", credentials);
    ASSERT_EQ(anywhere.status, 201) << anywhere.body.constData();
    ASSERT_EQ(server.client(anywhere.json().value(QStringLiteral("token")).toString())
                  ->request("PATCH", api(showId), R"({"waiting_room": false, "reason": "from home"})")
                  .status,
              200);
    EXPECT_TRUE(server.scalar(QStringLiteral("SELECT device_id IS NULL FROM audit_log WHERE reason = 'from home'")).toBool());

    // A staff token, an unknown token or a malformed header is refused, and no session is made.
    const qint64 sessions = count(QStringLiteral("sessions"));
    const QString staff = server.staffToken(QStringLiteral("manager"));
    EXPECT_EQ(count(QStringLiteral("sessions")), sessions + 1);
    for (const QString &token : {staff, QStringLiteral("not-a-token")}) {
        const HttpResult refused = server.client(token)->post("/api/v1/sessions", credentials);
        EXPECT_EQ(refused.status, 401) << refused.body.constData();
        EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("unauthorized"));
    }
    const HttpResult basic = server.client(QString())->post("/api/v1/sessions", credentials, {{"Authorization", "Basic bW9uYTp4"}});
    EXPECT_EQ(basic.status, 401) << basic.body.constData();
    EXPECT_EQ(count(QStringLiteral("sessions")), sessions + 1);
    // The wrong password on the right device is still the same 401 as anywhere.
    EXPECT_EQ(server.client(deskToken)->post("/api/v1/sessions", {{"name", "mona"}, {"password", "wrong password!"}}).status, 401);
    EXPECT_EQ(count(QStringLiteral("sessions")), sessions + 1);
}
