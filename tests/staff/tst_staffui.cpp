// SPDX-License-Identifier: AGPL-3.0-or-later
// Both staff UIs offscreen against a real in-process server, walked with the keyboard like a cashier would, with a
// PNG of every screen in build/screenshots/: the till (sign-in, sale, tender, done, lookup, check-in, re-auth,
// refund, override, shift, Z-report, lock) and the manager desk (sign-in and every page).
#include "../server/paysimprocess.h"
#include "deskcontroller.h"
#include "staffapp.h"
#include "stafftesthelpers.h"
#include "sync/reconciler.h"
#include "insecurehttp.h"
#include "quickitems.h"
#include "screenshots.h"
#include "seatmapitem.h"
#include "tillcontroller.h"
#include "tillsupport.h"

#include <QDir>
#include <QFile>
#include <QPointingDevice>
#include <QSignalSpy>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;
using namespace marquee::test;

namespace {
const QString kShots = marquee::test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));

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
    ASSERT_EQ(unexpectedGraphicsApi(window), QString()) << qPrintable(name);
    ASSERT_TRUE(image.save(kShots + QLatin1Char('/') + name + QStringLiteral(".png"))) << qPrintable(name);
}

/** @brief The texts under @p parent that are cut off (elided or past their line limit). */
QStringList truncatedTexts(QQuickItem *parent)
{
    QStringList texts;
    for (QQuickItem *child : parent->childItems()) {
        if (!child->isVisible())
            continue;
        if (child->property("truncated").toBool())
            texts.append(child->property("text").toString());
        texts.append(truncatedTexts(child));
    }
    return texts;
}

/** @brief A mouse click in the middle of the item named @p name; false when it is not there or disabled. */
bool clickOn(QQuickWindow *window, const QString &name)
{
    QQuickItem *item = itemNamed(window, name);
    if (!item || !item->isEnabled())
        return false;
    const QPointF centre = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
    QTest::mouseClick(window, Qt::LeftButton, Qt::NoModifier, centre.toPoint());
    QTest::qWait(30);
    return true;
}

/** @brief Click into the field named @p name and type @p text there. */
bool typeInto(QQuickWindow *window, const QString &name, const QString &text)
{
    if (!clickOn(window, name))
        return false;
    for (QChar c : text)
        QTest::keyClick(window, c.toLatin1());
    QTest::qWait(30);
    return true;
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
    static TestServer::Options serverOptions()
    {
        TestServer::Options options;
        options.paymentWebhookSecret = PaySimProcess::kSecret;
        return options;
    }
    TestServer server{serverOptions()};
    PaySimProcess sim{server, {}}; // the till's card terminal pays here
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
    config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(cinema.sim.port()));
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

        // A split payment: 20.00 handed over for a 10.00 cash part (F5 moves to the cash part), the rest by card.
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && !till.busy(); }));
        keys.press(Qt::Key_2);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); }));
        const qint64 splitTotal = till.totalMinor();
        ASSERT_GT(splitTotal, 1000);
        keys.type(QStringLiteral("20"));
        keys.press(Qt::Key_F5);
        keys.type(QStringLiteral("10"));
        // The customer leaves a phone number with the order, so the booking can be found by it later.
        ASSERT_TRUE(typeInto(window, QStringLiteral("customerContactField"), QStringLiteral("+31 6 5555 0101")));
        QTest::qWait(100);
        ASSERT_NE(itemNamed(window, QStringLiteral("splitButton")), nullptr);
        EXPECT_TRUE(itemNamed(window, QStringLiteral("splitButton"))->isEnabled());
        EXPECT_FALSE(itemNamed(window, QStringLiteral("cashButton"))->isEnabled()); // a split is not a cash sale
        shoot(window, QStringLiteral("till-04a-tender-split"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.paymentState() == QLatin1String("card_waiting"); })) << qPrintable(till.message());
        shoot(window, QStringLiteral("till-04b-split-card"));
        ASSERT_TRUE(clickOn(window, QStringLiteral("simulatorApprove")));
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done"); }, 20000)) << qPrintable(till.message());
        EXPECT_EQ(till.lastSale().value(QStringLiteral("method")).toString(), QStringLiteral("split"));
        EXPECT_EQ(till.lastSale().value(QStringLiteral("change_minor")).toLongLong(), 1000);
        // The server's order: 10.00 cash, the rest paid by card at paysim, booked.
        const QString splitOrder = cinema.server.scalar(QStringLiteral("SELECT order_id FROM bookings WHERE booking_ref = '%1'")
                                                            .arg(till.lastSale().value(QStringLiteral("booking_ref")).toString())).toString();
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT cash_minor FROM orders WHERE order_id = '%1'").arg(splitOrder)).toLongLong(), 1000);
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT tendered_minor FROM orders WHERE order_id = '%1'").arg(splitOrder)).toLongLong(), 2000);
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(splitOrder)).toString(), QStringLiteral("CONFIRMED"));
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT customer_phone FROM bookings WHERE order_id = '%1'").arg(splitOrder)).toString(),
                  QStringLiteral("+31655550101"));
        const QString splitRef = till.lastSale().value(QStringLiteral("booking_ref")).toString();
        shoot(window, QStringLiteral("till-04c-split-done"));

        // Find a booking (F2): by the phone the customer gave at the split sale (one booking: it opens) ...
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && !till.busy(); }));
        keys.press(Qt::Key_F2);
        ASSERT_EQ(till.screen(), QStringLiteral("lookup"));
        keys.type(QStringLiteral("+31 6 5555 0101"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("booking_ref")).toString() == splitRef && !till.busy(); }))
            << qPrintable(till.message());
        // ... by an e-mail with two bookings (listed, one clicked) ...
        const QJsonObject lenaFirst = sellForCash(cinema.server, manager, cinema.shows[2], {QStringLiteral("C5")},
                                                  {{QStringLiteral("customer_email"), QStringLiteral("lena@example.org")}});
        const QJsonObject lenaSecond = sellForCash(cinema.server, manager, cinema.shows[2], {QStringLiteral("C7"), QStringLiteral("C8")},
                                                   {{QStringLiteral("customer_email"), QStringLiteral("Lena@Example.org")}});
        keys.type(QStringLiteral("lena@example.org"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.matches().size() == 2 && !till.busy(); })) << qPrintable(till.message());
        shoot(window, QStringLiteral("till-05a-lookup-by-email"));
        ASSERT_TRUE(clickOn(window, QStringLiteral("match1"))); // newest first: the second is the first booking
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("booking_ref")) == lenaFirst.value(QStringLiteral("booking_ref")).toString(); }));
        EXPECT_FALSE(lenaSecond.value(QStringLiteral("booking_ref")).toString().isEmpty());
        // ... and by the reference.
        ASSERT_TRUE(clickOn(window, QStringLiteral("lookupField")));
        keys.type(earlier.value(QStringLiteral("booking_ref")).toString());
        keys.press(Qt::Key_Return);
        // Lena's booking is still shown until the answer comes: wait for this one (the scan below must not race it).
        ASSERT_TRUE(waitFor([&] {
            return till.booking().value(QStringLiteral("booking_ref")) == earlier.value(QStringLiteral("booking_ref")).toString() && !till.busy();
        })) << qPrintable(till.message());
        // A scanner types a ticket code and Enter.
        keys.type(earlier.value(QStringLiteral("tickets")).toArray().first().toObject().value(QStringLiteral("qr")).toString());
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.checkin().contains(QStringLiteral("result")); }));
        EXPECT_EQ(till.checkin().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
        shoot(window, QStringLiteral("till-05-lookup-checkin"));

        // Refund (F8): the password again first. A ticket of this booking was just admitted at the door: a cashier
        // may not refund it (only a manager's override may), and the till says why.
        keys.press(Qt::Key_F8);
        ASSERT_TRUE(till.session()->reauthPending());
        shoot(window, QStringLiteral("till-06-reauth"));
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.message().contains(QStringLiteral("admitted")) && !till.busy(); })) << qPrintable(till.message());
        EXPECT_FALSE(till.booking().value(QStringLiteral("cancelled")).toBool());
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT state FROM bookings WHERE booking_ref = '%1'")
                                           .arg(earlier.value(QStringLiteral("booking_ref")).toString())).toString(),
                  QStringLiteral("confirmed"));
        shoot(window, QStringLiteral("till-06b-refund-refused-admitted"));
        // Lena's second booking, never scanned, is refunded.
        ASSERT_TRUE(clickOn(window, QStringLiteral("lookupField")));
        keys.type(lenaSecond.value(QStringLiteral("booking_ref")).toString());
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] {
            return till.booking().value(QStringLiteral("booking_ref")) == lenaSecond.value(QStringLiteral("booking_ref")).toString() && !till.busy();
        })) << qPrintable(till.message());
        keys.press(Qt::Key_F8);
        ASSERT_TRUE(till.session()->reauthPending());
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

TEST(StaffUi, EveryFrequentTillActionHasAKeyAndSeatsAreClickedTappedOrTyped)
{
    Cinema cinema;
    const QString manager = cinema.server.staffToken(QStringLiteral("manager"));
    const QJsonObject earlier = sellForCash(cinema.server, manager, cinema.shows[0], {QStringLiteral("H4"), QStringLiteral("H5")});

    QTemporaryDir dir;
    AppConfig config = staffConfig(cinema.server, QStringLiteral("cashier"), dir.path());
    config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(cinema.sim.port()));
    config.escposTarget = dir.filePath(QStringLiteral("printer.bin"));
    const auto count = [&](const QString &sql) { return cinema.server.scalar(sql).toInt(); };
    const auto held = [&] { return count(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(cinema.shows[0])); };
    const auto reissues = [&] { return count(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.reissue'")); };
    TillController till(config);
    const auto seatsLeft = [&](qint64 showId) {
        for (int row = 0; row < till.shows()->count(); ++row)
            if (till.shows()->rowAt(row).value(QStringLiteral("show_id")).toLongLong() == showId)
                return till.shows()->rowAt(row).value(QStringLiteral("seats_left")).toInt();
        return -1;
    };
    QSignalSpy printed(&till, &TillController::printerBytesSent);
    TillController::setInstance(&till);
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("cashier"));
        ASSERT_NE(window, nullptr);
        Keyboard keys{window};
        keys.type(QStringLiteral("ana"));
        keys.press(Qt::Key_Return);
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && till.seatMap()->seatCount() > 0 && !till.busy(); }));
        ASSERT_EQ(till.currentShowId(), cinema.shows[0]);

        // ↓ ↑ choose the show.
        keys.press(Qt::Key_Down);
        ASSERT_TRUE(waitFor([&] { return till.currentShowId() == cinema.shows[1] && till.seatMap()->showId() == cinema.shows[1] && !till.seatMap()->loading(); }));
        keys.press(Qt::Key_Up);
        ASSERT_TRUE(waitFor([&] { return till.currentShowId() == cinema.shows[0] && till.seatMap()->showId() == cinema.shows[0] && !till.seatMap()->loading(); }));

        // 1–9: the best N together; Esc clears.
        keys.press(Qt::Key_4);
        EXPECT_EQ(till.seatMap()->selectedCount(), 4);
        keys.press(Qt::Key_Escape);
        EXPECT_EQ(till.seatMap()->selectedCount(), 0);

        // Seats one by one: typed (F 7 Space), clicked with the mouse, tapped on a touch screen.
        keys.type(QStringLiteral("f7"));
        EXPECT_EQ(till.seatMap()->selectedCount(), 0); // not yet: the seat code is shown, Space picks it
        shoot(window, QStringLiteral("till-13-typed-seat"));
        keys.press(Qt::Key_Space);
        EXPECT_EQ(till.seatMap()->selectedSeats(), QStringList{QStringLiteral("F7")});
        keys.type(QStringLiteral("h4"));
        keys.press(Qt::Key_Space); // sold earlier: refused, said so
        EXPECT_TRUE(till.messageIsError());
        EXPECT_EQ(till.seatMap()->selectedCount(), 1);
        auto *map = qobject_cast<SeatMapItem *>(itemNamed(window, QStringLiteral("tillSeatMap")));
        ASSERT_NE(map, nullptr);
        QTest::mouseClick(window, Qt::LeftButton, Qt::NoModifier, map->mapToScene(map->seatPosition(QStringLiteral("F8"))).toPoint());
        ASSERT_TRUE(waitFor([&] { return till.seatMap()->selectedSeats().contains(QStringLiteral("F8")); }, 3000));
        static QPointingDevice *touchscreen = QTest::createTouchDevice();
        const QPoint f9 = map->mapToScene(map->seatPosition(QStringLiteral("F9"))).toPoint();
        QTest::touchEvent(window, touchscreen).press(0, f9);
        QTest::touchEvent(window, touchscreen).release(0, f9);
        ASSERT_TRUE(waitFor([&] { return till.seatMap()->selectedSeats().contains(QStringLiteral("F9")); }, 3000));
        EXPECT_EQ(till.seatMap()->selectedCount(), 3);
        shoot(window, QStringLiteral("till-14-seats-typed-clicked-tapped"));

        // Enter holds them; Esc on the tender screen voids the sale and gives the seats back.
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); })) << qPrintable(till.message());
        EXPECT_EQ(held(), 3);
        keys.press(Qt::Key_Escape);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && held() == 0; }));

        // F4: the card terminal; P on the done screen prints again — reissued tickets, audited.
        keys.press(Qt::Key_Escape);
        keys.press(Qt::Key_2);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); })) << qPrintable(till.message());
        keys.press(Qt::Key_F4);
        ASSERT_TRUE(waitFor([&] { return till.paymentState() == QLatin1String("card_waiting"); })) << qPrintable(till.message());
        ASSERT_TRUE(clickOn(window, QStringLiteral("simulatorApprove")));
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done") && !till.busy(); }, 20000)) << qPrintable(till.message());
        EXPECT_EQ(till.lastSale().value(QStringLiteral("method")).toString(), QStringLiteral("card"));
        EXPECT_EQ(reissues(), 0);
        // P asks first (the customer's codes would stop admitting); P again prints.
        keys.press(Qt::Key_P);
        ASSERT_TRUE(waitFor([&] { return !till.reprintQuestion().isEmpty(); }));
        EXPECT_EQ(reissues(), 0);
        shoot(window, QStringLiteral("till-15a-print-again-asks"));
        keys.press(Qt::Key_P);
        const QString reissued = shown("marquee::app::TillController", "%n ticket(s) reissued and printed again; the first codes no longer admit.", 2);
        ASSERT_TRUE(waitFor([&] { return !till.busy() && till.message() == reissued; })) << qPrintable(till.message());
        EXPECT_EQ(reissues(), 2);
        shoot(window, QStringLiteral("till-15-done-printed-again"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale") && !till.busy(); }));

        // Ctrl+R: today's shows again, with the seats someone else sold meanwhile.
        ASSERT_TRUE(waitFor([&] { return !till.shows()->loading(); }));
        const int leftBefore = seatsLeft(cinema.shows[2]);
        ASSERT_GT(leftBefore, 3);
        sellForCash(cinema.server, manager, cinema.shows[2], {QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")});
        keys.press(Qt::Key_R, Qt::ControlModifier);
        ASSERT_TRUE(waitFor([&] { return !till.busy() && seatsLeft(cinema.shows[2]) == leftBefore - 3; })) << seatsLeft(cinema.shows[2]);

        // F3: the shift, opened with a float after the password; F1 back to selling.
        keys.press(Qt::Key_F3);
        ASSERT_EQ(till.screen(), QStringLiteral("shift"));
        // The float field takes the focus once the shift page is shown (a frame later on a busy machine): type then.
        ASSERT_TRUE(waitFor([&] {
            QQuickItem *field = itemNamed(window, QStringLiteral("floatField"));
            return field && field->hasActiveFocus();
        }));
        keys.type(QStringLiteral("100"));
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.session()->reauthPending(); }));
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.shiftOpen() && !till.busy(); })) << qPrintable(till.message());
        keys.press(Qt::Key_F1);
        ASSERT_EQ(till.screen(), QStringLiteral("sale"));

        // F10: the drawer opens without a sale — the password again, recorded on the shift, the ESC/POS pulse.
        keys.press(Qt::Key_F10);
        ASSERT_TRUE(till.session()->reauthPending());
        shoot(window, QStringLiteral("till-16-drawer-reauth"));
        const qsizetype sentBefore = printed.count();
        keys.type(kStaffPassword);
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return count(QStringLiteral("SELECT count(*) FROM drawer_operations WHERE kind = 'no_sale'")) == 1 && printed.count() > sentBefore; }))
            << qPrintable(till.message());
        EXPECT_EQ(printed.last().first().toByteArray(), drawerKickCommand());

        // F2: find a booking; F7 reprints it (reissued); Esc goes back to selling.
        keys.press(Qt::Key_F2);
        ASSERT_EQ(till.screen(), QStringLiteral("lookup"));
        keys.type(earlier.value(QStringLiteral("booking_ref")).toString());
        keys.press(Qt::Key_Return);
        ASSERT_TRUE(waitFor([&] { return till.booking().value(QStringLiteral("booking_ref")) == earlier.value(QStringLiteral("booking_ref")).toString() && !till.busy(); }));
        keys.press(Qt::Key_F7);
        const QString reprinted = shown("marquee::app::TillController", "%n ticket(s) of %1 reissued and printed; the old codes no longer admit.", 2)
                                      .arg(earlier.value(QStringLiteral("booking_ref")).toString());
        ASSERT_TRUE(waitFor([&] { return !till.busy() && till.message() == reprinted; })) << qPrintable(till.message());
        EXPECT_EQ(reissues(), 4);
        keys.press(Qt::Key_Escape);
        EXPECT_EQ(till.screen(), QStringLiteral("sale"));
    }
    TillController::setInstance(nullptr);
}

TEST(StaffUi, DeskRefundsTableListsStaffAndAutomaticRefundsOfTheRange)
{
    // Holds of unpaid orders run out after a second, so a till's cash can land after its seats were released.
    TestServer::Options options;
    options.paymentWindowSeconds = 1;
    options.paymentGraceSeconds = 0;
    TestServer server(options);
    const qint64 later = server.createShow(6, 10, QDateTime::currentDateTimeUtc().addSecs(5 * 3600));
    const qint64 soon = server.createShow(4, 8, QDateTime::currentDateTimeUtc().addSecs(3600)); // inside the 2 h cut-off
    addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
    const QString tillToken = server.deviceToken(QStringLiteral("till"));
    const QString tillName = server.scalar(QStringLiteral("SELECT name FROM devices WHERE role = 'till'")).toString();
    auto till = server.client(tillToken);
    auto kiosk = server.client(server.deviceToken(QStringLiteral("kiosk")));
    // The till takes cash for seats whose hold then runs out and a kiosk takes one of them: refunded by the server,
    // once when the till confirms, once by the reconciler.
    auto cashOrderThatLosesItsHold = [&](const QStringList &seats) {
        const HttpResult hold = till->post("/api/v1/shows/" + QByteArray::number(later) + "/hold", QJsonObject{{"seat_ids", QJsonArray::fromStringList(seats)}});
        EXPECT_EQ(hold.status, 200) << hold.body.constData();
        const QString holdId = hold.json().value(QStringLiteral("hold_id")).toString();
        const HttpResult order = till->post("/api/v1/orders", QJsonObject{{"hold_id", holdId}, {"payment_method", "cash"}});
        EXPECT_EQ(order.status, 201) << order.body.constData();
        EXPECT_TRUE(waitFor([&] {
            return server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1' AND hold_expires_at >= now()").arg(holdId)).toInt() == 0;
        }));
        EXPECT_EQ(kiosk->post("/api/v1/shows/" + QByteArray::number(later) + "/hold", QJsonObject{{"seat_ids", QJsonArray{seats.first()}}}).status, 200);
        return order.json();
    };
    const QJsonObject lost = cashOrderThatLosesItsHold({QStringLiteral("A1"), QStringLiteral("A2")});
    const HttpResult confirmed = till->post("/api/v1/orders/" + lost.value(QStringLiteral("order_id")).toString().toLatin1() + "/confirm",
                                            QJsonObject{{"payment_intent_id", lost.value(QStringLiteral("payment_intent_id"))}});
    EXPECT_EQ(confirmed.json().value(QStringLiteral("error")).toString(), QStringLiteral("hold_lost")) << confirmed.body.constData();
    const QJsonObject unseen = cashOrderThatLosesItsHold({QStringLiteral("B1")});
    ASSERT_TRUE(waitFor([&] {
        server.context().orderService.reconcileOnce();
        return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(unseen.value(QStringLiteral("order_id")).toString())).toString()
            == QLatin1String("REFUNDED");
    }));
    // A manager's override with a reason, and a cashier's cancellation within the policy.
    const QString manager = server.elevatedStaffToken(QStringLiteral("manager"));
    const QJsonObject overridden = sellForCash(server, manager, soon, {QStringLiteral("A1")});
    ASSERT_EQ(server.client(manager)->post("/api/v1/bookings/" + overridden.value(QStringLiteral("booking_id")).toString().toLatin1() + "/cancel",
                                           QJsonObject{{"reason", "projector broke"}}).status, 200);
    const QString cashier = server.elevatedStaffToken(QStringLiteral("cashier"));
    const QJsonObject cancelled = sellForCash(server, cashier, later, {QStringLiteral("C1"), QStringLiteral("C2")});
    ASSERT_EQ(server.client(cashier)->post("/api/v1/bookings/" + cancelled.value(QStringLiteral("booking_id")).toString().toLatin1() + "/cancel",
                                           QJsonObject{{"reason", "customer changed plans"}}).status, 200);
    ASSERT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM refunds WHERE status = 'succeeded'")).toInt(), 4);

    QTemporaryDir dir;
    DeskController desk(staffConfig(server, QStringLiteral("manager"), dir.path()));
    DeskController::setInstance(&desk);
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("manager"));
        ASSERT_NE(window, nullptr);
        desk.session()->signIn(QStringLiteral("mia"), kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return desk.page() == QLatin1String("dashboard") && !desk.busy() && desk.refunds()->count() == 4; }))
            << desk.refunds()->count() << " " << qPrintable(desk.message());
        ASSERT_TRUE(clickOn(window, QStringLiteral("tab_refunds")));
        shoot(window, QStringLiteral("desk-02b-dashboard-refunds"));
        {
            // Every header is whole (the cells' texts may be elided: show titles are as long as they are).
            QQuickItem *titles = itemNamed(window, QStringLiteral("header_refunds"));
            ASSERT_NE(titles, nullptr);
            EXPECT_TRUE(truncatedTexts(titles).isEmpty()) << qPrintable(truncatedTexts(titles).join(QStringLiteral(" | ")));
        }

        QHash<QString, QVariantMap> byKind;
        qint64 ofBookings = 0;
        for (int i = 0; i < desk.refunds()->count(); ++i) {
            const QVariantMap row = desk.refunds()->rowAt(i);
            byKind.insert(row.value(QStringLiteral("kind_text")).toString(), row);
            if (!row.value(QStringLiteral("booking_ref")).toString().isEmpty())
                ofBookings += row.value(QStringLiteral("amount_minor")).toLongLong();
        }
        ASSERT_EQ(byKind.keys().size(), 4) << qPrintable(byKind.keys().join(QStringLiteral(", ")));
        const QVariantMap holdLost = byKind.value(shown("marquee::app::DeskController", "hold lost"));
        EXPECT_EQ(holdLost.value(QStringLiteral("amount_minor")).toLongLong(), lost.value(QStringLiteral("amount_minor")).toInteger());
        EXPECT_EQ(holdLost.value(QStringLiteral("payment_method")).toString(), QStringLiteral("cash"));
        EXPECT_EQ(holdLost.value(QStringLiteral("by")).toString(), shown("marquee::app::DeskController", "server (confirm)"));
        EXPECT_EQ(holdLost.value(QStringLiteral("device")).toString(), shown("marquee::app::DeskController", "%1 (sale)").arg(tillName));
        EXPECT_EQ(holdLost.value(QStringLiteral("reason_text")).toString(), shown("marquee::app::DeskController", "paid too late"));
        EXPECT_EQ(holdLost.value(QStringLiteral("status_text")).toString(), shown("marquee::app::DeskController", "refunded"));
        EXPECT_EQ(byKind.value(shown("marquee::app::DeskController", "reconciler")).value(QStringLiteral("by")).toString(), shown("marquee::app::DeskController", "server (reconciler)"));
        EXPECT_EQ(byKind.value(shown("marquee::app::DeskController", "reconciler")).value(QStringLiteral("amount_minor")).toLongLong(), unseen.value(QStringLiteral("amount_minor")).toInteger());
        const QVariantMap override_ = byKind.value(shown("marquee::app::DeskController", "override"));
        EXPECT_EQ(override_.value(QStringLiteral("reason_text")).toString(), QStringLiteral("projector broke"));
        EXPECT_EQ(override_.value(QStringLiteral("reference")).toString(), overridden.value(QStringLiteral("booking_ref")).toString());
        EXPECT_TRUE(override_.value(QStringLiteral("by")).toString().endsWith(QStringLiteral("(manager)"))) << qPrintable(override_.value(QStringLiteral("by")).toString());
        EXPECT_EQ(byKind.value(shown("marquee::app::DeskController", "staff cancel")).value(QStringLiteral("reason_text")).toString(), QStringLiteral("customer changed plans"));
        // The Refunds tile counts the refunds of bookings (as the sales figures do) and names the two that had none.
        EXPECT_EQ(desk.totals().value(QStringLiteral("refunds_minor")).toLongLong(), ofBookings);
        EXPECT_EQ(desk.totals().value(QStringLiteral("unbooked_refund_count")).toLongLong(), 2);
        QQuickItem *tile = itemNamed(window, QStringLiteral("tileRefunds"));
        ASSERT_NE(tile, nullptr);
        EXPECT_TRUE(tile->property("caption").toString().contains(shown("DeskDashboard", " · +%n unbooked", 2))) << qPrintable(tile->property("caption").toString());

        // Filtered and sorted like every table; exported through its button, one line per row.
        desk.refunds()->setFilterText(QStringLiteral("projector"));
        EXPECT_EQ(desk.refunds()->count(), 1);
        desk.refunds()->setFilterText(QString());
        const QString path = desk.exportDir() + QStringLiteral("/refunds-%1-%2.csv").arg(desk.fromDate(), desk.toDate());
        QFile::remove(path);
        ASSERT_TRUE(clickOn(window, QStringLiteral("export_refunds")));
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << qPrintable(path);
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        ASSERT_EQ(lines.size(), 5);
        EXPECT_TRUE(lines[0].startsWith("requested_at,kind_text,amount_minor,")) << lines[0].constData();
        EXPECT_TRUE(lines.join('\n').contains(lost.value(QStringLiteral("order_id")).toString().toLatin1())); // the Order column

        // The date range is the report's: a week long ago has none of them.
        const QDate weekAgo = QDate::currentDate().addDays(-14);
        ASSERT_TRUE(desk.setRange(weekAgo.toString(Qt::ISODate), weekAgo.addDays(6).toString(Qt::ISODate)));
        ASSERT_TRUE(waitFor([&] { return !desk.busy() && desk.refunds()->count() == 0; }));
        QQuickItem *empty = itemNamed(window, QStringLiteral("empty_refunds"));
        ASSERT_NE(empty, nullptr);
        EXPECT_EQ(empty->property("text").toString(), shown("DataTable", "Nothing here for this range."));
    }
    DeskController::setInstance(nullptr);
}

TEST(StaffUi, DeskAuditTableSaysWhenTheRangeIsCutAndLoadsTheRest)
{
    TestServer server;
    server.createShow(4, 8, QDateTime::currentDateTimeUtc().addSecs(3600));
    addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
    // A busy week: 2,450 till actions, one every four minutes, from 6.8 days ago to now.
    server.scalar(QStringLiteral(
        "INSERT INTO audit_log (at, actor, actor_name, actor_role, action, target, reason) "
        "SELECT now() - g * interval '4 minutes', 'session:' || (g % 9 + 1), (ARRAY['ana', 'ben', 'carla'])[g % 3 + 1], 'cashier', "
        "       (ARRAY['shift.open', 'drawer.no_sale', 'order.create', 'ticket.checkin', 'shift.close'])[g % 5 + 1], 'shift:' || (g / 60 + 1), "
        "       CASE WHEN g % 5 = 1 THEN 'change for a customer' ELSE '' END "
        "  FROM generate_series(1, 2450) g RETURNING 1"));

    QTemporaryDir dir;
    DeskController desk(staffConfig(server, QStringLiteral("manager"), dir.path()));
    DeskController::setInstance(&desk);
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("manager"));
        ASSERT_NE(window, nullptr);
        desk.session()->signIn(QStringLiteral("mia"), kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return desk.page() == QLatin1String("dashboard") && !desk.busy() && desk.audit()->totalCount() > 0; }))
            << qPrintable(desk.message());
        const qint64 inRange = server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE at >= timestamp '%1 00:00' AT TIME ZONE 'UTC'").arg(desk.fromDate())).toLongLong();
        ASSERT_GE(inRange, 2451); // the generated entries and mia's sign-in

        // The newest 2,000 of the range, and the page says how many there are and offers the rest.
        desk.setPage(QStringLiteral("audit"));
        EXPECT_EQ(desk.audit()->totalCount(), DeskController::kAuditPageSize);
        EXPECT_EQ(desk.auditTotal(), inRange);
        EXPECT_TRUE(desk.auditHasMore());
        EXPECT_EQ(desk.audit()->rowAt(0).value(QStringLiteral("action")).toString(), QStringLiteral("session.sign_in"));
        QQuickItem *notice = itemNamed(window, QStringLiteral("cutNoticeText_audit"));
        ASSERT_NE(notice, nullptr) << "a cut audit list says nothing";
        EXPECT_EQ(notice->property("text").toString(),
                  shown("marquee::app::DeskController", "Showing the newest %1 of %2 entries in this range. Load more, or narrow the range.")
                      .arg(QLocale().toString(2000), QLocale().toString(inRange)));
        QQuickItem *more = itemNamed(window, QStringLiteral("loadMore_audit"));
        ASSERT_NE(more, nullptr);
        EXPECT_EQ(more->property("text").toString(), shown("DeskMain", "Load %L1 more").arg(inRange - 2000));
        shoot(window, QStringLiteral("desk-07b-audit-cut"));

        // Load more appends the older entries: the whole range, newest first, each entry once; the notice goes.
        ASSERT_TRUE(clickOn(window, QStringLiteral("loadMore_audit")));
        ASSERT_TRUE(waitFor([&] { return !desk.busy() && !desk.auditHasMore(); }));
        EXPECT_EQ(desk.audit()->totalCount(), inRange);
        QSet<qint64> ids;
        QString previous;
        bool newestFirst = true;
        for (int i = 0; i < desk.audit()->totalCount(); ++i) {
            const QVariantMap row = desk.audit()->rowAt(i);
            ids.insert(row.value(QStringLiteral("audit_id")).toLongLong());
            const QString at = row.value(QStringLiteral("at")).toString();
            newestFirst = newestFirst && (previous.isEmpty() || at <= previous);
            previous = at;
        }
        EXPECT_EQ(ids.size(), inRange);
        EXPECT_TRUE(newestFirst);
        EXPECT_EQ(itemNamed(window, QStringLiteral("cutNotice_audit")), nullptr);
        EXPECT_TRUE(desk.auditNotice().isEmpty());
        shoot(window, QStringLiteral("desk-07c-audit-all-loaded"));

        // A shorter range fits in one page: no notice, nothing more to load.
        const QDate today = QDate::currentDate();
        ASSERT_TRUE(desk.setRange(today.toString(Qt::ISODate), today.toString(Qt::ISODate)));
        ASSERT_TRUE(waitFor([&] { return !desk.busy(); }));
        const qint64 todays = server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE at >= timestamp '%1 00:00' AT TIME ZONE 'UTC'").arg(desk.fromDate())).toLongLong();
        if (todays <= DeskController::kAuditPageSize) {
            EXPECT_EQ(desk.audit()->totalCount(), todays);
            EXPECT_FALSE(desk.auditHasMore());
            EXPECT_EQ(itemNamed(window, QStringLiteral("cutNotice_audit")), nullptr);
        }
    }
    DeskController::setInstance(nullptr);
}

TEST(StaffUi, ManagerDeskEveryPage)
{
    Cinema cinema(12, 18);
    const QString manager = cinema.server.elevatedStaffToken(QStringLiteral("manager"));
    const QString till = cinema.server.deviceToken(QStringLiteral("till"));
    const QString kiosk = cinema.server.deviceToken(QStringLiteral("kiosk"));
    // The kiosk's latest reconciliation after an outage, as the kiosk sends it (ReconciliationReport::fleetSummary
    // of its stored report): a refund due, a voided and an unknown ticket need a person; the rest is confirmed.
    sync::ReconciliationReport report;
    report.startedAt = QDateTime::currentDateTimeUtc().addSecs(-65);
    report.finishedAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    report.complete = false;
    for (int i = 1; i <= 6; ++i)
        report.tickets.append({QStringLiteral("tk-%1").arg(i), QStringLiteral("MQ4F%1").arg(i), 1, QStringLiteral("F%1").arg(i), QStringLiteral("confirmed"), {}});
    report.tickets.append({QStringLiteral("tk-7"), QStringLiteral("MQ9R2T"), 1, QStringLiteral("C4"), QStringLiteral("voided"),
                           QStringLiteral("The booking was refunded at the box office.")});
    report.tickets.append({QStringLiteral("tk-8"), QStringLiteral("MQ3H8W"), 1, QStringLiteral("C5"), QStringLiteral("unknown"),
                           QStringLiteral("The server could not be asked.")});
    report.payments.append({QStringLiteral("pi_ok"), QStringLiteral("o-1"), 2500, QStringLiteral("EUR"), QStringLiteral("MQ4F1"), QStringLiteral("confirmed"), {}});
    report.payments.append({QStringLiteral("pi_7XQ2"), QStringLiteral("o-2"), 1250, QStringLiteral("EUR"), QString(), QStringLiteral("refund_due"),
                            QStringLiteral("The seats could not be kept (hold_lost); the payment is refunded to the card.")});
    const HttpResult beat = cinema.server.client(kiosk)->post(
        "/api/v1/devices/heartbeat", QJsonObject{{"queue_length", 0}, {"printer_state", "ok"}, {"app_version", "0.1.0"},
                                                 {"reconciliation", sync::ReconciliationReport::fleetSummary(report.toJson())}});
    ASSERT_EQ(beat.status, 200) << beat.body.constData();
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
        {
            // The Qt Charts on the dashboard draw the report: bars of revenue per day that add up to the total, a
            // line of tickets; a pie of the channels.
            QQuickItem *perDay = itemNamed(window, QStringLiteral("revenueChart"));
            QQuickItem *channels = itemNamed(window, QStringLiteral("channelChart"));
            ASSERT_NE(perDay, nullptr);
            ASSERT_NE(channels, nullptr);
            EXPECT_EQ(perDay->property("count").toInt(), 2); // BarSeries + LineSeries
            EXPECT_EQ(channels->property("count").toInt(), 1);
            double charted = 0;
            for (const QVariant &euros : perDay->property("revenue").toList())
                charted += euros.toDouble();
            EXPECT_EQ(qRound64(charted * 100), desk.totals().value(QStringLiteral("revenue_minor")).toLongLong());
            EXPECT_GT(charted, 0);
        }
        desk.setPage(QStringLiteral("occupancy"));
        desk.openOccupancy(cinema.shows[0]);
        ASSERT_TRUE(waitFor([&] { return desk.occupancy().contains(QStringLiteral("show_id")) && !desk.busy(); }));
        shoot(window, QStringLiteral("desk-03-occupancy-heatmap"));

        // House holds: two seats kept back for the press through the form, then released with the button.
        ASSERT_TRUE(typeInto(window, QStringLiteral("houseSeatsField"), QStringLiteral("b3 b4")));
        ASSERT_TRUE(typeInto(window, QStringLiteral("houseReasonField"), QStringLiteral("press screening")));
        ASSERT_TRUE(clickOn(window, QStringLiteral("houseHoldButton")));
        ASSERT_TRUE(waitFor([&] { return desk.houseHolds().size() == 1 && !desk.busy(); })) << qPrintable(desk.message());
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id IN ('B3', 'B4') AND status = 'held'")
                                           .arg(cinema.shows[0])).toInt(), 2);
        ASSERT_TRUE(waitFor([&] { return desk.occupancy().value(QStringLiteral("house_held")).toInt() == 2; }));
        shoot(window, QStringLiteral("desk-03b-house-hold"));
        // A sold seat is refused and nothing is held.
        ASSERT_TRUE(typeInto(window, QStringLiteral("houseSeatsField"), QStringLiteral("F8 B5")));
        ASSERT_TRUE(clickOn(window, QStringLiteral("houseHoldButton")));
        ASSERT_TRUE(waitFor([&] { return desk.messageIsError() && !desk.busy(); }));
        EXPECT_EQ(desk.houseHolds().size(), 1);
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT status FROM show_seats WHERE show_id = %1 AND seat_id = 'B5'").arg(cinema.shows[0])).toString(),
                  QStringLiteral("available"));
        ASSERT_TRUE(clickOn(window, QStringLiteral("releaseHouseHold")));
        ASSERT_TRUE(waitFor([&] { return desk.houseHolds().isEmpty() && !desk.busy(); })) << qPrintable(desk.message());
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id IN ('B3', 'B4') AND status = 'available'")
                                           .arg(cinema.shows[0])).toInt(), 2);
        EXPECT_EQ(cinema.server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action LIKE 'house_hold.%'")).toInt(), 2);
        // The release's notice belongs to the occupancy page: it is shown there and gone on the next page.
        EXPECT_EQ(desk.message(), shown("marquee::app::DeskController", "House hold released; the seats are on sale again."));
        EXPECT_NE(itemNamed(window, QStringLiteral("pageNotice")), nullptr);
        desk.setPage(QStringLiteral("shows"));
        EXPECT_TRUE(desk.message().isEmpty()) << qPrintable(desk.message());
        shoot(window, QStringLiteral("desk-04-shows"));
        EXPECT_EQ(itemNamed(window, QStringLiteral("pageNotice")), nullptr) << "a notice of the occupancy page is still shown on Shows";
        for (const auto &[combo, prompt] : {std::pair{QStringLiteral("showMovie"), shown("DeskShows", "Choose a movie")},
                                            std::pair{QStringLiteral("showScreen"), shown("DeskShows", "Choose a screen")}}) {
            // A new show's movie and screen start unchosen, and say what to do instead of showing an empty box.
            QQuickItem *box = itemNamed(window, combo);
            ASSERT_NE(box, nullptr) << qPrintable(combo);
            EXPECT_EQ(box->property("currentIndex").toInt(), -1);
            EXPECT_EQ(box->property("contentItem").value<QQuickItem *>()->property("text").toString(), prompt);
        }
        {
            // Every column of the shows table, titles and values (the prices of two tiers), fits its panel.
            QQuickItem *shows = itemNamed(window, QStringLiteral("view_shows"));
            QQuickItem *titles = itemNamed(window, QStringLiteral("header_shows"));
            ASSERT_NE(shows, nullptr);
            ASSERT_NE(titles, nullptr);
            EXPECT_GE(desk.shows()->count(), 2);
            EXPECT_LE(shows->property("contentWidth").toReal(), shows->width() + 1);
            EXPECT_TRUE(truncatedTexts(shows).isEmpty()) << qPrintable(truncatedTexts(shows).join(QStringLiteral(" | ")));
            EXPECT_TRUE(truncatedTexts(titles).isEmpty()) << qPrintable(truncatedTexts(titles).join(QStringLiteral(" | ")));
        }
        desk.setPage(QStringLiteral("fleet"));
        ASSERT_TRUE(waitFor([&] { return desk.devices()->count() >= 2 && !desk.busy(); }));
        // The kiosk's reconciliation reached the manager: its three problem items, the refund first.
        const QVariantList problems = desk.reconciliationProblems();
        ASSERT_EQ(problems.size(), 3);
        EXPECT_EQ(problems[0].toMap().value(QStringLiteral("state")).toString(), QStringLiteral("refund_due"));
        EXPECT_EQ(problems[1].toMap().value(QStringLiteral("booking_ref")).toString(), QStringLiteral("MQ9R2T"));
        EXPECT_EQ(problems[2].toMap().value(QStringLiteral("state")).toString(), QStringLiteral("unknown"));
        QQuickItem *card = itemNamed(window, QStringLiteral("reconciliationCard"));
        ASSERT_NE(card, nullptr);
        EXPECT_TRUE(card->isVisible());
        shoot(window, QStringLiteral("desk-05-fleet"));
        {
            // The server's reconciliation list is what is open now, not what happened in the range: its empty
            // text says so.
            EXPECT_EQ(desk.reconciliation()->count(), 0);
            QQuickItem *empty = itemNamed(window, QStringLiteral("empty_reconciliation"));
            ASSERT_NE(empty, nullptr);
            EXPECT_EQ(empty->property("text").toString(), shown("DeskFleet", "No payments awaiting reconciliation."));
        }
        EXPECT_EQ(itemNamed(window, QStringLiteral("pageNotice")), nullptr) << qPrintable(desk.message());
        QQuickItem *fleetTitles = itemNamed(window, QStringLiteral("header_fleet"));
        ASSERT_NE(fleetTitles, nullptr);
        // "Payments ok / refund / open" was cut off.
        EXPECT_TRUE(truncatedTexts(fleetTitles).isEmpty()) << qPrintable(truncatedTexts(fleetTitles).join(QStringLiteral(" | ")));
        desk.setPage(QStringLiteral("shifts"));
        shoot(window, QStringLiteral("desk-06-shifts"));
        desk.setPage(QStringLiteral("audit"));
        shoot(window, QStringLiteral("desk-07-audit"));
        EXPECT_GT(desk.audit()->count(), 0);
        EXPECT_EQ(itemNamed(window, QStringLiteral("cutNotice_audit")), nullptr) << "the whole range is loaded, nothing is cut";
        EXPECT_EQ(desk.devices()->count(), 2);

        // CSV export of every table, through its own button: the dashboard's six sales tabs and each page's table.
        // Each file has the header and one line per row the table shows.
        {
            const QList<std::tuple<QString, QString, JsonTableModel *>> tables = {
                {QStringLiteral("dashboard"), QStringLiteral("sales-by-show"), desk.salesByShow()},
                {QStringLiteral("dashboard"), QStringLiteral("sales-by-movie"), desk.salesByMovie()},
                {QStringLiteral("dashboard"), QStringLiteral("sales-by-channel"), desk.salesByChannel()},
                {QStringLiteral("dashboard"), QStringLiteral("sales-by-device"), desk.salesByDevice()},
                {QStringLiteral("dashboard"), QStringLiteral("sales-by-day"), desk.salesByDay()},
                {QStringLiteral("dashboard"), QStringLiteral("refunds"), desk.refunds()},
                {QStringLiteral("occupancy"), QStringLiteral("occupancy"), desk.shows()},
                {QStringLiteral("shows"), QStringLiteral("shows"), desk.shows()},
                {QStringLiteral("fleet"), QStringLiteral("fleet"), desk.devices()},
                {QStringLiteral("fleet"), QStringLiteral("reconciliation"), desk.reconciliation()},
                {QStringLiteral("shifts"), QStringLiteral("shifts"), desk.shifts()},
                {QStringLiteral("audit"), QStringLiteral("audit"), desk.audit()}};
            for (const auto &[pageKey, table, model] : tables) {
                desk.setPage(pageKey);
                QTest::qWait(100);
                if (pageKey == QLatin1String("dashboard")) {
                    ASSERT_TRUE(clickOn(window, QStringLiteral("tab_") + table)) << qPrintable(table);
                }
                const QString path = desk.exportDir() + QLatin1Char('/') + table + QLatin1Char('-') + desk.fromDate() + QLatin1Char('-') + desk.toDate()
                    + QStringLiteral(".csv");
                QFile::remove(path);
                ASSERT_TRUE(clickOn(window, QStringLiteral("export_") + table)) << qPrintable(table) << " has no export button on " << qPrintable(pageKey);
                ASSERT_TRUE(QFile::exists(path)) << qPrintable(path);
                QFile file(path);
                ASSERT_TRUE(file.open(QIODevice::ReadOnly));
                const QByteArray csv = file.readAll();
                EXPECT_EQ(csv.count('\n'), model->count() + 1) << qPrintable(table) << ": " << csv.left(300).constData();
                EXPECT_TRUE(csv.startsWith(model->keys().first().toUtf8())) << qPrintable(table) << ": " << csv.left(120).constData();
            }
            EXPECT_GT(desk.salesByDay()->count(), 0);
            EXPECT_GT(desk.audit()->count(), 0);
            EXPECT_EQ(desk.refunds()->count(), 1); // the override refund above
        }

        // A window smaller than the pages are laid out for: the page keeps its size and scrolls, with scroll bars
        // that appear only then (AsNeeded) and can be seen and dragged; a table wider than its panel scrolls too.
        QQuickItem *area = itemNamed(window, QStringLiteral("deskPageArea"));
        ASSERT_NE(area, nullptr);
        EXPECT_EQ(itemNamed(window, QStringLiteral("pageScrollH")), nullptr) << "nothing to scroll at 1920 x 1080";
        EXPECT_EQ(itemNamed(window, QStringLiteral("pageScrollV")), nullptr);
        EXPECT_EQ(itemNamed(window, QStringLiteral("hbar_audit")), nullptr) << "the audit table fits at 1920 x 1080";
        window->resize(1024, 700);
        ASSERT_TRUE(waitFor([&] { return window->width() == 1024 && window->height() == 700; }));
        QTest::qWait(100);
        QQuickItem *across = itemNamed(window, QStringLiteral("pageScrollH"));
        QQuickItem *down = itemNamed(window, QStringLiteral("pageScrollV"));
        ASSERT_NE(across, nullptr) << "the page is wider than a 1024 px window but has no horizontal scroll bar";
        ASSERT_NE(down, nullptr) << "the page is higher than a 700 px window but has no vertical scroll bar";
        for (QQuickItem *bar : {across, down}) {
            auto *handle = bar->property("contentItem").value<QQuickItem *>();
            ASSERT_NE(handle, nullptr);
            EXPECT_GT(handle->opacity(), 0.9) << qPrintable(bar->objectName()) << ": the handle is there but not drawn";
            EXPECT_GT(std::max(handle->width(), handle->height()), 40) << qPrintable(bar->objectName());
            EXPECT_LT(bar->property("size").toReal(), 1.0);
        }
        EXPECT_GT(area->property("contentWidth").toReal(), area->width());
        QQuickItem *auditAcross = itemNamed(window, QStringLiteral("hbar_audit"));
        ASSERT_NE(auditAcross, nullptr) << "the audit table is wider than its panel but has no horizontal scroll bar";
        shoot(window, QStringLiteral("desk-08-narrow-1024x700-audit"));

        // Dragging the page's bars with the mouse brings the far corner into view: the Shows editor's save button.
        desk.setPage(QStringLiteral("shows"));
        QTest::qWait(200);
        auto drag = [&](QQuickItem *bar, QPointF by) {
            auto *handle = bar->property("contentItem").value<QQuickItem *>();
            const QPoint from = handle->mapToScene(QPointF(handle->width() / 2, handle->height() / 2)).toPoint();
            const QPoint to = from + by.toPoint();
            QTest::mousePress(window, Qt::LeftButton, Qt::NoModifier, from);
            for (int step = 1; step <= 10; ++step)
                QTest::mouseMove(window, from + (to - from) * step / 10, 10);
            QTest::mouseRelease(window, Qt::LeftButton, Qt::NoModifier, to);
            QTest::qWait(50);
        };
        drag(across, QPointF(window->width(), 0));
        drag(down, QPointF(0, window->height()));
        EXPECT_NEAR(area->property("contentX").toReal(), area->property("contentWidth").toReal() - area->width(), 1.0);
        EXPECT_NEAR(area->property("contentY").toReal(), area->property("contentHeight").toReal() - area->height(), 1.0);
        QQuickItem *save = itemNamed(window, QStringLiteral("saveShow"));
        ASSERT_NE(save, nullptr);
        const QRectF saveRect = save->mapRectToScene(QRectF(0, 0, save->width(), save->height()));
        EXPECT_LE(saveRect.right(), window->width()) << "the save button is still off the right edge";
        EXPECT_LE(saveRect.bottom(), window->height()) << "the save button is still below the bottom edge";
        shoot(window, QStringLiteral("desk-08b-narrow-1024x700-shows-scrolled"));
        window->resize(1920, 1080);
    }
    DeskController::setInstance(nullptr);
}

namespace {
/**
 * @brief Loads the @p role window on @p controller (its QML singleton meanwhile), shoots it with the warning
 * before and after @p member signs in (once @p signedIn), as insecure-PREFIX-01-signin and insecure-PREFIX-02-AFTER.
 */
template <typename Controller>
void shootInsecure(Controller &controller, const QString &role, const QString &member, const std::function<bool()> &signedIn, const QString &prefix,
                   const QString &after)
{
    Controller::setInstance(&controller);
    const auto cleared = qScopeGuard([] { Controller::setInstance(nullptr); });
    QQmlApplicationEngine engine;
    QQuickWindow *window = load(engine, role);
    ASSERT_NE(window, nullptr);
    EXPECT_EQ(InsecureHttpAllowed::bannerText(window), InsecureHttpAllowed::warning());
    shoot(window, QStringLiteral("insecure-%1-01-signin").arg(prefix));
    controller.session()->signIn(member, kStaffPassword);
    ASSERT_TRUE(waitFor(signedIn));
    EXPECT_EQ(InsecureHttpAllowed::bannerText(window), InsecureHttpAllowed::warning());
    shoot(window, QStringLiteral("insecure-%1-02-%2").arg(prefix, after));
}
} // namespace

TEST(StaffUi, InsecureHttpKeepsItsWarningOnTheTillAndTheDesk)
{
    // Started with --allow-insecure-http: the till and the desk keep the warning on top, signed in or not.
    const InsecureHttpAllowed insecure;
    Cinema cinema;
    QTemporaryDir dir;
    TillController till(staffConfig(cinema.server, QStringLiteral("cashier"), dir.path()));
    shootInsecure(till, QStringLiteral("cashier"), QStringLiteral("ana"),
                  [&] { return till.screen() == QLatin1String("sale") && till.seatMap()->seatCount() > 0 && !till.busy(); }, QStringLiteral("till"),
                  QStringLiteral("sale"));
    DeskController desk(staffConfig(cinema.server, QStringLiteral("manager"), dir.path()));
    shootInsecure(desk, QStringLiteral("manager"), QStringLiteral("mia"), [&] { return desk.page() == QLatin1String("dashboard") && !desk.busy(); },
                  QStringLiteral("desk"), QStringLiteral("dashboard"));
}
