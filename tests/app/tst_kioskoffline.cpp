// SPDX-License-Identifier: AGPL-3.0-or-later
// The kiosk app when the link fails and its live seat map: a real in-process server and
// PostgreSQL, a real marquee-paysim, and the fault-injecting proxy of tests/support between the kiosk and the
// server. Nothing here is faked but the card terminal (the card is charged at paysim by the test).
#include "../server/paysimprocess.h"
#include "faultproxy.h"
#include "kioskcontroller.h"
#include "kioskwalker.h"
#include "kioskwindow.h"
#include "screenshots.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;

namespace {

class TestTerminal : public CardTerminal
{
public:
    void startPayment(const QString &intent, qint64, const QString &) override { m_intent = intent; }
    void abort() override { answer(TerminalResult::Outcome::Aborted); }
    bool busy() const override { return !m_intent.isEmpty(); }
    void answer(TerminalResult::Outcome outcome)
    {
        m_intent.clear();
        Q_EMIT finished(TerminalResult{outcome, {}});
    }
    QString m_intent;
};

/** @brief A paying server (paysim), the fault proxy in front of it, and a kiosk config that goes through the proxy. */
class KioskOffline : public ::testing::Test
{
protected:
    static test::TestServer::Options paidOptions()
    {
        test::TestServer::Options o;
        o.threads = 2;
        o.paymentWebhookSecret = test::PaySimProcess::kSecret;
        return o;
    }
    void SetUp() override
    {
        // Soon enough that its tickets are valid at the door now (check-in opens before the show).
        m_showId = m_server.createShow(4, 8, QDateTime::currentDateTimeUtc().addSecs(20 * 60));
        m_config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_proxy.port()));
        m_config.token = m_server.deviceToken();
        m_config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_sim.port()));
        m_config.journalPath = m_dir.filePath(QStringLiteral("kiosk.sqlite"));
        m_config.printDir = m_dir.filePath(QStringLiteral("prints"));
        m_config.seatMapPollMs = 0;
        m_config.requestTimeoutMs = 1500;
        m_config.language = test::screenshotLanguage(); // German in KioskOffline.de
    }
    bool openSeatMap(KioskController &kiosk)
    {
        if (!waitUntil([&] { return kiosk.movies()->count() > 0; }))
            return false;
        kiosk.openMovie(m_server.lastMovieId());
        if (!waitUntil([&] { return !kiosk.shows()->loading() && kiosk.shows()->count() > 0; }))
            return false;
        kiosk.openShow(m_showId);
        return waitUntil([&] { return kiosk.seatMap()->seatCount() == 32; });
    }
    /** @brief Hold the two best seats, create the order, charge the card at paysim: the terminal is about to approve. */
    bool chargeTwoSeats(KioskController &kiosk, TestTerminal &terminal)
    {
        if (!openSeatMap(kiosk) || !kiosk.bestAvailable(2))
            return false;
        kiosk.holdSelection();
        if (!waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); }))
            return false;
        kiosk.pay();
        if (!waitUntil([&] { return kiosk.screen() == QLatin1String("payment") && terminal.busy(); }))
            return false;
        return m_sim.pay(kiosk.paymentIntentId(), QStringLiteral("tok_visa")).status == 200;
    }
    /** @brief Renders the kiosk's window on @p kiosk as it is now and saves it as build/screenshots/offline/NAME.png
     * (offline/de/NAME.png in German). */
    static QString screenshot(KioskController &kiosk, const QString &name)
    {
        test::KioskWindow view(kiosk, QSize(1920, 1080));
        if (!view.window())
            return {};
        return saveScreenshot(view.window(), test::languageDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR "/offline")), name);
    }
    int seatsWithStatus(const QString &status)
    {
        return m_server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = '%2'").arg(m_showId).arg(status)).toInt();
    }

    test::TestServer m_server{paidOptions()};
    test::PaySimProcess m_sim{m_server, {}};
    test::FaultProxy m_proxy{m_server.port()};
    QTemporaryDir m_dir;
    AppConfig m_config;
    qint64 m_showId = 0;
};

} // namespace

TEST_F(KioskOffline, OfflineBrowsesFromCacheSellsNothingServesStaffAndReconcilesAfterReconnect)
{
    auto *terminal = new TestTerminal;
    KioskController kiosk(m_config, terminal);
    kiosk.start();
    // A sale while online: the tickets are printed and journaled.
    ASSERT_TRUE(chargeTwoSeats(kiosk, *terminal)) << kiosk.message().toStdString();
    terminal->answer(TerminalResult::Outcome::Approved);
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("thanks"); }, 30000)) << kiosk.screen().toStdString();
    const QString bookingRef = kiosk.bookingRef();
    const QList<sync::TicketRecord> printed = kiosk.store().ticketsByBookingRef(bookingRef);
    ASSERT_EQ(printed.size(), 2);
    kiosk.finish();
    ASSERT_TRUE(waitUntil([&] { return kiosk.online(); }, 60000)) << "the sync engine reached the server";
    // While online the kiosk follows the key feed (every few seconds; now, to not wait): the door can check
    // signatures offline only with the signing key cached.
    kiosk.syncEngine().refreshFeeds();
    ASSERT_TRUE(waitUntil([&] { return !kiosk.store().publicKeys().isEmpty(); }, 30000));

    // The link goes silent. The sync engine notices by itself; the status bar says offline.
    m_proxy.setMode(test::FaultProxy::Mode::Blackhole);
    ASSERT_TRUE(waitUntil([&] { return !kiosk.online(); }, 60000));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("attract")) << "with a programme to show, the kiosk keeps browsing";
    EXPECT_TRUE(kiosk.message().contains(QStringLiteral("offline"))) << kiosk.message().toStdString();

    // Browsing from the cache: the programme, the show times and the seat map.
    kiosk.start(); // the retry a kiosk makes by itself every few seconds
    ASSERT_TRUE(waitUntil([&] { return kiosk.browsingFromCache() && !kiosk.busy(); }, 30000));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("attract"));
    ASSERT_TRUE(openSeatMap(kiosk)) << "movies, shows and the seat map come from the cache";
    EXPECT_EQ(kiosk.screen(), QStringLiteral("seats"));
    EXPECT_FALSE(kiosk.seatMap()->live());

    // Selling stops (fail closed): no hold is even asked for.
    const int heldBefore = seatsWithStatus(QStringLiteral("held"));
    ASSERT_TRUE(kiosk.bestAvailable(2));
    kiosk.holdSelection();
    EXPECT_EQ(kiosk.screen(), QStringLiteral("seats"));
    EXPECT_FALSE(kiosk.holdActive());
    EXPECT_FALSE(kiosk.busy());
    EXPECT_EQ(kiosk.message(), test::shown("marquee::app::KioskController", "This kiosk is offline: tickets are sold at the box office until we are back."));
    EXPECT_EQ(seatsWithStatus(QStringLiteral("held")), heldBefore);

    // Staff work on: lookup from the journal, a reprint, check-in at the door.
    EXPECT_FALSE(kiosk.staffUnlock(QStringLiteral("0000")));
    ASSERT_TRUE(kiosk.staffUnlock(m_config.staffPin));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("staff"));
    kiosk.lookupBooking(bookingRef.toLower());
    EXPECT_TRUE(kiosk.lookup().value(QStringLiteral("found")).toBool());
    EXPECT_EQ(kiosk.lookup().value(QStringLiteral("tickets")).toList().size(), 2);
    kiosk.lookupBooking(QStringLiteral("NOSUCHREF"));
    EXPECT_FALSE(kiosk.lookup().value(QStringLiteral("found")).toBool());
    ASSERT_TRUE(kiosk.reprintBooking(bookingRef));
    EXPECT_TRUE(QFileInfo::exists(kiosk.lastPdfPath()));
    EXPECT_EQ(kiosk.store().ticket(printed.first().ticketId)->reprints, 1);

    const int pendingBefore = kiosk.pendingActions();
    kiosk.checkIn(printed.first().qr);
    EXPECT_EQ(kiosk.checkin().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
    EXPECT_TRUE(kiosk.checkin().value(QStringLiteral("admit")).toBool());
    EXPECT_TRUE(kiosk.checkin().value(QStringLiteral("recorded")).toBool());
    kiosk.checkIn(printed.first().qr);
    EXPECT_EQ(kiosk.checkin().value(QStringLiteral("result")).toString(), QStringLiteral("already_redeemed"));
    EXPECT_FALSE(kiosk.checkin().value(QStringLiteral("admit")).toBool());
    kiosk.checkIn(QStringLiteral("not a ticket"));
    EXPECT_FALSE(kiosk.checkin().value(QStringLiteral("admit")).toBool());
    EXPECT_GT(kiosk.pendingActions(), pendingBefore) << "the scan's upload waits in the queue";
    kiosk.lookupBooking(bookingRef);
    kiosk.checkIn(printed.first().qr);
    EXPECT_FALSE(screenshot(kiosk, QStringLiteral("01-staff-offline")).isEmpty());
    EXPECT_EQ(m_server.scalar(QStringLiteral("SELECT count(*) FROM checkins")).toInt(), 0);

    // The link returns: the queue is replayed, then the journals are reconciled and the report is on the staff screen.
    const QVariantMap before = kiosk.reconciliation();
    m_proxy.setMode(test::FaultProxy::Mode::Pass);
    ASSERT_TRUE(waitUntil([&] { return kiosk.online(); }, 60000));
    ASSERT_TRUE(waitUntil([&] { return kiosk.pendingActions() == 0; }, 60000));
    ASSERT_TRUE(waitUntil([&] {
        return !kiosk.reconciling() && kiosk.reconciliation().value(QStringLiteral("finished_at")) != before.value(QStringLiteral("finished_at"));
    }, 60000));
    const QVariantMap summary = kiosk.reconciliation().value(QStringLiteral("summary")).toMap();
    EXPECT_EQ(summary.value(QStringLiteral("tickets_confirmed")).toInt(), 2);
    EXPECT_EQ(summary.value(QStringLiteral("payments_confirmed")).toInt(), 1);
    EXPECT_TRUE(kiosk.reconciliation().value(QStringLiteral("complete")).toBool());
    EXPECT_EQ(kiosk.screen(), QStringLiteral("staff"));
    EXPECT_FALSE(screenshot(kiosk, QStringLiteral("02-staff-reconciled")).isEmpty());
    EXPECT_EQ(m_server.scalar(QStringLiteral("SELECT count(*) FROM checkin_firsts")).toInt(), 1) << "the ticket was admitted once";
    EXPECT_EQ(m_server.scalar(QStringLiteral("SELECT count(*) FROM checkins WHERE result = 'ok'")).toInt(), 1);
    int uploadedOk = 0;
    for (const sync::CheckinScan &scan : kiosk.store().scans())
        uploadedOk += scan.serverResult == QLatin1String("ok");
    EXPECT_EQ(uploadedOk, 1) << "the server's answer is stored on the scan";
    EXPECT_EQ(kiosk.store().ticket(printed.first().ticketId)->reconciliation, QStringLiteral("confirmed"));
}

TEST_F(KioskOffline, ASeatTakenElsewhereArrivesPushedWithoutAPollAndPollingCoversALostSocket)
{
    m_config.seatMapPollMs = 400;
    KioskController kiosk(m_config, new TestTerminal);
    kiosk.start();
    ASSERT_TRUE(openSeatMap(kiosk));
    SeatMapModel &map = *kiosk.seatMap();
    ASSERT_TRUE(waitUntil([&] { return map.live(); }));
    // While the socket is up nothing is polled.
    const int fetches = map.fetchCount();
    waitUntil([] { return false; }, 1200);
    EXPECT_EQ(map.fetchCount(), fetches) << "no seat-map poll while the live feed is up";

    auto seatStatus = [&](const QString &seat) { return map.seats()[size_t(map.indexOf(seat))].status; };
    kiosk.toggleSeat(QStringLiteral("C5"));
    auto other = m_server.client(m_server.deviceToken());
    ASSERT_EQ(other->post(QStringLiteral("/api/v1/shows/%1/hold").arg(m_showId).toUtf8(), QJsonObject{{"seat_ids", QJsonArray{"C5", "C6"}}},
                          {{"Idempotency-Key", "rival-1"}}).status, 200);
    ASSERT_TRUE(waitUntil([&] { return seatStatus(QStringLiteral("C5")) == SeatStatus::Held && seatStatus(QStringLiteral("C6")) == SeatStatus::Held; }, 5000));
    EXPECT_EQ(map.fetchCount(), fetches) << "the change came as a pushed delta, not a poll";
    EXPECT_EQ(map.selectedCount(), 0) << "the customer's seat was taken: it left the selection";
    EXPECT_EQ(kiosk.message(), test::shown("marquee::app::KioskController", "Sorry, %n of your seats was just taken by someone else.", 1));

    // The socket is lost and not coming back soon: polling takes over and still sees the next change.
    map.liveFeed().setReconnectDelayMs(60000);
    m_proxy.setRefusing(true);
    ASSERT_TRUE(waitUntil([&] { return !map.live(); }, 15000));
    ASSERT_EQ(other->post(QStringLiteral("/api/v1/shows/%1/hold").arg(m_showId).toUtf8(), QJsonObject{{"seat_ids", QJsonArray{"D1"}}},
                          {{"Idempotency-Key", "rival-2"}}).status, 200);
    m_proxy.setRefusing(false);
    ASSERT_TRUE(waitUntil([&] { return seatStatus(QStringLiteral("D1")) == SeatStatus::Held; }, 15000));
    EXPECT_GT(map.fetchCount(), fetches) << "a poll brought it";
    EXPECT_FALSE(map.live());
    // Polls fetch the availability alone (40 bytes here, 40 kB for a stadium), never the layout again.
    EXPECT_EQ(map.layoutFetchCount(), 1);
    EXPECT_GE(map.fetchCount(), 2);
    // And the map pieced together from the layout, the availability and the deltas is the server's full map.
    const QJsonArray serverSeats = other->get(QStringLiteral("/api/v1/shows/%1/seatmap").arg(m_showId).toUtf8()).json().value(QStringLiteral("seats")).toArray();
    ASSERT_EQ(size_t(serverSeats.size()), map.seats().size());
    for (const QJsonValue &value : serverSeats) {
        const QJsonObject seat = value.toObject();
        const int index = map.indexOf(seat.value(QStringLiteral("seat_id")).toString());
        ASSERT_GE(index, 0);
        const QString status = seat.value(QStringLiteral("status")).toString();
        EXPECT_EQ(map.seats()[size_t(index)].status, seatStatusFromString(status))
            << seat.value(QStringLiteral("seat_id")).toString().toStdString();
        EXPECT_EQ(map.seats()[size_t(index)].priceMinor, seat.value(QStringLiteral("price_minor")).toInteger());
    }
}

TEST_F(KioskOffline, AConfirmThatOutlastsTheCustomerLeavesTicketsForStaffNotUnattendedOnThePrinter)
{
    m_config.confirmPatienceMs = 500;
    auto *terminal = new TestTerminal;
    KioskController kiosk(m_config, terminal);
    kiosk.start();
    ASSERT_TRUE(chargeTwoSeats(kiosk, *terminal)) << kiosk.message().toStdString();
    const QString intent = kiosk.paymentIntentId();
    m_proxy.setMode(test::FaultProxy::Mode::Blackhole);
    terminal->answer(TerminalResult::Outcome::Approved);
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("delayed"); }, 5000)) << kiosk.screen().toStdString();
    const QString delayed = test::shown("marquee::app::KioskController", "Your payment was taken but the booking could not be finished yet. It is "
                                        "saved at this kiosk and completed automatically; please visit the box office with your order reference %1.");
    EXPECT_TRUE(kiosk.message().startsWith(delayed.left(delayed.indexOf(QStringLiteral("%1"))))) << kiosk.message().toStdString();
    EXPECT_FALSE(screenshot(kiosk, QStringLiteral("03-confirm-delayed")).isEmpty());
    kiosk.resetToAttract(); // the customer walks to the box office
    EXPECT_EQ(kiosk.store().payment(intent)->state, QStringLiteral("awaiting_confirm"));

    m_proxy.setMode(test::FaultProxy::Mode::Pass);
    ASSERT_TRUE(waitUntil([&] { return kiosk.store().payment(intent)->state == QLatin1String("confirmed"); }, 60000));
    const QString ref = kiosk.store().payment(intent)->bookingRef;
    ASSERT_FALSE(ref.isEmpty());
    // Nothing printed for nobody; the booking waits on the staff screen with everything its tickets need.
    ASSERT_TRUE(waitUntil([&] { return !kiosk.uncollected().isEmpty(); }));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("attract"));
    EXPECT_EQ(kiosk.uncollected().first().toMap().value(QStringLiteral("ref")).toString(), ref);
    EXPECT_EQ(kiosk.uncollected().first().toMap().value(QStringLiteral("seats")).toInt(), 2);
    EXPECT_TRUE(kiosk.store().ticketsByBookingRef(ref).isEmpty()) << "no ticket was printed";
    EXPECT_EQ(kiosk.store().lastPrintOf(ref)->state, QStringLiteral("failed"));

    ASSERT_TRUE(kiosk.staffUnlock(m_config.staffPin));
    EXPECT_FALSE(screenshot(kiosk, QStringLiteral("04-staff-uncollected")).isEmpty());
    ASSERT_TRUE(kiosk.reprintBooking(ref));
    EXPECT_TRUE(kiosk.uncollected().isEmpty());
    const QList<sync::TicketRecord> tickets = kiosk.store().ticketsByBookingRef(ref);
    ASSERT_EQ(tickets.size(), 2);
    for (const sync::TicketRecord &ticket : tickets) {
        EXPECT_FALSE(ticket.qr.isEmpty());
        EXPECT_EQ(m_server.scalar(QStringLiteral("SELECT count(*) FROM tickets WHERE ticket_id = '%1'").arg(ticket.ticketId)).toInt(), 1);
    }
    const BookingPrint print = bookingPrintFromJson(kiosk.store().lastPrintOf(ref)->printData);
    EXPECT_FALSE(print.title.isEmpty()) << "the show's details were kept from the moment the card was approved";
    EXPECT_NE(print.tickets.first().number, 0);
}

TEST_F(KioskOffline, AConfirmThatArrivesWhileTheCustomerIsStillThereStillPrints)
{
    m_config.confirmPatienceMs = 500;
    auto *terminal = new TestTerminal;
    KioskController kiosk(m_config, terminal);
    kiosk.start();
    ASSERT_TRUE(chargeTwoSeats(kiosk, *terminal)) << kiosk.message().toStdString();
    m_proxy.setMode(test::FaultProxy::Mode::Blackhole);
    terminal->answer(TerminalResult::Outcome::Approved);
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("delayed"); }, 5000)) << kiosk.screen().toStdString();
    m_proxy.setMode(test::FaultProxy::Mode::Pass);
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("thanks"); }, 60000)) << kiosk.screen().toStdString();
    EXPECT_EQ(kiosk.store().lastPrintOf(kiosk.bookingRef())->state, QStringLiteral("printed"));
    EXPECT_EQ(kiosk.store().ticketsByBookingRef(kiosk.bookingRef()).size(), 2);
    EXPECT_TRUE(kiosk.uncollected().isEmpty());
}
