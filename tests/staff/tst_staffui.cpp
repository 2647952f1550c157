// SPDX-License-Identifier: AGPL-3.0-or-later
// Both staff UIs offscreen against a real in-process server, walked with the keyboard like a cashier would, with a
// PNG of every screen in build/screenshots/: the till (sign-in, sale, tender, done, lookup, check-in, re-auth,
// refund, override, shift, Z-report, lock) and the manager desk (sign-in and every page).
#include "deskcontroller.h"
#include "staffapp.h"
#include "stafftesthelpers.h"
#include "tillcontroller.h"

#include <QDir>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;
using namespace marquee::test;

namespace {
const QString kShots = QStringLiteral(MARQUEE_SCREENSHOT_DIR);

/** @brief Keys typed at the till, counted (the "two seats in at most six presses" promise is measured, not assumed). */
struct Keyboard {
    QQuickWindow *window = nullptr;
    int presses = 0;
    void press(Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        QTest::keyClick(window, key, modifiers);
        ++presses;
        QTest::qWait(30);
    }
    void type(const QString &text)
    {
        for (QChar c : text) {
            QTest::keyClick(window, c.toLatin1());
            ++presses;
        }
        QTest::qWait(30);
    }
};

/** @brief Let bindings, animations and polls settle, then save the window as build/screenshots/NAME.png. */
void shoot(QQuickWindow *window, const QString &name)
{
    QTest::qWait(350);
    QDir().mkpath(kShots);
    const QImage image = window->grabWindow();
    ASSERT_FALSE(image.isNull());
    ASSERT_TRUE(image.save(kShots + QLatin1Char('/') + name + QStringLiteral(".png"))) << qPrintable(name);
}

QQuickWindow *load(QQmlApplicationEngine &engine, const QString &role)
{
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    engine.load(QUrl(staffMainUrl(role)));
    if (engine.rootObjects().isEmpty())
        return nullptr;
    auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
    window->resize(1920, 1080);
    window->show();
    window->requestActivate();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(window));
    return window;
}

/** @brief A cinema worth looking at: three films today with real-looking titles, some seats already sold. */
struct Cinema {
    TestServer server;
    QList<qint64> shows;
    explicit Cinema(int rows = 10, int seatsPerRow = 16)
    {
        const QStringList titles = {QStringLiteral("Dune: Part Two"), QStringLiteral("The Grand Budapest Hotel"), QStringLiteral("Spirited Away")};
        for (int i = 0; i < titles.size(); ++i) {
            const qint64 show = server.createShow(rows, seatsPerRow, QDateTime::currentDateTimeUtc().addSecs(3600 * (i + 1) + 1800));
            server.scalar(QStringLiteral("UPDATE movies SET title = '%1' WHERE movie_id = (SELECT movie_id FROM shows WHERE show_id = %2) "
                                         "RETURNING movie_id")
                              .arg(titles[i], QString::number(show)));
            server.scalar(QStringLiteral("UPDATE screens SET name = 'Screen %1' WHERE screen_id = (SELECT screen_id FROM shows WHERE show_id = %2) "
                                         "RETURNING screen_id")
                              .arg(i + 1)
                              .arg(show));
            server.scalar(QStringLiteral("UPDATE venues SET name = 'Marquee Centrum' WHERE venue_id = (SELECT venue_id FROM screens s JOIN shows h "
                                         "USING (screen_id) WHERE h.show_id = %1) RETURNING venue_id")
                              .arg(show));
            shows.append(show);
        }
        addStaff(server, QStringLiteral("ana"), QStringLiteral("cashier"));
        addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
    }
};
} // namespace

TEST(StaffUi, TillSaleOfTwoSeatsTakesAtMostSixKeysThenEveryTillScreen)
{
    Cinema cinema;
    const QString manager = cinema.server.staffToken(QStringLiteral("manager"));
    // Some seats of the next show are gone already, so the map and the seats-left column have something to show.
    sellForCash(cinema.server, manager, cinema.shows[0], {QStringLiteral("E7"), QStringLiteral("E8"), QStringLiteral("E9"), QStringLiteral("E10")});
    sellForCash(cinema.server, manager, cinema.shows[0], {QStringLiteral("F6"), QStringLiteral("F7")});
    const QJsonObject earlier = sellForCash(cinema.server, manager, cinema.shows[1], {QStringLiteral("D8"), QStringLiteral("D9")});

    QTemporaryDir dir;
    AppConfig config = staffConfig(cinema.server, QStringLiteral("cashier"), dir.path());
    TillController till(config);
    TillController::setInstance(&till);
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("cashier"));
        ASSERT_NE(window, nullptr);
        Keyboard keys{window};

        shoot(window, QStringLiteral("till-01-signin"));
        keys.type(QStringLiteral("ana"));
        keys.press(Qt::Key_Return);
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && till.seatMap()->seatCount() > 0 && !till.busy(); }));

        // From here on every key counts: a sale of two seats for the next show.
        keys.presses = 0;
        keys.press(Qt::Key_2);
        ASSERT_EQ(till.seatMap()->selectedCount(), 2);
        shoot(window, QStringLiteral("till-02-sale-two-seats"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); }));
        keys.press(Qt::Key_Return); // cash, exact
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done"); })) << qPrintable(till.message());
        EXPECT_LE(keys.presses, 6);
        EXPECT_EQ(keys.presses, 3);
        EXPECT_EQ(till.lastSale().value(QStringLiteral("count")).toInt(), 2);
        EXPECT_EQ(till.currentShowId(), cinema.shows[0]);
        std::printf("two seats for the next show sold in %d key presses after sign-in\n", keys.presses);

        // The next sale: three seats, cash with change.
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && !till.busy(); }));
        keys.press(Qt::Key_3);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); }));
        const qint64 total = till.totalMinor();
        const qint64 tendered = (total / 5000 + 1) * 5000;
        keys.type(QString::number(tendered / 100));
        shoot(window, QStringLiteral("till-03-tender-cash"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done"); })) << qPrintable(till.message());
        EXPECT_EQ(till.lastSale().value(QStringLiteral("change_minor")).toLongLong(), tendered - total);
        shoot(window, QStringLiteral("till-04-done-change"));
        const QString soldRef = till.lastSale().value(QStringLiteral("booking_ref")).toString();

        // Find a booking (F2), type the reference.
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && !till.busy(); }));
        keys.press(Qt::Key_F2);
        ASSERT_EQ(till.screen(), QStringLiteral("lookup"));
        keys.type(earlier.value(QStringLiteral("booking_ref")).toString());
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.booking().contains(QStringLiteral("booking_ref")); }));
        // A scanner types a ticket code and Enter.
        keys.type(earlier.value(QStringLiteral("tickets")).toArray().first().toObject().value(QStringLiteral("qr")).toString());
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.checkin().contains(QStringLiteral("result")); }));
        EXPECT_EQ(till.checkin().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
        shoot(window, QStringLiteral("till-05-lookup-checkin"));

        // Refund (F8): the password again first.
        keys.press(Qt::Key_F8);
        ASSERT_TRUE(till.session()->reauthPending());
        shoot(window, QStringLiteral("till-06-reauth"));
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("cancelled")).toBool(); })) << qPrintable(till.message());
        shoot(window, QStringLiteral("till-07-refunded"));

        // A booking too close to the show: the manager override form.
        const qint64 soon = cinema.server.createShow(6, 10, QDateTime::currentDateTimeUtc().addSecs(1800));
        const QJsonObject late = sellForCash(cinema.server, manager, soon, {QStringLiteral("C3"), QStringLiteral("C4")});
        till.find(late.value(QStringLiteral("booking_ref")).toString());
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("booking_ref")) == late.value(QStringLiteral("booking_ref")).toString(); }));
        till.cancelBooking({});
        till.session()->confirmReauth(kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("needs_override")).toBool(); }));
        shoot(window, QStringLiteral("till-08-override"));

        // The shift (F3): open with a float, then close with a count; the Z-report.
        keys.press(Qt::Key_F3);
        ASSERT_EQ(till.screen(), QStringLiteral("shift"));
        shoot(window, QStringLiteral("till-09-shift-open"));
        keys.type(QStringLiteral("150"));
        keys.press(Qt::Key_Return);
        till.session()->confirmReauth(kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return till.shiftOpen(); }));
        ASSERT_TRUE(waitFor([&] { return !till.session()->busy(); }));
        keys.type(QStringLiteral("148.50"));
        shoot(window, QStringLiteral("till-10-shift-running"));
        keys.press(Qt::Key_Return);
        till.session()->confirmReauth(kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return !till.shiftOpen(); }));
        EXPECT_EQ(till.zReport().value(QStringLiteral("over_short_minor")).toLongLong(), -150);
        shoot(window, QStringLiteral("till-11-z-report"));

        keys.press(Qt::Key_F9);
        ASSERT_TRUE(till.session()->locked());
        shoot(window, QStringLiteral("till-12-locked"));
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return !till.session()->locked(); }));
        EXPECT_FALSE(soldRef.isEmpty());
    }
    TillController::setInstance(nullptr);
}

TEST(StaffUi, ManagerDeskEveryPage)
{
    Cinema cinema(12, 18);
    const QString manager = cinema.server.elevatedStaffToken(QStringLiteral("manager"));
    const QString till = cinema.server.deviceToken(QStringLiteral("till"));
    const QString kiosk = cinema.server.deviceToken(QStringLiteral("kiosk"));
    cinema.server.client(kiosk)->post("/api/v1/devices/heartbeat", QJsonObject{{"queue_length", 0}, {"printer_state", "ok"}, {"app_version", "0.1.0"}});
    cinema.server.client(till)->post("/api/v1/devices/heartbeat", QJsonObject{{"queue_length", 3}, {"printer_state", "paper_low"}, {"app_version", "0.1.0"}});
    // Sales over the last two weeks: centre seats first, then outwards (so the heat map has a story), some days
    // busier than others; created_at is moved back to spread them over the range.
    const QStringList rows = {QStringLiteral("F"), QStringLiteral("G"), QStringLiteral("E"), QStringLiteral("H"), QStringLiteral("D")};
    int sale = 0;
    for (const QString &row : rows) {
        for (int pair = 0; pair < 4; ++pair) {
            const int left = 9 - pair * 2;
            const int right = 10 + pair * 2;
            for (const QStringList &seats : {QStringList{row + QString::number(left - 1), row + QString::number(left)},
                                             QStringList{row + QString::number(right), row + QString::number(right + 1)}}) {
                const QJsonObject booking = sellForCash(cinema.server, sale % 3 == 0 ? till : manager, cinema.shows[sale % 3 == 2 ? 1 : 0], seats);
                const int daysAgo = (sale * 7) % 13;
                cinema.server.scalar(QStringLiteral("UPDATE bookings SET created_at = created_at - interval '%1 days' WHERE booking_id = '%2' "
                                                    "RETURNING booking_id")
                                         .arg(daysAgo)
                                         .arg(booking.value(QStringLiteral("booking_id")).toString()));
                ++sale;
            }
        }
    }
    // A refund on the close show: a manager override with a reason, so the audit log and refunds have a row.
    {
        const QJsonObject refunded = sellForCash(cinema.server, manager, cinema.shows[0], {QStringLiteral("A1"), QStringLiteral("A2")});
        const HttpResult cancel = cinema.server.client(manager)->post(
            "/api/v1/bookings/" + refunded.value(QStringLiteral("booking_id")).toString().toLatin1() + "/cancel",
            QJsonObject{{QStringLiteral("reason"), QStringLiteral("double booking at the counter")}});
        EXPECT_EQ(cancel.status, 200) << cancel.body.constData();
    }
    QTemporaryDir dir;
    DeskController desk(staffConfig(cinema.server, QStringLiteral("manager"), dir.path()));
    DeskController::setInstance(&desk);
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("manager"));
        ASSERT_NE(window, nullptr);
        shoot(window, QStringLiteral("desk-01-signin"));
        desk.session()->signIn(QStringLiteral("mia"), kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return desk.page() == QLatin1String("dashboard") && !desk.busy() && desk.shows()->count() > 0; }));
        shoot(window, QStringLiteral("desk-02-dashboard"));
        desk.setPage(QStringLiteral("occupancy"));
        desk.openOccupancy(cinema.shows[0]);
        ASSERT_TRUE(waitFor([&] { return desk.occupancy().contains(QStringLiteral("show_id")) && !desk.busy(); }));
        shoot(window, QStringLiteral("desk-03-occupancy-heatmap"));
        desk.setPage(QStringLiteral("shows"));
        shoot(window, QStringLiteral("desk-04-shows"));
        desk.setPage(QStringLiteral("fleet"));
        shoot(window, QStringLiteral("desk-05-fleet"));
        desk.setPage(QStringLiteral("shifts"));
        shoot(window, QStringLiteral("desk-06-shifts"));
        desk.setPage(QStringLiteral("audit"));
        shoot(window, QStringLiteral("desk-07-audit"));
        EXPECT_GT(desk.audit()->count(), 0);
        EXPECT_EQ(desk.devices()->count(), 2);
    }
    DeskController::setInstance(nullptr);
}
