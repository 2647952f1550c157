// SPDX-License-Identifier: AGPL-3.0-or-later
// StaffSession and TillController against a real in-process marquee-server: sign-in, lock, re-auth, a cash sale
// with change and the drawer pulse, lookup, refund within policy and with a manager override, check-in, shift.
#include "../server/paysimprocess.h"
#include "faultproxy.h"
#include "stafftesthelpers.h"
#include "tillcontroller.h"
#include "tillsupport.h"

#include <QJsonDocument>
#include <QElapsedTimer>
#include <QWindow>
#include <QImage>
#include <QDir>
#include <QSet>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;
using namespace marquee::test;

TEST(StaffSession, SignsInLocksAndUnlocksOnlyWithThePassword)
{
    TestServer server;
    addStaff(server, QStringLiteral("ana"), QStringLiteral("cashier"));
    StaffSession session(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())),
                         {QStringLiteral("cashier"), QStringLiteral("manager")});
    session.signIn(QStringLiteral("ana"), QStringLiteral("wrong"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_FALSE(session.signedIn());
    EXPECT_FALSE(session.errorString().isEmpty());

    session.signIn(QStringLiteral("ana"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return session.signedIn(); }));
    EXPECT_EQ(session.role(), QStringLiteral("cashier"));

    session.lock();
    EXPECT_TRUE(session.locked());
    session.unlock(QStringLiteral("nope"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_TRUE(session.locked());
    session.unlock(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !session.locked(); }));
    // Whatever the server did to check the password (re-auth, or a fresh session), the session works.
    EXPECT_EQ(server.client(session.token())->get("/api/v1/cities").status, 200);
}

TEST(StaffSession, ALockedTillUnlocksWhileTheServerCannotBeReachedOnlyWithThePasswordTheServerLastAccepted)
{
    TestServer server;
    addStaff(server, QStringLiteral("ana"), QStringLiteral("cashier"));
    FaultProxy proxy(server.port());
    StaffSession session(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(proxy.port())), {QStringLiteral("cashier")});
    session.signIn(QStringLiteral("ana"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return session.signedIn(); }));

    // The link goes while the screen is locked: the right password unlocks (checked on the till), a wrong one not.
    session.lock();
    proxy.setRefusing(true); // open connections reset, new ones refused
    session.unlock(QStringLiteral("not-the-password"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_TRUE(session.locked());
    EXPECT_TRUE(session.errorString().contains(QStringLiteral("cannot be reached"))) << qPrintable(session.errorString());
    session.unlock(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_FALSE(session.locked()) << qPrintable(session.errorString());
    EXPECT_TRUE(session.signedIn());

    // Back online, the server judges again.
    proxy.setRefusing(false);
    session.lock();
    session.unlock(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !session.locked() && !session.busy(); }));
    EXPECT_EQ(server.client(session.token())->get("/api/v1/cities").status, 200) << "the server's session works after the offline unlock";

    // Offline again: five wrong passwords sign the member out; the screen then needs the server to sign in.
    session.lock();
    proxy.setRefusing(true); // open connections reset, new ones refused
    for (int attempt = 1; attempt <= 5; ++attempt) {
        session.unlock(QStringLiteral("guess-%1").arg(attempt));
        ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
        if (attempt < 5)
            EXPECT_TRUE(session.locked()) << attempt;
    }
    EXPECT_FALSE(session.signedIn());
    EXPECT_TRUE(session.errorString().contains(QStringLiteral("sign in again"))) << qPrintable(session.errorString());
    session.signIn(QStringLiteral("ana"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_FALSE(session.signedIn()) << "signing in needs the server";
}

TEST(StaffSession, LocksAfterInactivityAndRefusesRolesNotMeantForThisScreen)
{
    TestServer server;
    addStaff(server, QStringLiteral("bo"), QStringLiteral("cashier"));
    StaffSession desk(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())), {QStringLiteral("manager"), QStringLiteral("admin")});
    desk.signIn(QStringLiteral("bo"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !desk.busy(); }));
    EXPECT_FALSE(desk.signedIn());
    EXPECT_TRUE(desk.errorString().contains(QStringLiteral("cashier")));

    StaffSession till(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())), {QStringLiteral("cashier")});
    till.setLockAfterSeconds(1);
    till.signIn(QStringLiteral("bo"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return till.signedIn(); }));
    EXPECT_FALSE(till.locked());
    ASSERT_TRUE(waitFor([&] { return till.locked(); }, 4000));
}

TEST(StaffSession, KeysAndClicksPostponeTheInactivityLock)
{
    TestServer server;
    addStaff(server, QStringLiteral("eve"), QStringLiteral("cashier"));
    StaffSession session(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())), {QStringLiteral("cashier")});
    session.signIn(QStringLiteral("eve"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return session.signedIn(); }));
    QWindow window;
    window.resize(200, 200);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    session.setLockAfterSeconds(2);
    // Someone works at the till for three times the lock time, a key or a click every 200 ms: it never locks.
    QElapsedTimer working;
    working.start();
    for (int event = 0; working.elapsed() < 6000; ++event) {
        if (event % 2 == 0)
            QTest::keyClick(&window, Qt::Key_Shift);
        else
            QTest::mouseClick(&window, Qt::LeftButton, Qt::NoModifier, QPoint(20, 20));
        QTest::qWait(200);
        ASSERT_FALSE(session.locked()) << "locked after " << working.elapsed() << " ms of work";
    }
    // Then nobody: it locks.
    ASSERT_TRUE(waitFor([&] { return session.locked(); }, 6000));
}

TEST(StaffSession, ReauthRunsTheActionOnlyAfterTheRightPassword)
{
    TestServer server;
    addStaff(server, QStringLiteral("cy"), QStringLiteral("cashier"));
    StaffSession session(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())), {QStringLiteral("cashier")});
    session.signIn(QStringLiteral("cy"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return session.signedIn(); }));
    int ran = 0;
    session.requireReauth(QStringLiteral("Refund"), [&] { ++ran; });
    EXPECT_TRUE(session.reauthPending());
    session.confirmReauth(QStringLiteral("bad"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_EQ(ran, 0);
    EXPECT_TRUE(session.reauthPending());
    session.confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return ran == 1; }));
    EXPECT_FALSE(session.reauthPending());
    session.requireReauth(QStringLiteral("Drawer"), [&] { ++ran; });
    session.cancelReauth();
    EXPECT_FALSE(session.reauthPending());
    EXPECT_EQ(ran, 1);
}

TEST(StaffSession, ReauthAcceptsThePinOnceOneIsSet)
{
    TestServer server;
    addStaff(server, QStringLiteral("di"), QStringLiteral("manager"));
    StaffSession session(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())), {QStringLiteral("manager")});
    session.signIn(QStringLiteral("di"), kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return session.signedIn(); }));
    int ran = 0;
    // No PIN yet: a PIN-looking answer is refused and the action waits.
    session.requireReauth(QStringLiteral("Override"), [&] { ++ran; });
    session.confirmReauth(QStringLiteral("2468"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_EQ(ran, 0);
    EXPECT_FALSE(session.errorString().isEmpty());
    const HttpResult set = server.client(session.token())
                               ->request("PUT", "/api/v1/sessions/current/pin",
                                         QJsonDocument(QJsonObject{{QStringLiteral("password"), kStaffPassword}, {QStringLiteral("pin"), QStringLiteral("2468")}}).toJson(),
                                         {{"Content-Type", "application/json"}});
    ASSERT_EQ(set.status, 204) << set.body.constData();
    session.confirmReauth(QStringLiteral("1357"));
    ASSERT_TRUE(waitFor([&] { return !session.busy(); }));
    EXPECT_EQ(ran, 0);
    session.confirmReauth(QStringLiteral("2468"));
    ASSERT_TRUE(waitFor([&] { return ran == 1; }));
    EXPECT_FALSE(session.reauthPending());
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT elevated_until > now() FROM sessions WHERE ended_at IS NULL")).toBool(), true);
}

namespace {
struct TillFixture {
    static TestServer::Options serverOptions()
    {
        TestServer::Options options;
        options.paymentWebhookSecret = PaySimProcess::kSecret;
        return options;
    }
    TestServer server{serverOptions()};
    std::unique_ptr<PaySimProcess> sim; // card payments (the till's simulated terminal pays there)
    QTemporaryDir dir;
    qint64 showId = 0;
    std::unique_ptr<TillController> till;

    enum class Cards { No, Yes };
    explicit TillFixture(QDateTime startsAt = QDateTime::currentDateTimeUtc().addSecs(5 * 3600), Cards cards = Cards::No)
    {
        showId = server.createShow(6, 10, startsAt);
        addStaff(server, QStringLiteral("cashier1"), QStringLiteral("cashier"));
        addStaff(server, QStringLiteral("boss"), QStringLiteral("manager"));
        config = staffConfig(server, QStringLiteral("cashier"), dir.path());
        config.escposTarget = dir.filePath(QStringLiteral("printer.bin"));
        if (cards == Cards::Yes) {
            sim = std::make_unique<PaySimProcess>(server, PaySimProcess::Options{});
            config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(sim->port()));
        }
        till = std::make_unique<TillController>(config);
    }
    /** @brief Run the till as an enrolled till device (its --token, sent with sign-in); returns the device's name. */
    QString enrolAsTill()
    {
        config.token = server.deviceToken(QStringLiteral("till"));
        till = std::make_unique<TillController>(config);
        return server.scalar(QStringLiteral("SELECT name FROM devices WHERE device_id = (SELECT max(device_id) FROM devices)")).toString();
    }
    AppConfig config;
    bool signIn()
    {
        till->session()->signIn(QStringLiteral("cashier1"), kStaffPassword);
        return waitFor([&] { return till->screen() == QLatin1String("sale") && till->seatMap()->seatCount() > 0 && !till->busy(); });
    }
    QByteArray printerBytes() const
    {
        QFile file(dir.filePath(QStringLiteral("printer.bin")));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
};
} // namespace

TEST(Till, CashSaleWithChangeKicksTheDrawerAndPrints)
{
    TillFixture f;
    ASSERT_TRUE(f.signIn());
    EXPECT_EQ(f.till->currentShowId(), f.showId);
    EXPECT_EQ(f.till->shows()->rowAt(0).value(QStringLiteral("seats_left")).toInt(), 60);
    ASSERT_TRUE(f.till->bestAvailable(2));
    const qint64 total = f.till->seatMap()->selectedTotalMinor();
    ASSERT_GT(total, 0);
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    EXPECT_TRUE(f.till->holdActive());

    // Less than the total is refused and nothing is sold.
    f.till->payCash(QStringLiteral("1"));
    EXPECT_TRUE(f.till->messageIsError());
    EXPECT_EQ(f.till->screen(), QStringLiteral("tender"));

    const qint64 tendered = (total / 1000 + 1) * 1000; // the next round note amount above the total
    QSignalSpy printed(f.till.get(), &TillController::printerBytesSent);
    f.till->payCash(QString::number(tendered / 100));
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done"); })) << qPrintable(f.till->message());
    const QVariantMap sale = f.till->lastSale();
    EXPECT_EQ(sale.value(QStringLiteral("count")).toInt(), 2);
    EXPECT_EQ(sale.value(QStringLiteral("change_minor")).toLongLong(), tendered - total);
    EXPECT_FALSE(sale.value(QStringLiteral("booking_ref")).toString().isEmpty());

    // The server has the booking, two seats booked, paid in cash.
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(f.showId)).toInt(), 2);
    // The drawer opened with the tickets: the ESC/POS job starts with the pulse.
    ASSERT_EQ(printed.count(), 1);
    EXPECT_TRUE(f.printerBytes().startsWith(drawerKickCommand()));
    EXPECT_TRUE(QFile::exists(f.till->lastPdfPath()));
    // The server recorded what was handed over and the change (the Z-report's change given comes from there).
    const QString orderId = f.server.scalar(QStringLiteral("SELECT order_id FROM bookings WHERE booking_ref = '%1'")
                                                .arg(sale.value(QStringLiteral("booking_ref")).toString())).toString();
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT tendered_minor FROM orders WHERE order_id = '%1'").arg(orderId)).toLongLong(), tendered);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT change_minor FROM orders WHERE order_id = '%1'").arg(orderId)).toLongLong(), tendered - total);

    f.till->newSale();
    EXPECT_EQ(f.till->screen(), QStringLiteral("sale"));
}

TEST(Till, SignsInWithItsDeviceTokenSoTheSaleIsAuditedWithTheTill)
{
    TillFixture f;
    AppConfig config = staffConfig(f.server, QStringLiteral("cashier"), f.dir.path());
    config.token = f.server.deviceToken(QStringLiteral("till")); // the till's enrolled device (--token)
    const qint64 tillId = f.server.scalar(QStringLiteral("SELECT max(device_id) FROM devices")).toLongLong();
    f.till = std::make_unique<TillController>(config);
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(f.till->bestAvailable(2));
    const qint64 total = f.till->seatMap()->selectedTotalMinor();
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    f.till->payCash(QString::number(total / 100 + 20));
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done"); })) << qPrintable(f.till->message());
    const QString orderId = f.server.scalar(QStringLiteral("SELECT order_id FROM bookings WHERE booking_ref = '%1'")
                                                .arg(f.till->lastSale().value(QStringLiteral("booking_ref")).toString())).toString();
    // One audit row for the sale, by the cashier, from this till; the sign-in names the till too.
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'order.create'")).toInt(), 1);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT concat_ws('|', actor_name, actor_role, device_id, target) FROM audit_log WHERE action = 'order.create'"))
                  .toString(),
              QStringLiteral("cashier1|cashier|%1|order:%2").arg(tillId).arg(orderId));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT device_id FROM audit_log WHERE action = 'session.sign_in' AND actor_name = 'cashier1'")).toLongLong(),
              tillId);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM sessions WHERE device_id = %1").arg(tillId)).toInt(), 1);
}

TEST(Till, VoidReleasesTheHold)
{
    TillFixture f;
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(f.till->bestAvailable(3));
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(f.showId)).toInt(), 3);
    f.till->back();
    EXPECT_EQ(f.till->screen(), QStringLiteral("sale"));
    ASSERT_TRUE(waitFor([&] {
        return f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(f.showId)).toInt() == 0;
    }));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM orders")).toInt(), 0); // nothing was ordered
}

TEST(Till, FindsABookingRefundsInCashAndChecksTicketsIn)
{
    TillFixture f;
    ASSERT_TRUE(f.signIn());
    const QString managerToken = f.server.staffToken(QStringLiteral("manager"));
    const QJsonObject sold = sellForCash(f.server, managerToken, f.showId, {QStringLiteral("C4"), QStringLiteral("C5")});
    const QString ref = sold.value(QStringLiteral("booking_ref")).toString();
    ASSERT_FALSE(ref.isEmpty());

    f.till->openLookup();
    EXPECT_EQ(f.till->screen(), QStringLiteral("lookup"));
    f.till->find(QStringLiteral("nosuchref"));
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->messageIsError(); }));
    f.till->find(ref.toLower());
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("booking_ref")).toString() == ref; }));
    EXPECT_EQ(f.till->booking().value(QStringLiteral("seats")).toString(), QStringLiteral("C4, C5"));

    // The door: the first scan admits, the second says it was used. Doors open 3 h before; this show is in 5 h.
    const QString qr = sold.value(QStringLiteral("tickets")).toArray().first().toObject().value(QStringLiteral("qr")).toString();
    f.till->find(qr); // a scanner types the code into the search field
    ASSERT_TRUE(waitFor([&] { return f.till->checkin().contains(QStringLiteral("result")); }));
    EXPECT_EQ(f.till->checkin().value(QStringLiteral("result")).toString(), QStringLiteral("not_yet_valid"));
    f.till->checkIn(QStringLiteral("MQ1.garbage"));
    ASSERT_TRUE(waitFor([&] { return f.till->checkin().value(QStringLiteral("result")).toString() != QLatin1String("not_yet_valid"); }));
    EXPECT_FALSE(f.till->checkin().value(QStringLiteral("ok")).toBool());

    // Refund within policy: the password first, then cash back (the drawer opens) and the tickets are revoked.
    f.till->cancelBooking(QStringLiteral("customer is ill"));
    EXPECT_TRUE(f.till->session()->reauthPending());
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("cancelled")).toBool(); })) << qPrintable(f.till->message());
    EXPECT_TRUE(f.till->message().contains(QStringLiteral("cash")));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT cash_minor FROM refunds WHERE booking_id = '%1'")
                                  .arg(sold.value(QStringLiteral("booking_id")).toString())).toLongLong(),
              sold.value(QStringLiteral("amount_minor")).toInteger());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(f.showId)).toInt(), 0);
    EXPECT_TRUE(f.printerBytes().startsWith(drawerKickCommand()));
}

TEST(Till, ShowListCountsTheSeatsTheServerHasFree)
{
    TillFixture f;
    // Some seats sold and some held elsewhere before the till looks, so "left" differs from the seat count.
    sellForCash(f.server, f.server.staffToken(QStringLiteral("cashier")), f.showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    auto kiosk = f.server.client(f.server.deviceToken());
    const HttpResult held = kiosk->post("/api/v1/shows/" + QByteArray::number(f.showId) + "/hold",
                                        QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("B3"), QStringLiteral("B4"), QStringLiteral("B5")}}});
    ASSERT_EQ(held.status, 200) << held.body.constData();
    ASSERT_TRUE(f.signIn());

    // The server's own view: the full seat map's available seats, and the table itself.
    const HttpResult map = kiosk->get("/api/v1/shows/" + QByteArray::number(f.showId) + "/seatmap");
    ASSERT_EQ(map.status, 200) << map.body.constData();
    const QJsonArray seats = map.json().value(QStringLiteral("seats")).toArray();
    int available = 0;
    for (const QJsonValue &seat : seats)
        available += seat[QStringLiteral("status")].toString() == QLatin1String("available");
    const int inTable
        = f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'available'").arg(f.showId)).toInt();
    EXPECT_EQ(available, inTable);
    EXPECT_EQ(available, int(seats.size()) - 5);

    ASSERT_EQ(f.till->shows()->count(), 1);
    const QVariantMap row = f.till->shows()->rowAt(0);
    EXPECT_EQ(row.value(QStringLiteral("show_id")).toLongLong(), f.showId);
    EXPECT_EQ(row.value(QStringLiteral("seats_left")).toInt(), available);
    EXPECT_EQ(row.value(QStringLiteral("seats_total")).toInt(), int(seats.size()));

    // A refresh after another sale follows the server.
    sellForCash(f.server, f.server.staffToken(QStringLiteral("cashier")), f.showId, {QStringLiteral("C1")});
    f.till->refreshShows();
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->shows()->count() == 1
                                     && f.till->shows()->rowAt(0).value(QStringLiteral("seats_left")).toInt() == available - 1; }))
        << "seats_left is " << f.till->shows()->rowAt(0).value(QStringLiteral("seats_left")).toInt();
}

TEST(Till, RefundCloseToTheShowNeedsAManagerAndAReason)
{
    TillFixture f(QDateTime::currentDateTimeUtc().addSecs(3600)); // inside the 2-hour cancel cut-off
    ASSERT_TRUE(f.signIn());
    const QJsonObject sold = sellForCash(f.server, f.server.staffToken(QStringLiteral("manager")), f.showId, {QStringLiteral("A1")});
    f.till->openLookup();
    f.till->find(sold.value(QStringLiteral("booking_ref")).toString());
    ASSERT_TRUE(waitFor([&] { return f.till->booking().contains(QStringLiteral("booking_ref")); }));

    f.till->cancelBooking({});
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("needs_override")).toBool(); }));
    EXPECT_FALSE(f.till->booking().value(QStringLiteral("cancelled")).toBool());

    f.till->overrideCancel(QStringLiteral("boss"), kStaffPassword, {}); // no reason: refused before asking anyone
    EXPECT_TRUE(f.till->messageIsError());
    f.till->overrideCancel(QStringLiteral("cashier1"), kStaffPassword, QStringLiteral("projector broke")); // not a manager
    ASSERT_TRUE(waitFor([&] { return !f.till->session()->busy(); }));
    EXPECT_FALSE(f.till->booking().value(QStringLiteral("cancelled")).toBool());
    f.till->overrideCancel(QStringLiteral("boss"), kStaffPassword, QStringLiteral("projector broke"));
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("cancelled")).toBool(); })) << qPrintable(f.till->message());
    EXPECT_EQ(f.till->booking().value(QStringLiteral("cancel_reason")).toString(), QStringLiteral("projector broke"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'booking.cancel.override'")).toInt(), 1);
    // The cashier is still signed in: the manager's session was only for this refund.
    EXPECT_TRUE(f.till->session()->signedIn());
}

namespace {
/** @brief The first ESC/POS raster (GS v 0) in @p job as an image: black where the printer puts ink. */
QImage imageOfEscPosRaster(const QByteArray &job)
{
    const qsizetype at = job.indexOf(QByteArray("\x1d\x76\x30\x00", 4));
    if (at < 0 || job.size() < at + 8)
        return {};
    const int widthBytes = quint8(job[at + 4]) | quint8(job[at + 5]) << 8;
    const int height = quint8(job[at + 6]) | quint8(job[at + 7]) << 8;
    if (job.size() < at + 8 + qsizetype(widthBytes) * height)
        return {};
    QImage image(widthBytes * 8, height, QImage::Format_RGB32);
    const char *data = job.constData() + at + 8;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < widthBytes * 8; ++x)
            image.setPixel(x, y, (quint8(data[y * widthBytes + x / 8]) & (0x80 >> (x % 8))) ? qRgb(0, 0, 0) : qRgb(255, 255, 255));
    return image;
}

/** @brief How many rows of @p image have any black in them. */
int inkRows(const QImage &image)
{
    int rows = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qGray(image.pixel(x, y)) < 128) {
                ++rows;
                break;
            }
    return rows;
}

/** @brief Sell the best @p seats seats at @p f's till: hold, then @p pay on the tender screen; the sale's total. */
qint64 sellAtTill(TillFixture &f, int seats, const std::function<void()> &pay)
{
    if (!waitFor([&] { return f.till->screen() == QLatin1String("sale") && !f.till->busy() && !f.till->seatMap()->loading(); }) || !f.till->bestAvailable(seats))
        return 0;
    const qint64 total = f.till->seatMap()->selectedTotalMinor();
    f.till->holdSelection();
    if (!waitFor([&] { return f.till->screen() == QLatin1String("tender"); }))
        return 0;
    pay();
    return total;
}
} // namespace

TEST(Till, ShiftRunsOnTheServerAndItsZReportAddsUpAgainstTheBookings)
{
    TillFixture f(QDateTime::currentDateTimeUtc().addSecs(5 * 3600), TillFixture::Cards::Yes);
    const QString tillName = f.enrolAsTill();
    ASSERT_TRUE(f.signIn());
    EXPECT_FALSE(f.till->shiftOpen());
    f.till->openShift(QStringLiteral("150"));
    // The drawer opens for the float: the password again first, nothing is opened before it.
    ASSERT_TRUE(f.till->session()->reauthPending());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM shifts")).toInt(), 0);
    EXPECT_TRUE(f.printerBytes().isEmpty());
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return f.till->shiftOpen(); })) << qPrintable(f.till->message());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT opening_float_minor FROM shifts WHERE closed_at IS NULL")).toLongLong(), 15000);
    EXPECT_TRUE(f.printerBytes().startsWith(drawerKickCommand())); // the float goes in

    // 1. Cash with change.
    qint64 cashTendered = 0;
    const qint64 cashTotal = sellAtTill(f, 2, [&] {
        cashTendered = (f.till->totalMinor() / 1000 + 1) * 1000;
        f.till->payCash(QString::number(cashTendered / 100));
    });
    ASSERT_GT(cashTotal, 0);
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done"); })) << qPrintable(f.till->message());
    const QJsonObject cashBooking{{QStringLiteral("ref"), f.till->lastSale().value(QStringLiteral("booking_ref")).toString()}};
    f.till->newSale();

    // 2. Split: 5.00 cash (a 10 note handed over), the rest on a card at the terminal.
    const qint64 splitTotal = sellAtTill(f, 2, [&] { f.till->paySplit(QStringLiteral("5"), QStringLiteral("10")); });
    ASSERT_GT(splitTotal, 500);
    ASSERT_TRUE(waitFor([&] { return f.till->paymentState() == QLatin1String("card_waiting"); })) << qPrintable(f.till->message());
    f.till->presentCard(QStringLiteral("tok_visa"));
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done"); }, 20000)) << qPrintable(f.till->message());
    EXPECT_EQ(f.till->lastSale().value(QStringLiteral("change_minor")).toLongLong(), 500);
    EXPECT_EQ(f.till->lastSale().value(QStringLiteral("card_part_minor")).toLongLong(), splitTotal - 500);
    f.till->newSale();

    // 3. A declined card: an order that ends without a booking (a void).
    sellAtTill(f, 1, [&] { f.till->payCard(); });
    ASSERT_TRUE(waitFor([&] { return f.till->paymentState() == QLatin1String("card_waiting"); }));
    f.till->presentCard(QStringLiteral("tok_declined"));
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("sale") && f.till->messageIsError(); }, 20000));
    f.till->clearSelection();

    // 4. The cash sale is refunded in cash.
    f.till->openLookup();
    f.till->find(cashBooking.value(QStringLiteral("ref")).toString());
    ASSERT_TRUE(waitFor([&] { return f.till->booking().contains(QStringLiteral("booking_ref")) && !f.till->busy(); }));
    f.till->cancelBooking(QStringLiteral("wrong film"));
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("cancelled")).toBool(); })) << qPrintable(f.till->message());

    // 5. Cash in 20.00 and out 7.50, each with the password and a reason; a bad amount is refused before asking.
    f.till->openShiftScreen();
    f.till->moveCash(true, QStringLiteral("abc"), QStringLiteral("top-up"));
    EXPECT_TRUE(f.till->messageIsError());
    EXPECT_FALSE(f.till->session()->reauthPending());
    f.till->moveCash(true, QStringLiteral("20"), QStringLiteral("float top-up"));
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.server.scalar(QStringLiteral("SELECT count(*) FROM drawer_operations")).toInt() == 1; }))
        << qPrintable(f.till->message());
    f.till->moveCash(false, QStringLiteral("7.50"), QStringLiteral("milk for the cafe"));
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.server.scalar(QStringLiteral("SELECT count(*) FROM drawer_operations")).toInt() == 2; }));

    // The till's running figures are the server's.
    ASSERT_TRUE(waitFor([&] { return f.till->shift().value(QStringLiteral("sales_count")).toInt() == 2; }));
    const qint64 expected = 15000 + cashTotal + 500 + 2000 - 750 - cashTotal;
    ASSERT_TRUE(waitFor([&] { return f.till->shift().value(QStringLiteral("expected_cash_minor")).toLongLong() == expected; }))
        << f.till->shift().value(QStringLiteral("expected_cash_minor")).toLongLong();

    // 6. Close 1.00 short.
    QSignalSpy sent(f.till.get(), &TillController::printerBytesSent);
    f.till->closeShift(QString::number(double(expected - 100) / 100, 'f', 2));
    f.till->session()->confirmReauth(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !f.till->shiftOpen() && !f.till->zReport().isEmpty(); })) << qPrintable(f.till->message());
    const QVariantMap z = f.till->zReport();
    EXPECT_EQ(z.value(QStringLiteral("expected_cash_minor")).toLongLong(), expected);
    EXPECT_EQ(z.value(QStringLiteral("over_short_minor")).toLongLong(), -100);
    EXPECT_EQ(z.value(QStringLiteral("sales_count")).toInt(), 2);
    EXPECT_EQ(z.value(QStringLiteral("split_count")).toInt(), 1);
    EXPECT_EQ(z.value(QStringLiteral("refund_count")).toInt(), 1);
    EXPECT_EQ(z.value(QStringLiteral("void_count")).toInt(), 1);
    EXPECT_EQ(z.value(QStringLiteral("total_sales_minor")).toLongLong(), cashTotal + splitTotal);
    EXPECT_TRUE(QFile::exists(z.value(QStringLiteral("pdf")).toString()));
    // The slip names the till and the shift: its id, who opened it, when it was opened and closed (full dates).
    {
        const qint64 shiftId = z.value(QStringLiteral("shift_id")).toLongLong();
        ASSERT_GT(shiftId, 0);
        const QDateTime openedAt = f.server.scalar(QStringLiteral("SELECT opened_at FROM shifts WHERE shift_id = %1").arg(shiftId)).toDateTime();
        const QDateTime closedAt = f.server.scalar(QStringLiteral("SELECT closed_at FROM shifts WHERE shift_id = %1").arg(shiftId)).toDateTime();
        const auto local = [](const QDateTime &at) { return QLocale().toString(at.toLocalTime(), QStringLiteral("d MMM yyyy HH:mm")); };
        EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT d.name FROM shifts s JOIN devices d USING (device_id) WHERE s.shift_id = %1").arg(shiftId)).toString(),
                  tillName); // the shift runs on the till the cashier signed in at
        const QList<QPair<QString, QString>> slip = TillController::zReportSlipLines(z);
        const auto line = [&slip](const QString &label) {
            for (const auto &[name, value] : slip)
                if (name == label)
                    return value;
            return QStringLiteral("<no %1 line>").arg(label);
        };
        EXPECT_EQ(line(QStringLiteral("Till")), tillName);
        EXPECT_EQ(line(QStringLiteral("Shift")), QStringLiteral("#%1").arg(shiftId));
        EXPECT_EQ(line(QStringLiteral("Opened by")), QStringLiteral("cashier1"));
        EXPECT_EQ(line(QStringLiteral("Opened")), local(openedAt));
        EXPECT_EQ(line(QStringLiteral("Closed")), local(closedAt));
        EXPECT_EQ(line(QStringLiteral("Over / short")), z.value(QStringLiteral("over_short")).toString());
    }
    // The Z-report went to the receipt printer too: one ESC/POS raster, 576 dots wide, with a cut. Decoded back
    // and kept with the screenshots for people to look at.
    ASSERT_EQ(sent.count(), 1);
    const QImage printedZ = imageOfEscPosRaster(sent.first().first().toByteArray());
    ASSERT_EQ(printedZ.width(), 576);
    EXPECT_TRUE(sent.first().first().toByteArray().endsWith(QByteArray("\x1d\x56\x42\x00", 4)));
    EXPECT_GT(inkRows(printedZ), 200); // text on many lines, not a blank slip
    QDir().mkpath(QStringLiteral(MARQUEE_SCREENSHOT_DIR));
    EXPECT_TRUE(printedZ.save(QStringLiteral(MARQUEE_SCREENSHOT_DIR "/till-z-report-printed.png")));

    // Against the bookings themselves: the shift's orders that became bookings, their cash parts, the refunds.
    const QString shiftId = z.value(QStringLiteral("shift_id")).toString();
    const auto sql = [&](const QString &query) { return f.server.scalar(query.arg(shiftId)).toLongLong(); };
    EXPECT_EQ(sql(QStringLiteral("SELECT sum(b.amount_minor) FROM bookings b JOIN orders o USING (order_id) WHERE o.shift_id = %1")), cashTotal + splitTotal);
    const qint64 cashTaken = sql(QStringLiteral("SELECT sum(o.cash_minor) FROM bookings b JOIN orders o USING (order_id) WHERE o.shift_id = %1"));
    const qint64 cashRefunded = sql(QStringLiteral("SELECT coalesce(sum(cash_minor), 0) FROM refunds WHERE shift_id = %1"));
    const qint64 drawerNet = sql(QStringLiteral("SELECT sum(CASE kind WHEN 'cash_in' THEN amount_minor WHEN 'cash_out' THEN -amount_minor ELSE 0 END) "
                                                "FROM drawer_operations WHERE shift_id = %1"));
    EXPECT_EQ(cashTaken, cashTotal + 500);
    EXPECT_EQ(cashRefunded, cashTotal);
    EXPECT_EQ(15000 + cashTaken - cashRefunded + drawerNet, expected);
    EXPECT_EQ(sql(QStringLiteral("SELECT counted_cash_minor FROM shifts WHERE shift_id = %1")), expected - 100);
}

TEST(Till, SignOutReleasesTheHoldAndReturnsToSignIn)
{
    TillFixture f;
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(f.till->bestAvailable(2));
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->holdActive(); }));
    f.till->session()->signOut();
    EXPECT_EQ(f.till->screen(), QStringLiteral("signin"));
    ASSERT_TRUE(waitFor([&] {
        return f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(f.showId)).toInt() == 0;
    }));
}

TEST(Till, ReprintReissuesEveryTicketSoTheOldCodesNoLongerAdmit)
{
    TillFixture f(QDateTime::currentDateTimeUtc().addSecs(3600)); // doors are open (3 h before), so codes admit
    ASSERT_TRUE(f.signIn());
    const QString managerToken = f.server.staffToken(QStringLiteral("manager"));
    const QJsonObject sold = sellForCash(f.server, managerToken, f.showId, {QStringLiteral("D4"), QStringLiteral("D5")});
    const QString ref = sold.value(QStringLiteral("booking_ref")).toString();
    ASSERT_FALSE(ref.isEmpty());
    QSet<QString> oldCodes;
    for (const QJsonValue &ticket : sold.value(QStringLiteral("tickets")).toArray())
        oldCodes.insert(ticket.toObject().value(QStringLiteral("qr")).toString());
    ASSERT_EQ(oldCodes.size(), 2);

    f.till->openLookup();
    f.till->find(ref);
    ASSERT_TRUE(waitFor([&] { return f.till->booking().value(QStringLiteral("booking_ref")).toString() == ref && !f.till->busy(); }));
    const qsizetype printedBefore = f.printerBytes().size();
    f.till->reprintBooking();
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->message().contains(QStringLiteral("reissued")); })) << qPrintable(f.till->message());
    EXPECT_FALSE(f.till->messageIsError());
    EXPECT_GT(f.printerBytes().size(), printedBefore);

    // The booking's valid tickets are two new codes; both reissues are in the audit log.
    const HttpResult booking = f.server.client(managerToken)->get("/api/v1/bookings?ref=" + ref.toLatin1());
    ASSERT_EQ(booking.status, 200) << booking.body.constData();
    const QJsonArray tickets = booking.json().value(QStringLiteral("tickets")).toArray();
    ASSERT_EQ(tickets.size(), 2);
    for (const QJsonValue &ticket : tickets)
        EXPECT_FALSE(oldCodes.contains(ticket.toObject().value(QStringLiteral("qr")).toString()));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.reissue'")).toInt(), 2);

    // At the door: an old code is refused as replaced, a new one admits.
    const QString oldCode = *oldCodes.cbegin();
    f.till->checkIn(oldCode);
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->checkin().contains(QStringLiteral("result")); }));
    EXPECT_EQ(f.till->checkin().value(QStringLiteral("result")).toString(), QStringLiteral("revoked"));
    f.till->checkIn(tickets.first().toObject().value(QStringLiteral("qr")).toString());
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->checkin().value(QStringLiteral("result")).toString() != QLatin1String("revoked"); }));
    EXPECT_EQ(f.till->checkin().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
}

TEST(Till, PrintingASaleAgainAsksNamingTheTicketsThenReissuesThemSoTheFirstCodesNoLongerAdmit)
{
    TillFixture f(QDateTime::currentDateTimeUtc().addSecs(3600));
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(f.till->bestAvailable(2));
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    f.till->payCash({});
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done") && !f.till->busy(); })) << qPrintable(f.till->message());
    QStringList firstCodes;
    for (const PrintedTicket &ticket : f.till->lastPrint().tickets)
        firstCodes.append(ticket.qr);
    ASSERT_EQ(firstCodes.size(), 2);
    const qsizetype printedBefore = f.printerBytes().size();

    // P on the done screen asks first, naming the tickets it would revoke; keeping them reissues nothing.
    f.till->printAgain();
    EXPECT_FALSE(f.till->busy());
    QStringList seats;
    for (const PrintedTicket &ticket : f.till->lastPrint().tickets)
        seats.append(ticket.seatId);
    EXPECT_TRUE(f.till->reprintQuestion().contains(seats.join(QStringLiteral(", ")))) << qPrintable(f.till->reprintQuestion());
    f.till->cancelReprint();
    EXPECT_TRUE(f.till->reprintQuestion().isEmpty());
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.reissue'")).toInt(), 0);
    EXPECT_EQ(f.printerBytes().size(), printedBefore);

    // Asked and confirmed: the customer gets fresh codes, the first print's codes are revoked and it is audited.
    f.till->printAgain();
    ASSERT_FALSE(f.till->reprintQuestion().isEmpty());
    f.till->printAgain();
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->message().contains(QStringLiteral("reissued")); })) << qPrintable(f.till->message());
    EXPECT_FALSE(f.till->messageIsError());
    EXPECT_EQ(f.till->screen(), QStringLiteral("done"));
    EXPECT_GT(f.printerBytes().size(), printedBefore);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.reissue'")).toInt(), 2);
    QStringList secondCodes;
    for (const PrintedTicket &ticket : f.till->lastPrint().tickets)
        secondCodes.append(ticket.qr);
    ASSERT_EQ(secondCodes.size(), 2);
    for (const QString &code : secondCodes)
        EXPECT_FALSE(firstCodes.contains(code));
    // The printed ones are the booking's valid tickets now.
    const HttpResult booking = f.server.client(f.server.staffToken(QStringLiteral("manager")))
                                   ->get("/api/v1/bookings?ref=" + f.till->lastSale().value(QStringLiteral("booking_ref")).toString().toLatin1());
    ASSERT_EQ(booking.status, 200) << booking.body.constData();
    QStringList valid;
    for (const QJsonValue &ticket : booking.json().value(QStringLiteral("tickets")).toArray())
        valid.append(ticket.toObject().value(QStringLiteral("qr")).toString());
    valid.sort();
    secondCodes.sort();
    EXPECT_EQ(valid, secondCodes);

    f.till->checkIn(firstCodes.first());
    ASSERT_TRUE(waitFor([&] { return !f.till->busy() && f.till->checkin().contains(QStringLiteral("result")); }));
    EXPECT_EQ(f.till->checkin().value(QStringLiteral("result")).toString(), QStringLiteral("revoked"));
}

TEST(Till, TypedSeatsArePickedOneByOneAndRefusedWhenTakenOrUnknown)
{
    TillFixture f;
    sellForCash(f.server, f.server.staffToken(QStringLiteral("manager")), f.showId, {QStringLiteral("C3")});
    ASSERT_TRUE(f.signIn());
    EXPECT_TRUE(f.till->pickSeat(QStringLiteral("d 4"))); // as typed: lower case, a space
    EXPECT_TRUE(f.till->pickSeat(QStringLiteral("D5")));
    EXPECT_EQ(f.till->seatMap()->selectedSeats(), (QStringList{QStringLiteral("D4"), QStringLiteral("D5")}));
    EXPECT_FALSE(f.till->pickSeat(QStringLiteral("C3"))); // sold
    EXPECT_TRUE(f.till->messageIsError());
    EXPECT_FALSE(f.till->pickSeat(QStringLiteral("Z99")));
    EXPECT_TRUE(f.till->message().contains(QStringLiteral("Z99")));
    EXPECT_TRUE(f.till->pickSeat(QStringLiteral("D5"))); // again: unselected
    EXPECT_EQ(f.till->seatMap()->selectedSeats(), QStringList{QStringLiteral("D4")});
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT string_agg(seat_id, ',') FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(f.showId)).toString(),
              QStringLiteral("D4"));
    EXPECT_FALSE(f.till->pickSeat(QStringLiteral("D6"))); // the held sale is fixed until it is paid or voided
}

TEST(Till, AServerLockKeepsTheSaleAndAnExpiredSessionSignsOut)
{
    TillFixture f;
    ASSERT_TRUE(f.signIn());
    ASSERT_TRUE(f.till->bestAvailable(2));
    f.till->holdSelection();
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("tender"); }));
    const QString token = f.till->session()->token();

    // The till stood idle longer than the server allows (its own lock timer is longer): the server locks the session.
    f.server.scalar(QStringLiteral("UPDATE sessions SET last_active_at = now() - interval '1 hour' RETURNING 1"));
    f.server.context().auth.clearCache();
    f.till->payCash({});
    ASSERT_TRUE(waitFor([&] { return f.till->session()->locked(); })) << qPrintable(f.till->message());
    EXPECT_TRUE(f.till->session()->signedIn());
    EXPECT_TRUE(f.till->holdActive()); // the customer's seats are still theirs
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM orders")).toInt(), 0);
    // The password unlocks the server's session too, and the sale goes on where it stopped.
    f.till->session()->unlock(kStaffPassword);
    ASSERT_TRUE(waitFor([&] { return !f.till->session()->locked() && !f.till->session()->busy(); }));
    f.till->payCash({});
    ASSERT_TRUE(waitFor([&] { return f.till->screen() == QLatin1String("done"); })) << qPrintable(f.till->message());
    f.till->newSale();

    // The session reaches its end: the next request signs the cashier out with a sentence, and the token is dead
    // for good (the password does not bring an expired session back).
    const QString current = f.till->session()->token();
    f.server.scalar(QStringLiteral("UPDATE sessions SET expires_at = now() - interval '1 second' RETURNING 1"));
    f.server.context().auth.clearCache();
    f.till->refreshShift();
    ASSERT_TRUE(waitFor([&] { return !f.till->session()->signedIn(); }));
    EXPECT_EQ(f.till->screen(), QStringLiteral("signin"));
    EXPECT_FALSE(f.till->session()->errorString().isEmpty());
    auto expired = f.server.client(current);
    EXPECT_EQ(expired->get("/api/v1/cities").status, 401);
    EXPECT_EQ(expired->post("/api/v1/sessions/reauth", QJsonObject{{QStringLiteral("password"), kStaffPassword}}).status, 401);
    EXPECT_FALSE(token.isEmpty());
}
