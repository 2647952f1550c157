// SPDX-License-Identifier: AGPL-3.0-or-later
// The till through a network outage, against a real in-process server over loopback with the fault proxy cutting
// the link: it takes its leases while online; offline it says so, offers only its leased seats (every other seat
// greyed and refused with the reason), sells them for cash (no card), journals each sale before its tickets print
// and reprints one the till stopped before printing; back online it reports each sale exactly once, and the shift's
// Z-report counts it once. The desk lists the lease and revokes it. Screenshots of the till offline and the desk's
// leases page (both scene graphs, English and German).
#include "sync/deviceticketsigner.h"
#include "deskcontroller.h"
#include "faultproxy.h"
#include "quickitems.h"
#include "screenshots.h"
#include "staffapp.h"
#include "stafftesthelpers.h"
#include "tillcontroller.h"
#include "tilloffline.h"
#include "core/money.h"

#include <QDir>
#include <QFile>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;
using namespace marquee::test;

namespace {

const QString kShots = marquee::test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));

void shoot(QQuickWindow *window, const QString &name)
{
    QTest::qWait(350);
    QDir().mkpath(kShots);
    const QImage image = window->grabWindow();
    ASSERT_FALSE(image.isNull());
    ASSERT_EQ(unexpectedGraphicsApi(window), QString()) << qPrintable(name);
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
    EXPECT_TRUE(QTest::qWaitForWindowExposed(window));
    return window;
}

/** @brief A show starting in two hours, an enrolled till whose link to the server runs through a fault proxy. */
struct Outage {
    TestServer server;
    FaultProxy proxy{server.port()};
    QTemporaryDir dir;
    qint64 showId = 0;
    AppConfig config;
    QString tillToken;
    Outage()
    {
        showId = server.createShow(8, 12, QDateTime::currentDateTimeUtc().addSecs(2 * 3600));
        server.scalar(QStringLiteral("UPDATE movies SET title = 'Dune: Part Two' WHERE movie_id = (SELECT movie_id FROM shows WHERE show_id = %1) "
                                     "RETURNING movie_id")
                          .arg(showId));
        addStaff(server, QStringLiteral("ana"), QStringLiteral("cashier"));
        addStaff(server, QStringLiteral("mia"), QStringLiteral("manager"));
        tillToken = server.deviceToken(QStringLiteral("till"));
        config = tillConfig();
    }
    AppConfig tillConfig()
    {
        AppConfig c = staffConfig(server, QStringLiteral("cashier"), dir.path());
        c.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(proxy.port()));
        c.token = tillToken;
        c.journalPath = dir.filePath(QStringLiteral("till.db"));
        return c;
    }
    /** @brief Signed in, the show's map loaded, the till's lease taken and its delegation kept (so it can sign). */
    bool ready(TillController &till)
    {
        till.session()->signIn(QStringLiteral("ana"), kStaffPassword);
        if (!waitFor([&] { return till.screen() == QLatin1String("sale") && till.seatMap()->seatCount() > 0 && !till.busy(); }, 20000))
            return false;
        if (!waitFor([&] { return till.offline()->keeper()->sellableSeats(showId).size() == 6; }, 20000))
            return false;
        // The till keeps the lease's delegation by itself (reading the venue's keys again when it is younger).
        const QString leaseId = till.offline()->store().leases(showId).first().leaseId;
        return waitFor([&] { return till.offline()->signer()->delegationForLease(leaseId).has_value(); }, 30000);
    }
    bool openShift(TillController &till)
    {
        till.openShift(QStringLiteral("50.00"));
        till.session()->confirmReauth(kStaffPassword);
        return waitFor([&] { return till.shiftOpen(); });
    }
    int printedPdfs() const
    {
        return int(QDir(dir.path()).entryList({QStringLiteral("OFFLINE-*.pdf")}, QDir::Files).size());
    }
};

QStringList leasedSeats(TillController &till, qint64 showId)
{
    QStringList seats = till.offline()->keeper()->sellableSeats(showId).keys();
    std::sort(seats.begin(), seats.end());
    return seats;
}

} // namespace

TEST(TillOfflineUi, SellsLeasedSeatsForCashOfflineReportsThemOnceAndTheDeskRevokesTheLease)
{
    Outage f;
    TillController till(f.config);
    TillController::setInstance(&till);
    const auto cleared = qScopeGuard([] { TillController::setInstance(nullptr); });
    QString leaseId;
    qint64 amount = 0;
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("cashier"));
        ASSERT_NE(window, nullptr);
        ASSERT_TRUE(f.ready(till));
        ASSERT_TRUE(f.openShift(till));
        const QStringList leased = leasedSeats(till, f.showId);
        leaseId = till.offline()->store().leases(f.showId).first().leaseId;
        EXPECT_FALSE(till.offline()->offline());
        EXPECT_TRUE(till.offline()->bannerText().isEmpty());
        // Online, the leased seats are as taken as any other till's: they are kept for the outage.
        EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status::text = 'leased'").arg(f.showId)).toInt(), 6);

        // The link goes: the till notices by itself and says so.
        f.proxy.setMode(FaultProxy::Mode::Blackhole);
        ASSERT_TRUE(waitFor([&] { return till.offline()->offline(); }, 30000));
        EXPECT_TRUE(till.offline()->bannerIsWarning());
        EXPECT_TRUE(till.offline()->bannerText().startsWith(
            shown("marquee::app::TillOffline", "Offline: the server cannot be reached. Only the seats leased to this till can be sold, for cash.")))
            << qPrintable(till.offline()->bannerText());
        ASSERT_NE(itemNamed(window, QStringLiteral("offlineBanner")), nullptr);
        EXPECT_TRUE(itemNamed(window, QStringLiteral("offlineBanner"))->isVisible());
        // Every seat but the leased ones is greyed: not free here, and refused with the reason.
        int sellable = 0;
        QString other;
        for (const MapSeat &seat : till.seatMap()->seats()) {
            sellable += seat.status == SeatStatus::Available;
            if (other.isEmpty() && !leased.contains(seat.seatId) && seat.status != SeatStatus::Available)
                other = seat.seatId;
        }
        EXPECT_EQ(sellable, 6);
        ASSERT_FALSE(other.isEmpty());
        EXPECT_FALSE(till.pickSeat(other));
        EXPECT_TRUE(till.messageIsError());
        EXPECT_TRUE(till.message().contains(other)) << qPrintable(till.message());
        EXPECT_EQ(till.message(), till.offline()->seatRefusal(other));
        till.toggleSeat(leased[0]);
        till.toggleSeat(leased[1]);
        ASSERT_EQ(till.seatMap()->selectedCount(), 2);
        shoot(window, QStringLiteral("till-offline-01-sale"));

        till.holdSelection();
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); })) << qPrintable(till.message());
        amount = till.totalMinor();
        ASSERT_GT(amount, 0);
        // Card only with an offline-capable approval, which the terminal cannot give: refused, nothing sold.
        till.payCard();
        EXPECT_TRUE(till.messageIsError());
        EXPECT_TRUE(till.paymentState().isEmpty());
        shoot(window, QStringLiteral("till-offline-02-tender"));
        // Still offline, the shift cannot close with a sale the server has not counted: tried below, after the sale.
        till.payCash(QString::number(amount / 100 + 10));
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done"); })) << qPrintable(till.message());
        EXPECT_TRUE(till.lastSale().value(QStringLiteral("offline")).toBool());
        EXPECT_EQ(till.lastSale().value(QStringLiteral("change_minor")).toLongLong(), amount / 100 * 100 + 1000 - amount);
        EXPECT_TRUE(QFile::exists(till.lastPdfPath())) << qPrintable(till.lastPdfPath());
        EXPECT_TRUE(till.printMessage().isEmpty()) << qPrintable(till.printMessage());
        const QList<sync::OfflineSaleRecord> journal = till.offline()->store().offlineSales();
        ASSERT_EQ(journal.size(), 1);
        EXPECT_EQ(journal.first().printState, QStringLiteral("printed"));
        EXPECT_EQ(journal.first().uploadState, QStringLiteral("pending"));
        EXPECT_EQ(journal.first().amountMinor, amount);
        EXPECT_EQ(till.offline()->waitingCount(), 1);
        shoot(window, QStringLiteral("till-offline-03-done"));
        till.newSale();
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("sale"); }));
        EXPECT_EQ(till.offline()->leasedSeatCount(), 4) << "the two sold are not offered again";
        till.openShiftScreen();
        till.closeShift(QStringLiteral("50.00"));
        EXPECT_FALSE(till.session()->reauthPending()) << "no close while a sale is unreported";
        EXPECT_TRUE(till.messageIsError());
        shoot(window, QStringLiteral("till-offline-04-shift"));

        // The link is back: the sale is reported once, and the banner goes.
        f.proxy.setMode(FaultProxy::Mode::Pass);
        ASSERT_TRUE(waitFor([&] { return !till.offline()->offline() && till.offline()->waitingCount() == 0; }, 30000));
        EXPECT_EQ(till.offline()->store().offlineSales().first().uploadState, QStringLiteral("booked"));
        EXPECT_TRUE(till.offline()->bannerText().isEmpty()) << qPrintable(till.offline()->bannerText());
        EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales WHERE booking_id IS NOT NULL")).toInt(), 1);
        EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM booking_seats WHERE show_id = %1").arg(f.showId)).toInt(), 2);

        // The Z-report counts the offline sale once, as cash of this cashier's shift.
        till.refreshShift();
        ASSERT_TRUE(waitFor([&] { return till.shift().value(QStringLiteral("sales_count")).toInt() == 1; }));
        till.closeShift(Money{5000 + amount, QStringLiteral("EUR")}.toDecimalString());
        ASSERT_TRUE(till.session()->reauthPending());
        till.session()->confirmReauth(kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return !till.shiftOpen() && !till.zReport().isEmpty(); })) << qPrintable(till.message());
        EXPECT_EQ(till.zReport().value(QStringLiteral("sales_count")).toInt(), 1);
        EXPECT_EQ(till.zReport().value(QStringLiteral("over_short_minor")).toLongLong(), 0);
        till.session()->signOut();
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("signin"); }));
    }

    // The manager desk lists the lease per show and till, and revokes it.
    QTemporaryDir deskDir;
    DeskController desk(staffConfig(f.server, QStringLiteral("manager"), deskDir.path()));
    DeskController::setInstance(&desk);
    const auto deskCleared = qScopeGuard([] { DeskController::setInstance(nullptr); });
    {
        QQmlApplicationEngine engine;
        QQuickWindow *window = load(engine, QStringLiteral("manager"));
        ASSERT_NE(window, nullptr);
        desk.session()->signIn(QStringLiteral("mia"), kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return desk.page() == QLatin1String("dashboard") && !desk.busy() && desk.shows()->count() > 0; }, 20000));
        desk.setPage(QStringLiteral("leases"));
        // The lease sold from, and the one the till took to refill its allowance once the sale was booked.
        auto rowOf = [&](const QString &id) {
            for (const QVariant &row : desk.leases()->rows())
                if (row.toMap().value(QStringLiteral("lease_id")).toString() == id)
                    return row.toMap();
            return QVariantMap();
        };
        ASSERT_TRUE(waitFor([&] { return !desk.leases()->loading() && !rowOf(leaseId).isEmpty(); }, 20000));
        EXPECT_EQ(desk.leases()->rows().size(), 2);
        EXPECT_EQ(desk.leases()->leasedSeats(), 6);
        const QVariantMap row = rowOf(leaseId);
        EXPECT_EQ(row.value(QStringLiteral("leased")).toInt(), 4);
        EXPECT_EQ(row.value(QStringLiteral("sold")).toInt(), 2);
        EXPECT_EQ(row.value(QStringLiteral("sales")).toInt(), 1);
        EXPECT_TRUE(row.value(QStringLiteral("can_revoke")).toBool());
        shoot(window, QStringLiteral("desk-leases-01"));
        desk.leases()->revoke(leaseId);
        // Revoked (or, should the till's keeper have come by in between, given back by the till at once: it has
        // nothing left to report).
        ASSERT_TRUE(waitFor([&] {
            const QString state = rowOf(leaseId).value(QStringLiteral("state")).toString();
            return state == QLatin1String("revoked") || state == QLatin1String("returned");
        }, 20000));
        EXPECT_FALSE(desk.leases()->messageIsError()) << qPrintable(desk.leases()->message());
        EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM seat_leases WHERE revoked_at IS NOT NULL")).toInt(), 1);
        shoot(window, QStringLiteral("desk-leases-02-revoked"));
    }
}

TEST(TillOfflineMode, ASaleJournaledButNeverPrintedPrintsOnceAfterARestartAndIsBookedOnce)
{
    Outage f;
    qint64 seq = 0;
    {
        TillController till(f.config);
        ASSERT_TRUE(f.ready(till));
        const QStringList leased = leasedSeats(till, f.showId);
        f.proxy.setMode(FaultProxy::Mode::Blackhole);
        ASSERT_TRUE(waitFor([&] { return till.offline()->offline(); }, 30000));
        // A sale whose printer call checks that the sale is journaled (fsynced) before anything prints.
        bool journaledFirst = false;
        till.offline()->setPrinter([&](const BookingPrint &print, bool) {
            const auto sale = till.offline()->store().offlineSale(print.bookingRef.mid(QStringLiteral("OFFLINE-").size()).toLongLong());
            journaledFirst = sale && sale->printState == QLatin1String("pending") && !sale->body.value(QStringLiteral("tickets")).toArray().isEmpty();
            QString error;
            return writePdf(print, f.dir.filePath(print.bookingRef + QStringLiteral(".pdf")), &error);
        });
        till.toggleSeat(leased[0]);
        till.holdSelection();
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("tender"); })) << qPrintable(till.message());
        till.payCash(QString());
        ASSERT_TRUE(waitFor([&] { return till.screen() == QLatin1String("done"); })) << qPrintable(till.message());
        EXPECT_TRUE(journaledFirst);
        EXPECT_EQ(f.printedPdfs(), 1);

        // The next sale is journaled, and the till stops before its tickets print (what a crash between the
        // two leaves: the sale committed, its print not done).
        sync::OfflineSales::Sale sale;
        sale.leaseId = till.offline()->store().leases(f.showId).first().leaseId;
        sale.showId = f.showId;
        sale.seatIds = {leased[1]};
        sale.amountMinor = till.seatMap()->seats()[size_t(till.seatMap()->indexOf(leased[1]))].priceMinor;
        sale.currency = QStringLiteral("EUR");
        sale.tenderedMinor = sale.amountMinor;
        sale.staff = QStringLiteral("ana");
        const QJsonObject show = QJsonObject::fromVariantMap(till.shows()->rowAt(0));
        const auto journaled = till.offline()->sales()->journal(sale, [&](const sync::OfflineSaleRecord &record) {
            BookingPrint print;
            print.title = show.value(QStringLiteral("title")).toString();
            print.bookingRef = QStringLiteral("OFFLINE-%1").arg(record.deviceSeq);
            print.currency = record.currency;
            print.totalMinor = record.amountMinor;
            for (const QJsonValue &ticket : record.body.value(QStringLiteral("tickets")).toArray())
                print.tickets.append({ticket[QStringLiteral("ticket_id")].toString(), ticket[QStringLiteral("seat_id")].toString(), {}, 0, {},
                                      record.amountMinor, ticket[QStringLiteral("code")].toString()});
            return toJson(print);
        });
        ASSERT_TRUE(journaled.ok()) << journaled.detail.toStdString();
        seq = journaled.sale.deviceSeq;
    }
    EXPECT_EQ(f.printedPdfs(), 1);
    {
        // The till starts again (still offline): the journaled sale prints, with its own signed tickets.
        TillController again(f.config);
        EXPECT_EQ(f.printedPdfs(), 2);
        const auto sale = again.offline()->store().offlineSale(seq);
        ASSERT_TRUE(sale.has_value());
        EXPECT_EQ(sale->printState, QStringLiteral("printed"));
        EXPECT_TRUE(QFile::exists(again.lastPdfPath()));
    }
    {
        // And once more: printed already, so nothing prints twice; back online, both sales are booked once.
        f.proxy.setMode(FaultProxy::Mode::Pass);
        TillController third(f.config);
        EXPECT_EQ(f.printedPdfs(), 2);
        third.session()->signIn(QStringLiteral("ana"), kStaffPassword);
        ASSERT_TRUE(waitFor([&] { return third.session()->signedIn(); }, 20000));
        ASSERT_TRUE(waitFor([&] { return third.offline()->waitingCount() == 0; }, 30000));
    }
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales")).toInt(), 2);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales WHERE booking_id IS NOT NULL")).toInt(), 2);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT count(*) FROM booking_seats WHERE show_id = %1").arg(f.showId)).toInt(), 2);
}
