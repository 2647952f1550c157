// SPDX-License-Identifier: AGPL-3.0-or-later
// The kiosk controller against a real marquee-server in this process (its own PostgreSQL database).
#include "../server/paysimprocess.h"
#include "core/ticketcodec.h"
#include "kioskcontroller.h"
#include "printedqr.h"
#include "kioskwalker.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTcpServer>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;

namespace {

/** @brief A terminal that answers with whatever the test says, when the test says. */
class FakeTerminal : public CardTerminal
{
public:
    void startPayment(const QString &intent, qint64, const QString &) override { m_intent = intent; }
    void abort() override { answer(TerminalResult::Outcome::Aborted); }
    bool busy() const override { return !m_intent.isEmpty(); }
    void answer(TerminalResult::Outcome outcome, const QString &reason = {})
    {
        m_intent.clear();
        Q_EMIT finished(TerminalResult{outcome, reason});
    }
    QString m_intent;
};

class KioskFlow : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_showId = m_server.createShow(6, 10);
        m_config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.port()));
        m_config.token = m_server.deviceToken(QStringLiteral("kiosk"));
        m_config.journalPath = m_dir.filePath(QStringLiteral("journal.sqlite"));
        m_config.printDir = m_dir.filePath(QStringLiteral("prints"));
        m_config.seatMapPollMs = 0;
    }
    int heldSeats()
    {
        return m_server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(m_showId)).toInt();
    }
    /** @brief Start, open the test movie and its show, wait for the map. */
    bool openSeatMap(KioskController &kiosk)
    {
        kiosk.start();
        if (!waitUntil([&] { return kiosk.screen() == QLatin1String("attract") && kiosk.movies()->count() > 0; }))
            return false;
        kiosk.openMovie(m_server.lastMovieId());
        if (!waitUntil([&] { return !kiosk.shows()->loading() && kiosk.shows()->count() > 0; }))
            return false;
        kiosk.openShow(m_showId);
        return waitUntil([&] { return kiosk.seatMap()->seatCount() == 60; });
    }
    test::TestServer m_server;
    QTemporaryDir m_dir;
    AppConfig m_config;
    qint64 m_showId = 0;
};

} // namespace

TEST_F(KioskFlow, BrowseChooseBestSeatsHoldAndReleaseOnBack)
{
    KioskController kiosk(m_config, new FakeTerminal);
    ASSERT_TRUE(openSeatMap(kiosk));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("seats"));
    EXPECT_EQ(kiosk.cityName(), QStringLiteral("Testville"));
    ASSERT_TRUE(kiosk.bestAvailable(2));
    // Premium is the dearest tier: the last two rows (E, F); the centre of that block.
    const QStringList chosen = kiosk.seatMap()->selectedSeats();
    ASSERT_EQ(chosen.size(), 2);
    EXPECT_TRUE(chosen.first().startsWith(QLatin1Char('E')) || chosen.first().startsWith(QLatin1Char('F'))) << chosen.first().toStdString();

    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); })) << kiosk.message().toStdString();
    EXPECT_TRUE(kiosk.holdActive());
    EXPECT_GT(kiosk.holdSecondsLeft(), 400);
    EXPECT_LE(kiosk.holdSecondsLeft(), 480);
    EXPECT_FALSE(kiosk.holdWarning());
    EXPECT_EQ(kiosk.orderLines().size(), 2);
    EXPECT_EQ(kiosk.orderTotal(), QStringLiteral("€36.00"));
    EXPECT_EQ(heldSeats(), 2);

    kiosk.back();
    EXPECT_EQ(kiosk.screen(), QStringLiteral("seats"));
    EXPECT_FALSE(kiosk.holdActive());
    EXPECT_TRUE(waitUntil([&] { return heldSeats() == 0; })) << "going back releases the hold on the server";
}

TEST_F(KioskFlow, SeatTakenMidSelectionHighlightsItAndSuggestsTheNearest)
{
    KioskController kiosk(m_config, new FakeTerminal);
    ASSERT_TRUE(openSeatMap(kiosk));
    kiosk.toggleSeat(QStringLiteral("C5"));
    kiosk.toggleSeat(QStringLiteral("C6"));
    // Someone at another kiosk is quicker.
    auto other = m_server.client(m_server.deviceToken(QStringLiteral("kiosk")));
    const auto taken = other->post(QStringLiteral("/api/v1/shows/%1/hold").arg(m_showId).toUtf8(), QJsonObject{{"seat_ids", QJsonArray{"C6"}}},
                                   {{"Idempotency-Key", "other-kiosk-1"}});
    ASSERT_EQ(taken.status, 200) << taken.body.toStdString();

    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return !kiosk.busy(); }));
    EXPECT_EQ(kiosk.screen(), QStringLiteral("seats"));
    EXPECT_FALSE(kiosk.holdActive());
    EXPECT_TRUE(kiosk.message().contains(QStringLiteral("C6"))) << kiosk.message().toStdString();
    EXPECT_EQ(kiosk.seatMap()->highlightedSeats(), QStringList{QStringLiteral("C6")});
    const QStringList suggestion = kiosk.seatMap()->selectedSeats();
    ASSERT_EQ(suggestion.size(), 2);
    EXPECT_FALSE(suggestion.contains(QStringLiteral("C6")));
    EXPECT_EQ(heldSeats(), 1) << "only the other kiosk's seat is held; the failed hold took nothing";

    // The suggestion can be held straight away.
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); })) << kiosk.message().toStdString();
    EXPECT_EQ(heldSeats(), 3);
}

TEST_F(KioskFlow, HoldTimeoutReleasesTheSeatsAndSaysSo)
{
    test::TestServer::Options options;
    options.holdTtlSeconds = 3;
    test::TestServer shortHolds(options);
    const qint64 showId = shortHolds.createShow(3, 6);
    AppConfig config = m_config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(shortHolds.port()));
    config.token = shortHolds.deviceToken();
    KioskController kiosk(config, new FakeTerminal);
    kiosk.start();
    ASSERT_TRUE(waitUntil([&] { return kiosk.movies()->count() > 0; }));
    kiosk.openMovie(shortHolds.lastMovieId());
    ASSERT_TRUE(waitUntil([&] { return kiosk.shows()->count() > 0; }));
    kiosk.openShow(showId);
    ASSERT_TRUE(waitUntil([&] { return kiosk.seatMap()->seatCount() == 18; }));
    ASSERT_TRUE(kiosk.bestAvailable(2));
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); }));
    EXPECT_TRUE(kiosk.holdWarning()) << "under a minute left";
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("seats"); }, 10000));
    EXPECT_FALSE(kiosk.holdActive());
    EXPECT_TRUE(kiosk.message().contains(QStringLiteral("released"))) << kiosk.message().toStdString();
}

TEST_F(KioskFlow, UnreachableServerMeansOfflineAndNothingSold)
{
    QTcpServer closed;
    ASSERT_TRUE(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    AppConfig config = m_config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    KioskController kiosk(config, new FakeTerminal);
    kiosk.start();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("offline"); }));
    EXPECT_TRUE(kiosk.message().contains(QStringLiteral("offline")));
    EXPECT_EQ(kiosk.movies()->count(), 0);
    EXPECT_FALSE(kiosk.holdActive());
}

TEST_F(KioskFlow, RevokedTokenMeansOfflineAndNothingHeld)
{
    // A revoked or wrong token looks the same to the customer: this kiosk cannot sell.
    AppConfig broken = m_config;
    broken.token = QStringLiteral("not-a-token");
    KioskController other(broken, new FakeTerminal);
    other.start();
    ASSERT_TRUE(waitUntil([&] { return other.screen() == QLatin1String("offline"); }));
    EXPECT_EQ(heldSeats(), 0);
}

TEST_F(KioskFlow, DeclinedCardThenApprovedCardBooksAndPrints)
{
    // A server that takes card payments at a real marquee-paysim; the kiosk's own SimulatedTerminal pays there.
    test::TestServer::Options options;
    options.threads = 2;
    options.paymentWebhookSecret = test::PaySimProcess::kSecret;
    test::TestServer paid(options);
    test::PaySimProcess sim(paid, {});
    ASSERT_NE(sim.port(), 0);
    const qint64 showId = paid.createShow(6, 10);
    AppConfig config = m_config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(paid.port()));
    config.token = paid.deviceToken();
    config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(sim.port()));
    KioskController kiosk(config);
    auto heldOrBooked = [&](const QString &status) {
        return paid.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = '%2'").arg(showId).arg(status)).toInt();
    };

    kiosk.start();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("attract") && kiosk.movies()->count() > 0; }));
    kiosk.openMovie(paid.lastMovieId());
    ASSERT_TRUE(waitUntil([&] { return !kiosk.shows()->loading() && kiosk.shows()->count() > 0; }));
    kiosk.openShow(showId);
    ASSERT_TRUE(waitUntil([&] { return kiosk.seatMap()->seatCount() == 60; }));

    // A seat is taken by another kiosk while this customer is choosing: the suggestion is held instead.
    kiosk.toggleSeat(QStringLiteral("C5"));
    kiosk.toggleSeat(QStringLiteral("C6"));
    const auto taken = paid.client(paid.deviceToken())->post(QStringLiteral("/api/v1/shows/%1/hold").arg(showId).toUtf8(),
                                                             QJsonObject{{"seat_ids", QJsonArray{"C6"}}}, {{"Idempotency-Key", "other-kiosk-paid"}});
    ASSERT_EQ(taken.status, 200) << taken.body.toStdString();
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return !kiosk.busy() && !kiosk.seatMap()->highlightedSeats().isEmpty(); }));
    EXPECT_EQ(kiosk.seatMap()->highlightedSeats(), QStringList{QStringLiteral("C6")});
    const QStringList suggestion = kiosk.seatMap()->selectedSeats();
    ASSERT_EQ(suggestion.size(), 2);
    EXPECT_FALSE(suggestion.contains(QStringLiteral("C6")));
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); })) << kiosk.message().toStdString();

    // Pay: an order, the attempt journaled, then the terminal waits for a card.
    kiosk.pay();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("payment"); })) << kiosk.message().toStdString();
    const QString firstOrder = kiosk.orderId();
    const QString firstIntent = kiosk.paymentIntentId();
    const std::optional<sync::PaymentRecord> asking = kiosk.store().payment(firstIntent);
    ASSERT_TRUE(asking) << "journaled before the terminal was asked";
    EXPECT_EQ(asking->state, QStringLiteral("awaiting_terminal"));
    EXPECT_EQ(asking->orderId, firstOrder);

    // A declined card: the journal says failed; the kiosk tells the server at once, which closes the order and
    // releases its seats (server policy), so the countdown goes away.
    kiosk.presentCard(QStringLiteral("tok_declined"));
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("declined") && !kiosk.busy(); })) << kiosk.screen().toStdString();
    EXPECT_FALSE(kiosk.holdActive());
    EXPECT_EQ(paid.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(firstOrder)).toString(), QStringLiteral("FAILED"));
    EXPECT_EQ(heldOrBooked(QStringLiteral("held")), 1) << "only the other kiosk's seat";
    EXPECT_EQ(kiosk.store().payment(firstIntent)->state, QStringLiteral("failed"));
    EXPECT_EQ(sim.intentStatus(firstIntent), QStringLiteral("failed"));
    EXPECT_EQ(heldOrBooked(QStringLiteral("booked")), 0);

    // Try again: the same seats are held again, a new order and intent (a declined intent is final); this card works.
    kiosk.retryPayment();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("payment"); })) << kiosk.message().toStdString();
    EXPECT_NE(kiosk.orderId(), firstOrder);
    EXPECT_TRUE(kiosk.holdActive());
    EXPECT_EQ(heldOrBooked(QStringLiteral("held")), 3);
    const QString secondOrder = kiosk.orderId();
    const QString secondIntent = kiosk.paymentIntentId();
    kiosk.presentCard(QStringLiteral("tok_visa"));
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("thanks") || kiosk.printState() == QLatin1String("failed"); }, 30000))
        << kiosk.screen().toStdString() << ": " << kiosk.message().toStdString();
    ASSERT_EQ(kiosk.screen(), QStringLiteral("thanks")) << kiosk.printMessage().toStdString();

    // The server agrees: one booking for the second order, both seats booked, the other kiosk's seat still held.
    EXPECT_EQ(paid.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(secondOrder)).toString(), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(paid.scalar(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(secondOrder)).toInt(), 1);
    EXPECT_EQ(paid.scalar(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(firstOrder)).toInt(), 0);
    EXPECT_EQ(heldOrBooked(QStringLiteral("booked")), 2);
    EXPECT_EQ(heldOrBooked(QStringLiteral("held")), 1);
    const QString bookingRef = kiosk.bookingRef();
    ASSERT_FALSE(bookingRef.isEmpty());
    EXPECT_EQ(paid.scalar(QStringLiteral("SELECT booking_ref FROM bookings WHERE order_id = '%1'").arg(secondOrder)).toString(), bookingRef);
    // The kiosk's journals: the payment confirmed with its booking, the confirm done, the tickets and the print.
    const std::optional<sync::PaymentRecord> payment = kiosk.store().payment(secondIntent);
    ASSERT_TRUE(payment);
    EXPECT_EQ(payment->state, QStringLiteral("confirmed"));
    EXPECT_EQ(payment->terminalResult, QStringLiteral("approved"));
    EXPECT_EQ(payment->bookingRef, bookingRef);
    EXPECT_EQ(kiosk.store().pendingCount(), 0);
    EXPECT_EQ(kiosk.store().ticketsByBookingRef(bookingRef).size(), 2);
    ASSERT_TRUE(kiosk.store().lastPrintOf(bookingRef));
    EXPECT_EQ(kiosk.store().lastPrintOf(bookingRef)->state, QStringLiteral("printed"));

    // The printed PDF, read back as a door scanner would: every page's QR is a ticket the server signed.
    const BookingPrint printed = kiosk.lastBooking();
    ASSERT_EQ(printed.tickets.size(), 2);
    QHash<quint32, QByteArray> keys;
    const test::HttpResult keyList = paid.client(paid.staffToken(QStringLiteral("manager")))->get("/api/v1/keys");
    ASSERT_EQ(keyList.status, 200);
    for (const QJsonValue &value : QJsonDocument::fromJson(keyList.body).array())
        keys.insert(quint32(value[QStringLiteral("key_id")].toInteger()),
                    QByteArray::fromBase64(value[QStringLiteral("public_key")].toString().toLatin1()));
    ASSERT_FALSE(keys.isEmpty());
    QString error;
    for (int page = 1; page <= printed.tickets.size(); ++page) {
        const QImage image = apptest::renderPdfPage(kiosk.lastPdfPath(), page, m_dir.path(), &error);
        ASSERT_FALSE(image.isNull()) << error.toStdString();
        if (page == 1)
            image.save(QStringLiteral(MARQUEE_SCREENSHOT_DIR "/paid-ticket-page1.png"));
        const QString qr = apptest::decodeQr(image);
        ASSERT_FALSE(qr.isEmpty()) << "page " << page << " has no readable QR";
        const TicketVerification verified = TicketCodec::verify(qr, keys);
        EXPECT_EQ(verified.result, TicketCheck::Ok) << qr.toStdString();
        EXPECT_EQ(verified.payload.showId, showId);
        EXPECT_TRUE(suggestion.contains(verified.payload.seatId)) << verified.payload.seatId.toStdString();
        EXPECT_EQ(verified.payload.ticketId.toString(QUuid::WithoutBraces), printed.tickets[page - 1].ticketId);
        EXPECT_EQ(paid.scalar(QStringLiteral("SELECT count(*) FROM tickets WHERE ticket_id = '%1'")
                                  .arg(verified.payload.ticketId.toString(QUuid::WithoutBraces))).toInt(), 1);
    }
    // A forged code (one signature byte changed) does not verify against the same keys.
    QString forged = printed.tickets.first().qr;
    forged[forged.size() - 2] = forged[forged.size() - 2] == QLatin1Char('A') ? QLatin1Char('B') : QLatin1Char('A');
    EXPECT_NE(TicketCodec::verify(forged, keys).result, TicketCheck::Ok);
}

namespace {
/** @brief A server that takes card payments at a real marquee-paysim, and a kiosk config pointed at both. */
struct PaidServer {
    static test::TestServer::Options options()
    {
        test::TestServer::Options o;
        o.threads = 2;
        o.paymentWebhookSecret = test::PaySimProcess::kSecret;
        return o;
    }
    explicit PaidServer(const AppConfig &base)
        : config(base)
    {
        showId = server.createShow(4, 8);
        config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port()));
        config.token = server.deviceToken();
        config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(sim.port()));
    }
    /** @brief Walk @p kiosk to the payment screen with the two best seats; false when it does not get there. */
    bool walkToPayment(KioskController &kiosk)
    {
        kiosk.start();
        if (!waitUntil([&] { return kiosk.movies()->count() > 0; }))
            return false;
        kiosk.openMovie(server.lastMovieId());
        if (!waitUntil([&] { return kiosk.shows()->count() > 0; }))
            return false;
        kiosk.openShow(showId);
        if (!waitUntil([&] { return kiosk.seatMap()->seatCount() == 32; }) || !kiosk.bestAvailable(2))
            return false;
        kiosk.holdSelection();
        if (!waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); }))
            return false;
        kiosk.pay();
        return waitUntil([&] { return kiosk.screen() == QLatin1String("payment"); });
    }
    QString orderState(const QString &orderId)
    {
        return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    }
    int bookingsOf(const QString &orderId)
    {
        return server.scalar(QStringLiteral("SELECT count(*) FROM bookings WHERE order_id = '%1'").arg(orderId)).toInt();
    }

    test::TestServer server{options()};
    test::PaySimProcess sim{server, {}};
    AppConfig config;
    qint64 showId = 0;
};
} // namespace

TEST_F(KioskFlow, AnApprovedPaymentWhoseConfirmNeverLeftIsBookedAfterARestart)
{
    PaidServer paid(m_config);
    QString orderId;
    QString intentId;
    {
        auto *terminal = new FakeTerminal;
        KioskController kiosk(paid.config, terminal);
        ASSERT_TRUE(paid.walkToPayment(kiosk)) << kiosk.message().toStdString();
        orderId = kiosk.orderId();
        intentId = kiosk.paymentIntentId();
        ASSERT_EQ(paid.sim.pay(intentId, QStringLiteral("tok_visa")).status, 200); // the customer's card is charged
        // The app dies right after the terminal approved: the confirm is journaled but never sent.
        kiosk.syncEngine().stop();
        terminal->answer(TerminalResult::Outcome::Approved);
        const auto journaled = kiosk.store().payment(intentId);
        ASSERT_TRUE(journaled);
        EXPECT_EQ(journaled->state, QStringLiteral("awaiting_confirm"));
        EXPECT_EQ(journaled->terminalResult, QStringLiteral("approved"));
        EXPECT_EQ(kiosk.store().pendingCount(), 1);
    }
    EXPECT_EQ(paid.bookingsOf(orderId), 0) << "nothing reached the server before the crash";

    // The app starts again on the same store: the queued confirm is replayed and books the seats.
    KioskController restarted(paid.config, new FakeTerminal);
    restarted.start();
    ASSERT_TRUE(waitUntil([&] { return restarted.store().payment(intentId)->state != QLatin1String("awaiting_confirm"); }, 30000));
    EXPECT_EQ(restarted.store().payment(intentId)->state, QStringLiteral("confirmed")) << restarted.store().payment(intentId)->note.toStdString();
    EXPECT_FALSE(restarted.store().payment(intentId)->bookingRef.isEmpty());
    EXPECT_EQ(paid.orderState(orderId), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(paid.bookingsOf(orderId), 1);
    EXPECT_EQ(restarted.store().pendingCount(), 0);
}

TEST_F(KioskFlow, PaymentsInterruptedWhileTheTerminalHadTheCardAreSettledAfterARestart)
{
    PaidServer paid(m_config);
    QString chargedOrder;
    QString chargedIntent;
    {
        KioskController kiosk(paid.config, new FakeTerminal);
        ASSERT_TRUE(paid.walkToPayment(kiosk)) << kiosk.message().toStdString();
        chargedOrder = kiosk.orderId();
        chargedIntent = kiosk.paymentIntentId();
        EXPECT_EQ(kiosk.store().payment(chargedIntent)->state, QStringLiteral("awaiting_terminal"));
        // The card is charged at the provider, and the app dies before the terminal's answer arrives.
        ASSERT_EQ(paid.sim.pay(chargedIntent, QStringLiteral("tok_visa")).status, 200);
    }
    // A second attempt of another customer was interrupted before any card was presented: nothing was charged.
    auto other = paid.server.client(paid.config.token);
    const auto hold = other->post(QStringLiteral("/api/v1/shows/%1/hold").arg(paid.showId).toUtf8(), QJsonObject{{"seat_ids", QJsonArray{"A1"}}},
                                  {{"Idempotency-Key", "interrupted-unpaid"}});
    ASSERT_EQ(hold.status, 200) << hold.body.toStdString();
    const auto order = other->post("/api/v1/orders", QJsonObject{{"hold_id", hold.json().value("hold_id")}}, {{"Idempotency-Key", "interrupted-order"}});
    ASSERT_EQ(order.status, 201) << order.body.toStdString();
    const QString unpaidOrder = order.json().value("order_id").toString();
    const QString unpaidIntent = order.json().value("payment_intent_id").toString();
    {
        sync::LocalStore store;
        ASSERT_TRUE(store.open(paid.config.journalPath));
        sync::ApiClient api(paid.config.server);
        sync::SyncEngine engine(store, api);
        ASSERT_TRUE(engine.journalPaymentAttempt(unpaidOrder, unpaidIntent, order.json().value("amount_minor").toInteger(), QStringLiteral("EUR")));
    }

    KioskController restarted(paid.config, new FakeTerminal);
    restarted.start();
    auto settled = [&](const QString &intent) { return restarted.store().payment(intent)->state; };
    ASSERT_TRUE(waitUntil([&] { return settled(chargedIntent) != QLatin1String("awaiting_terminal") && settled(chargedIntent) != QLatin1String("awaiting_confirm")
                                       && settled(unpaidIntent) != QLatin1String("awaiting_terminal") && settled(unpaidIntent) != QLatin1String("awaiting_confirm"); },
                          30000));
    // Charged: the server found the payment at the provider and booked the seats.
    EXPECT_EQ(settled(chargedIntent), QStringLiteral("confirmed")) << restarted.store().payment(chargedIntent)->note.toStdString();
    EXPECT_EQ(restarted.store().payment(chargedIntent)->terminalResult, QStringLiteral("unknown"));
    EXPECT_EQ(paid.bookingsOf(chargedOrder), 1);
    // Not charged: failed, nothing to refund, nothing booked.
    EXPECT_EQ(settled(unpaidIntent), QStringLiteral("failed")) << restarted.store().payment(unpaidIntent)->note.toStdString();
    EXPECT_EQ(paid.bookingsOf(unpaidOrder), 0);
    EXPECT_NE(paid.orderState(unpaidOrder), QStringLiteral("CONFIRMED"));
}
