// SPDX-License-Identifier: AGPL-3.0-or-later
// DeskController against a real in-process marquee-server: sign-in (managers only), the fleet, the shows with
// their occupancy, creating and editing a show, the waiting-room switch, CSV export and the sales report.
#include "deskcontroller.h"
#include "stafftesthelpers.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimeZone>
#include <gtest/gtest.h>
#include "tests/support/machinezone.h"

using namespace marquee;
using namespace marquee::app;
using namespace marquee::test;

namespace {
struct DeskFixture {
    TestServer server;
    QTemporaryDir dir;
    qint64 showId = 0;
    std::unique_ptr<DeskController> desk;

    DeskFixture()
    {
        showId = server.createShow(5, 8, QDateTime::currentDateTimeUtc().addDays(2));
        addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
        addStaff(server, QStringLiteral("carl"), QStringLiteral("cashier"));
        desk = std::make_unique<DeskController>(staffConfig(server, QStringLiteral("manager"), dir.path()));
    }
    bool signIn()
    {
        desk->session()->signIn(QStringLiteral("mia"), kStaffPassword);
        return waitFor([&] { return desk->page() == QLatin1String("dashboard") && desk->shows()->count() > 0 && !desk->busy(); });
    }
    bool reportsExist() { return server.client(server.staffToken(QStringLiteral("manager")))->get("/api/v1/reports/sales").status != 404; }
};
} // namespace

TEST(Desk, CashiersCannotSignInAtTheDesk)
{
    DeskFixture f;
    f.desk->session()->signIn(QStringLiteral("carl"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !f.desk->session()->busy(); }));
    EXPECT_FALSE(f.desk->session()->signedIn());
    EXPECT_EQ(f.desk->page(), QStringLiteral("signin"));
}

TEST(Desk, ShowsFleetAndAuditLoadAndExportAsCsv)
{
    DeskFixture f;
    const QString kiosk = f.server.deviceToken(QStringLiteral("kiosk"));
    ASSERT_EQ(f.server.client(kiosk)
                  ->post("/api/v1/devices/heartbeat", QJsonObject{{"queue_length", 2}, {"printer_state", "paper_low"}, {"app_version", "0.1.0"}})
                  .status,
              200);
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(waitFor([&] { return f.desk->devices()->count() == 1; }));
    const QVariantMap device = f.desk->devices()->rowAt(0);
    EXPECT_EQ(device.value(QStringLiteral("queue_length")).toInt(), 2);
    EXPECT_EQ(device.value(QStringLiteral("health")).toString(), QStringLiteral("attention"));
    EXPECT_EQ(f.desk->shows()->rowAt(0).value(QStringLiteral("show_id")).toLongLong(), f.showId);
    EXPECT_FALSE(f.desk->movieChoices().isEmpty());
    EXPECT_FALSE(f.desk->screenChoices().isEmpty());

    const QString path = f.desk->exportTable(f.desk->shows(), QStringLiteral("shows"));
    ASSERT_FALSE(path.isEmpty());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    EXPECT_TRUE(lines[0].startsWith("show_id,title,starts_at"));
    EXPECT_TRUE(lines[1].startsWith(QByteArray::number(f.showId) + ","));
}

TEST(Desk, CreatesAndEditsShowsAndSwitchesTheWaitingRoom)
{
    DeskFixture f;
    ASSERT_TRUE(f.signIn());
    const qint64 movie = f.desk->movieChoices().first().toMap().value(QStringLiteral("id")).toLongLong();
    const qint64 screen = f.desk->screenChoices().first().toMap().value(QStringLiteral("id")).toLongLong();
    const QString starts = QDateTime::currentDateTime().addDays(3).toString(QStringLiteral("yyyy-MM-dd")) + QStringLiteral(" 20:15");
    QSignalSpy saved(f.desk.get(), &DeskController::showSaved);
    f.desk->createShow({{"movie_id", movie}, {"screen_id", screen}, {"starts_at", starts}, {"currency", "EUR"},
                        {"price_tiers", QVariantMap{{"standard", "11.00"}, {"premium", "16.50"}}}});
    ASSERT_TRUE(waitFor([&] { return saved.count() == 1; })) << qPrintable(f.desk->message());
    const qint64 created = saved.takeFirst().first().toLongLong();
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT amount_minor FROM show_prices WHERE show_id = %1 AND tier = 'premium'").arg(created)).toLongLong(),
              1650);
    ASSERT_TRUE(waitFor([&] { return f.desk->shows()->count() == 2 && !f.desk->busy(); }));

    f.desk->updateShow(created, {{"price_tiers", QVariantMap{{"premium", "17.00"}}}, {"reason", "premiere"}});
    ASSERT_TRUE(waitFor([&] { return saved.count() == 1; })) << qPrintable(f.desk->message());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT amount_minor FROM show_prices WHERE show_id = %1 AND tier = 'premium'").arg(created)).toLongLong(),
              1700);
    saved.clear();
    f.desk->setWaitingRoom(created, true);
    ASSERT_TRUE(waitFor([&] { return saved.count() == 1; })) << qPrintable(f.desk->message());
    EXPECT_TRUE(f.server.scalar(QStringLiteral("SELECT waiting_room FROM shows WHERE show_id = %1").arg(created)).toBool());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'show.waiting_room' AND target = 'show:%1'").arg(created))
                  .toInt(),
              1);
    EXPECT_GE(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE target = 'show:%1'").arg(created)).toInt(), 3);

    // A bad form changes nothing and says why.
    f.desk->createShow({{"movie_id", movie}, {"screen_id", screen}, {"starts_at", "soon"}, {"currency", "EUR"}});
    EXPECT_TRUE(f.desk->messageIsError());
}

TEST(Desk, NewShowsAreTypedInTheVenuesZoneAndSellInItsCurrency)
{
    // A cinema in Pune seen from a desk whose clock is at UTC: 13:15 typed is 13:15 in Pune (07:45 UTC).
    const MachineZone machine("UTC");
    DeskFixture f;
    f.server.scalar(QStringLiteral("UPDATE cities SET time_zone = 'Asia/Kolkata' RETURNING 1"));
    f.server.scalar(QStringLiteral("UPDATE venues SET currency = 'INR' RETURNING 1"));
    ASSERT_TRUE(f.signIn());
    const qint64 movie = f.desk->movieChoices().first().toMap().value(QStringLiteral("id")).toLongLong();
    const qint64 screen = f.desk->screenChoices().first().toMap().value(QStringLiteral("id")).toLongLong();
    EXPECT_EQ(f.desk->screenCurrency(screen), QStringLiteral("INR"));
    EXPECT_EQ(f.desk->screenZone(screen), QStringLiteral("Asia/Kolkata"));
    const QDate day = QDateTime::currentDateTimeUtc().toTimeZone(QTimeZone("Asia/Kolkata")).date().addDays(3);
    QSignalSpy saved(f.desk.get(), &DeskController::showSaved);
    f.desk->createShow({{"movie_id", movie}, {"screen_id", screen}, {"starts_at", day.toString(Qt::ISODate) + QStringLiteral(" 13:15")},
                        {"currency", ""}, {"price_tiers", QVariantMap{{"standard", "250"}, {"premium", "400.50"}}}});
    ASSERT_TRUE(waitFor([&] { return saved.count() == 1; })) << qPrintable(f.desk->message());
    const qint64 created = saved.takeFirst().first().toLongLong();
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT to_char(starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') FROM shows WHERE show_id = %1").arg(created))
                  .toString(),
              day.toString(Qt::ISODate) + QStringLiteral(" 07:45"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT currency FROM shows WHERE show_id = %1").arg(created)).toString(), QStringLiteral("INR"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT amount_minor FROM show_prices WHERE show_id = %1 AND tier = 'premium'").arg(created)).toLongLong(),
              40050);
    // Read back into the editor, the start is the venue's time again.
    ASSERT_TRUE(waitFor([&] { return f.desk->shows()->count() == 2 && !f.desk->busy(); }));
    QVariantMap row;
    for (int i = 0; i < f.desk->shows()->count(); ++i)
        if (f.desk->shows()->rowAt(i).value(QStringLiteral("show_id")).toLongLong() == created)
            row = f.desk->shows()->rowAt(i);
    EXPECT_EQ(f.desk->startsInput(row), day.toString(Qt::ISODate) + QStringLiteral(" 13:15"));
    EXPECT_EQ(f.desk->priceInput(row.value(QStringLiteral("price_tiers")).toMap().value(QStringLiteral("premium")), QStringLiteral("INR")),
              QStringLiteral("400.50"));
}

TEST(Desk, SalesReportTotalsMatchTheBookings)
{
    DeskFixture f;
    if (!f.reportsExist())
        GTEST_SKIP() << "this server has no GET /api/v1/reports/sales yet (the reports' server part)";
    const QString manager = f.server.staffToken(QStringLiteral("manager"));
    const QJsonObject a = sellForCash(f.server, manager, f.showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QJsonObject b = sellForCash(f.server, manager, f.showId, {QStringLiteral("B1")});
    const qint64 expected = a.value(QStringLiteral("amount_minor")).toInteger() + b.value(QStringLiteral("amount_minor")).toInteger();
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(waitFor([&] { return f.desk->totals().value(QStringLiteral("tickets")).toInt() == 3; })) << qPrintable(f.desk->message());
    EXPECT_EQ(f.desk->totals().value(QStringLiteral("revenue_minor")).toLongLong(), expected);
    EXPECT_EQ(f.desk->salesByDay()->count(), 14); // every day of the range, quiet days as zero
    ASSERT_TRUE(waitFor([&] { return f.desk->salesByShow()->count() == 1; }));
    EXPECT_EQ(f.desk->salesByShow()->rowAt(0).value(QStringLiteral("revenue_minor")).toLongLong(), expected);

    // The date-range picker: a range without sales shows none (every day of it as zero), a bad or reversed range is
    // refused and keeps the one shown, the presets end today.
    ASSERT_TRUE(f.desk->setRange(QStringLiteral("2020-01-01"), QStringLiteral("2020-01-03")));
    ASSERT_TRUE(waitFor([&] { return f.desk->totals().value(QStringLiteral("tickets")).toInt() == 0 && !f.desk->busy(); }));
    EXPECT_EQ(f.desk->salesByDay()->count(), 3);
    EXPECT_EQ(f.desk->salesByShow()->count(), 0);
    EXPECT_FALSE(f.desk->setRange(QStringLiteral("2020-01-05"), QStringLiteral("2020-01-01")));
    EXPECT_TRUE(f.desk->messageIsError());
    EXPECT_FALSE(f.desk->setRange(QStringLiteral("soon"), QStringLiteral("2020-01-01")));
    EXPECT_EQ(f.desk->fromDate(), QStringLiteral("2020-01-01"));
    EXPECT_EQ(f.desk->toDate(), QStringLiteral("2020-01-03"));
    f.desk->setLastDays(7);
    EXPECT_EQ(f.desk->toDate(), QDate::currentDate().toString(Qt::ISODate));
    EXPECT_EQ(f.desk->fromDate(), QDate::currentDate().addDays(-6).toString(Qt::ISODate));
    ASSERT_TRUE(waitFor([&] { return f.desk->totals().value(QStringLiteral("tickets")).toInt() == 3 && !f.desk->busy(); }));
    EXPECT_EQ(f.desk->salesByDay()->count(), 7);

    f.desk->openOccupancy(f.showId);
    ASSERT_TRUE(waitFor([&] { return f.desk->occupancy().value(QStringLiteral("sold")).toInt() == 3; }));
    EXPECT_EQ(f.desk->heat().size(), 3);
    EXPECT_DOUBLE_EQ(f.desk->heat().value(QStringLiteral("A1")).toDouble(), 1.0); // sold first
}

TEST(Desk, SignsInWithItsDeviceTokenSoTheAuditLogNamesTheDesk)
{
    DeskFixture f;
    AppConfig config = staffConfig(f.server, QStringLiteral("manager"), f.dir.path());
    config.token = f.server.deviceToken(QStringLiteral("till")); // the desk's enrolled device (--token)
    const qint64 deskId = f.server.scalar(QStringLiteral("SELECT max(device_id) FROM devices")).toLongLong();
    f.desk = std::make_unique<DeskController>(config);
    ASSERT_TRUE(f.signIn());
    QSignalSpy saved(f.desk.get(), &DeskController::showSaved);
    f.desk->setWaitingRoom(f.showId, true);
    ASSERT_TRUE(waitFor([&] { return saved.count() == 1; })) << qPrintable(f.desk->message());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT device_id FROM audit_log WHERE action = 'show.waiting_room'")).toLongLong(), deskId);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM sessions WHERE device_id = %1").arg(deskId)).toInt(), 1);
}

TEST(Desk, PaymentsAwaitingReconciliationOnTheServerAreListedAndExportAsCsv)
{
    TestServer::Options options;
    options.paymentWindowSeconds = 1;
    TestServer server(options);
    QTemporaryDir dir;
    const qint64 showId = server.createShow(4, 6, QDateTime::currentDateTimeUtc().addDays(1));
    addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
    const QString tillToken = server.deviceToken(QStringLiteral("till"));
    // A sale that went through is not listed.
    ASSERT_FALSE(sellForCash(server, tillToken, showId, {QStringLiteral("B1")}).isEmpty());
    // A till took cash for two seats and went down before confirming: the order is left past its payment window.
    auto till = server.client(tillToken);
    const HttpResult hold = till->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                       QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1"), QStringLiteral("A2")}}});
    ASSERT_EQ(hold.status, 200) << hold.body.constData();
    const HttpResult order = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), hold.json()[QStringLiteral("hold_id")]},
                                                                      {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    ASSERT_EQ(order.status, 201) << order.body.constData();
    const QString orderId = order.json()[QStringLiteral("order_id")].toString();
    ASSERT_TRUE(waitFor([&] {
        return server.scalar(QStringLiteral("SELECT expires_at <= clock_timestamp() FROM orders WHERE order_id = '%1'").arg(orderId)).toBool();
    }));

    DeskController desk(staffConfig(server, QStringLiteral("manager"), dir.path()));
    desk.session()->signIn(QStringLiteral("mia"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return desk.page() == QLatin1String("dashboard") && desk.shows()->count() > 0 && !desk.busy(); }));
    ASSERT_EQ(desk.reconciliation()->count(), 1);
    const QVariantMap row = desk.reconciliation()->rowAt(0);
    EXPECT_EQ(row.value(QStringLiteral("order_id")).toString(), orderId);
    EXPECT_EQ(row.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(row.value(QStringLiteral("waiting_for")).toString(), QStringLiteral("provider answer"));
    EXPECT_EQ(row.value(QStringLiteral("amount_minor")).toLongLong(), order.json()[QStringLiteral("amount_minor")].toInteger());
    EXPECT_EQ(row.value(QStringLiteral("payment_method")).toString(), QStringLiteral("cash"));

    const QString path = desk.exportTable(desk.reconciliation(), QStringLiteral("reconciliation"));
    ASSERT_FALSE(path.isEmpty());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    ASSERT_EQ(lines.size(), 2);
    EXPECT_TRUE(lines[0].startsWith("waiting_for,state,")) << lines[0].constData();
    EXPECT_TRUE(lines[1].contains(orderId.toLatin1())) << lines[1].constData();
    EXPECT_TRUE(lines[1].contains("PENDING_PAYMENT")) << lines[1].constData();

    // Once the server's reconciler has settled it, the desk lists nothing.
    server.context().orderService.reconcileOnce(100);
    const QString settled = server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    EXPECT_TRUE(settled == QLatin1String("CONFIRMED") || settled == QLatin1String("EXPIRED")) << qPrintable(settled);
    desk.refresh();
    ASSERT_TRUE(waitFor([&] { return !desk.busy() && desk.reconciliation()->count() == 0; }));
}
