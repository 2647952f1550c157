// SPDX-License-Identifier: AGPL-3.0-or-later
// Acceptance gaps of orders, payments and tickets (docs/acceptance/orders-payments-tickets.md): releasing a hold
// whose order is being paid, confirm's all-or-nothing seat flip when only part of a hold was lost, illegal
// transitions refused and logged, every state change committed together with its outbox event, and bad input on
// every orders, payments, bookings, tickets and check-in endpoint. Real server, real PostgreSQL, real marquee-paysim.
#include "orderfixture.h"
#include "servertesthelpers.h"

#include "core/isotime.h"
#include "core/ticketcodec.h"
#include "runtime/serverconfig.h"
#include "store/orderrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QDir>
#include <QFile>
#include <QMutex>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUuid>
#include <arpa/inet.h>
#include <atomic>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace marquee;
using namespace marquee::test;

namespace {

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QByteArray holdUrl(const QString &holdId)
{
    return "/api/v1/holds/" + holdId.toUtf8();
}

/**
 * @brief Every table an orders, payments, bookings, tickets or check-in request writes, as one string: equal before
 * and after means nothing changed.
 */
QString ordersState(TestServer &server)
{
    return databaseState(server) + QLatin1Char('|')
        + server
              .scalar(QStringLiteral(
                  "SELECT concat_ws('/', (SELECT string_agg(order_id || state, ',' ORDER BY order_id) FROM orders), "
                  "  (SELECT string_agg(payment_intent_id || status, ',' ORDER BY payment_intent_id) FROM payments), "
                  "  (SELECT string_agg(booking_id || state, ',' ORDER BY booking_id) FROM bookings), "
                  "  (SELECT count(*) FROM refunds), (SELECT count(*) FROM payment_events), (SELECT count(*) FROM checkins), "
                  "  (SELECT string_agg(ticket_id || state, ',' ORDER BY ticket_id) FROM tickets), "
                  "  (SELECT count(*) FROM revocations), (SELECT count(*) FROM audit_log))"))
              .toString();
}

/** @brief Collects the log lines of every thread while it lives (the server logs from its worker threads). */
class LogCapture
{
public:
    LogCapture()
    {
        s_lines.clear();
        m_previous = qInstallMessageHandler(&LogCapture::handle);
    }
    ~LogCapture() { qInstallMessageHandler(m_previous); }
    QStringList lines() const
    {
        QMutexLocker lock(&s_mutex);
        return s_lines;
    }

private:
    static void handle(QtMsgType, const QMessageLogContext &context, const QString &message)
    {
        QMutexLocker lock(&s_mutex);
        s_lines << QString::fromLatin1(context.category ? context.category : "") + QLatin1Char(' ') + message;
    }
    static inline QMutex s_mutex;
    static inline QStringList s_lines;
    QtMessageHandler m_previous = nullptr;
};

} // namespace

TEST(OrdersAcceptance, ReleasingAHoldWhosePaymentIsPendingCancelsTheIntentAndTheOrder)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QString &holdId = open.holdId;
    const QString &orderId = open.orderId;
    const QString &intentId = open.intentId;
    ASSERT_FALSE(intentId.isEmpty());

    // The customer walks away from the terminal: the release cancels the intent first, then the order.
    const HttpResult released = kiosk->del(holdUrl(holdId));
    ASSERT_EQ(released.status, 200) << released.body.constData();
    EXPECT_EQ(released.json().value(QStringLiteral("state")).toString(), QStringLiteral("released"));
    EXPECT_EQ(released.json().value(QStringLiteral("order_id")).toString(), orderId);
    EXPECT_EQ(released.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("CANCELLED"));
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("CANCELLED"));
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("canceled"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A1")), QStringLiteral("available"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A2")), QStringLiteral("available"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'order.cancelled' AND aggregate_id = '%1'").arg(orderId)), 1);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'hold.released' AND aggregate_id = '%1'").arg(holdId)), 1);

    // No money can be taken any more, so nothing will ever need refunding; confirm reports the cancellation.
    EXPECT_EQ(f.sim.pay(intentId, QStringLiteral("tok_visa")).status, 409);
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    EXPECT_API_ERROR(confirmed, 409, "order_cancelled");
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds")), 0);
    // Releasing again is idempotent; the seats sell again.
    EXPECT_EQ(kiosk->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(f.server.context().orderService.reconcileOnce(), 0);
    EXPECT_FALSE(f.hold(*kiosk, {QStringLiteral("A1")}).isEmpty());

    // A till's unconfirmed cash order: released, the cash is handed back and the order cancelled.
    auto till = f.server.client(f.server.deviceToken(QStringLiteral("till")));
    const QString tillHold = f.hold(*till, {QStringLiteral("B1")});
    const HttpResult cash = f.order(*till, tillHold, QStringLiteral("cash"));
    ASSERT_EQ(cash.status, 201) << cash.body.constData();
    const HttpResult tillRelease = till->del(holdUrl(tillHold));
    ASSERT_EQ(tillRelease.status, 200) << tillRelease.body.constData();
    EXPECT_EQ(f.orderState(cash.json().value(QStringLiteral("order_id")).toString()), QStringLiteral("CANCELLED"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("B1")), QStringLiteral("available"));
}

TEST(OrdersAcceptance, ReleasingAHoldWhoseOrderWasPaidKeepsTheSeatsForTheBooking)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("C1")});
    const QString &holdId = open.holdId;
    const QString &orderId = open.orderId;
    const QString &intentId = open.intentId;
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200); // captured, no webhook yet

    // The release comes after the capture: the money is real, so the seats stay and become the booking.
    const HttpResult refused = kiosk->del(holdUrl(holdId));
    EXPECT_API_ERROR(refused, 409, "order_paid");
    EXPECT_EQ(refused.json().value(QStringLiteral("order_id")).toString(), orderId);
    EXPECT_EQ(refused.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("C1")), QStringLiteral("booked"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds")), 0);
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.constData();
    EXPECT_EQ(confirmed.json().value(QStringLiteral("tickets")).toArray().size(), 1);
    // The confirmed hold is closed: releasing it now changes nothing.
    EXPECT_EQ(kiosk->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(f.seatStatus(QStringLiteral("C1")), QStringLiteral("booked"));
}

TEST(OrdersAcceptance, ReleasingAHoldWhileTheProviderIsDownChangesNothing)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("D1")});
    const QString &holdId = open.holdId;
    const QString &orderId = open.orderId;
    const QString &intentId = open.intentId;

    // Unsure whether the card is being charged: keep the hold (fail closed), change nothing.
    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:1"));
    const QString before = ordersState(f.server);
    const HttpResult unknown = kiosk->del(holdUrl(holdId));
    EXPECT_API_ERROR(unknown, 503, "payment_status_unknown");
    EXPECT_EQ(ordersState(f.server), before);
    EXPECT_EQ(f.seatStatus(QStringLiteral("D1")), QStringLiteral("held"));

    // Meanwhile the customer paid; with the provider back the release finds the capture and keeps the seat.
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200);
    f.server.context().orderService.setProviderUrl(f.sim.url());
    EXPECT_API_ERROR(kiosk->del(holdUrl(holdId)), 409, "order_paid");
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("CONFIRMED"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("D1")), QStringLiteral("booked"));
}

TEST(OrdersAcceptance, ConfirmBooksAllSeatsOrNoneWhenOnlyPartOfTheHoldWasLost)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder open = f.openOrder(*kiosk, {QStringLiteral("A3"), QStringLiteral("A4"), QStringLiteral("A5")});
    const QString &holdId = open.holdId;
    const QString &orderId = open.orderId;
    const QString &intentId = open.intentId;
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200);

    // One seat of three is lost (as a database crash can forget an asynchronously committed hold); the other two
    // are still held by this order. (Written behind the server's back, so its seat cache does not know: no rival
    // is sent through the API here; Orders.PaymentAfterTheHoldWasLost… covers a rival keeping a lost seat.)
    ASSERT_EQ(f.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = version + 1 "
                                             "WHERE show_id = %1 AND seat_id = 'A4' AND held_by = '%2' RETURNING 1").arg(f.showId).arg(holdId)).toInt(), 1);

    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    EXPECT_API_ERROR(confirmed, 409, "hold_lost");
    // The flip of A3 and A5 was rolled back with the rest: no booking, no ticket, no booked seat; the two seats
    // went back on sale and the payment was refunded.
    EXPECT_EQ(f.seatStatus(QStringLiteral("A3")), QStringLiteral("available"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A4")), QStringLiteral("available"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A5")), QStringLiteral("available"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings")), 0);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM booking_seats")), 0);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM tickets")), 0);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM show_seats WHERE status = 'booked'")), 0);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("REFUNDED"));
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("refunded"));
}

TEST(OrdersAcceptance, IllegalTransitionsAreRefusedLoggedAndChangeNothing)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder order = f.openOrder(*kiosk, {QStringLiteral("B2")});
    const QString &orderId = order.orderId;
    ASSERT_EQ(f.sim.pay(order.intentId, QStringLiteral("tok_lost")).status, 200);
    ASSERT_EQ(f.confirm(*kiosk, order).status, 200);
    const QString before = ordersState(f.server);

    LogCapture log;
    // CONFIRMED → FAILED is not in core's table: the repository refuses it before any SQL and logs it.
    bool dbError = true;
    EXPECT_FALSE(f.server.context().orders.endWithoutBooking(orderId, OrderState::Confirmed, OrderState::Failed, QStringLiteral("test"),
                                                             QStringLiteral("failed"), Refusal{ErrorCode::PaymentFailed, {}, {}}, &dbError));
    EXPECT_FALSE(dbError);
    // So is CONFIRMED → PAID through the one transition primitive, inside a transaction.
    {
        QSqlDatabase db = f.server.context().database.connection();
        store::Transaction tx(db);
        ASSERT_TRUE(tx.isActive());
        EXPECT_FALSE(store::OrderRepository::transition(db, orderId, OrderState::Confirmed, OrderState::Paid, QString()));
        EXPECT_TRUE(tx.commit());
    }
    const QStringList lines = log.lines().filter(QStringLiteral("refused illegal order transition"));
    ASSERT_EQ(lines.size(), 2) << log.lines().join(QLatin1Char('\n')).toStdString();
    EXPECT_TRUE(lines[0].startsWith(QStringLiteral("marquee.orders "))) << lines[0].toStdString();
    EXPECT_TRUE(lines[0].contains(QStringLiteral("CONFIRMED -> FAILED")) && lines[0].contains(orderId)) << lines[0].toStdString();
    EXPECT_TRUE(lines[1].contains(QStringLiteral("CONFIRMED -> PAID")) && lines[1].contains(orderId)) << lines[1].toStdString();
    EXPECT_EQ(ordersState(f.server), before);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("CONFIRMED"));
    f.server.context().database.closeThreadConnection();
}

TEST(OrdersAcceptance, EveryStateChangeCommitsTogetherWithItsOutboxEvent)
{
    // A trigger refuses one event type at a time. If the event were written outside the state change's
    // transaction, the state change would survive the refusal; it must not: the whole write rolls back, the answer
    // is a clear error, and once the refusal is lifted the same call (or the reconciler) completes it.
    TestServer::Options options = paymentOptions();
    options.cancelCutoffSeconds = 0;
    OrderFixture f(options);
    f.server.scalar(QStringLiteral("CREATE TABLE test_refused_events (event_type text PRIMARY KEY); "
                                   "CREATE FUNCTION test_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                                   "  IF EXISTS (SELECT 1 FROM test_refused_events WHERE event_type = NEW.event_type) THEN "
                                   "    RAISE EXCEPTION 'event % refused by the test', NEW.event_type; END IF; RETURN NEW; END $$; "
                                   "CREATE TRIGGER test_refuse_event BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION test_refuse_event(); "
                                   "SELECT 1"));
    auto refuse = [&](const char *type) {
        f.server.scalar(QStringLiteral("INSERT INTO test_refused_events VALUES ('%1') RETURNING 1").arg(QLatin1String(type)));
    };
    auto allowAll = [&] { f.server.scalar(QStringLiteral("DELETE FROM test_refused_events RETURNING 1")); };
    auto events = [&](const char *type) { return f.count(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = '%1'").arg(QLatin1String(type))); };
    auto kiosk = f.server.client(f.server.deviceToken());
    const QByteArray holdPathOfShow = holdPath(f.showId);

    // hold placed
    refuse("hold.placed");
    EXPECT_NE(kiosk->post(holdPathOfShow, seatsBody({QStringLiteral("A1")})).status, 200);
    EXPECT_EQ(f.seatStatus(QStringLiteral("A1")), QStringLiteral("available"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM holds")), 0);
    allowAll();
    const QString holdId = f.hold(*kiosk, {QStringLiteral("A1")});
    EXPECT_EQ(events("hold.placed"), 1);

    // hold released
    refuse("hold.released");
    EXPECT_NE(kiosk->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(f.seatStatus(QStringLiteral("A1")), QStringLiteral("held"));
    allowAll();
    EXPECT_EQ(kiosk->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(f.seatStatus(QStringLiteral("A1")), QStringLiteral("available"));

    // order created (the hold is not frozen without it)
    const QString hold2 = f.hold(*kiosk, {QStringLiteral("A2")});
    const QString frozenBefore = f.server.scalar(QStringLiteral("SELECT hold_expires_at::text FROM show_seats WHERE show_id = %1 AND seat_id = 'A2'").arg(f.showId)).toString();
    refuse("order.created");
    EXPECT_EQ(f.order(*kiosk, hold2).status, 503);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM orders")), 0);
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT hold_expires_at::text FROM show_seats WHERE show_id = %1 AND seat_id = 'A2'").arg(f.showId)).toString(), frozenBefore);
    allowAll();
    const QJsonObject order = f.order(*kiosk, hold2).json();
    const QString orderId = order.value(QStringLiteral("order_id")).toString();
    const QString intentId = order.value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_lost")).status, 200);

    // payment captured (order.paid) and booking confirmed
    refuse("order.paid");
    EXPECT_EQ(f.confirm(*kiosk, orderId, intentId).status, 503);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT status FROM payments WHERE order_id = '%1'").arg(orderId)).toString(), QStringLiteral("requires_payment"));
    allowAll();
    refuse("booking.confirmed");
    EXPECT_EQ(f.confirm(*kiosk, orderId, intentId).status, 503);
    EXPECT_EQ(f.orderState(orderId), QStringLiteral("PAID"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A2")), QStringLiteral("held"));
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM bookings")), 0);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM tickets")), 0);
    EXPECT_EQ(events("seats.booked") + events("order.confirmed") + events("ticket.issued"), 0);
    allowAll();
    const HttpResult confirmed = f.confirm(*kiosk, orderId, intentId);
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.constData();
    const QString bookingId = confirmed.json().value(QStringLiteral("booking_id")).toString();
    EXPECT_EQ(events("seats.booked"), 1);
    EXPECT_EQ(events("booking.confirmed"), 1);
    EXPECT_EQ(events("ticket.issued"), 1);

    // booking cancelled (seats freed, tickets revoked, refund requested: all or nothing)
    auto cashier = f.server.client(f.server.elevatedStaffToken(QStringLiteral("cashier")));
    const QByteArray cancelPath = "/api/v1/bookings/" + bookingId.toUtf8() + "/cancel";
    const qint64 audited = f.count(QStringLiteral("SELECT count(*) FROM audit_log"));
    for (const char *type : {"ticket.revoked", "booking.cancelled", "seats.freed", "order.refund_pending"}) {
        refuse(type);
        EXPECT_EQ(cashier->post(cancelPath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("test")}}).status, 503) << type;
        EXPECT_EQ(f.orderState(orderId), QStringLiteral("CONFIRMED")) << type;
        EXPECT_EQ(f.seatStatus(QStringLiteral("A2")), QStringLiteral("booked")) << type;
        EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM tickets WHERE state = 'valid'")), 1) << type;
        EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM refunds")), 0) << type;
        EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM audit_log")), audited) << type;
        allowAll();
    }
    // refund completed: the provider refunds, the record of it waits until it can be written with its event
    refuse("refund.succeeded");
    const HttpResult cancelled = cashier->post(cancelPath, QJsonObject{{QStringLiteral("reason"), QStringLiteral("test")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.constData();
    EXPECT_EQ(cancelled.json().value(QStringLiteral("order_state")).toString(), QStringLiteral("REFUND_PENDING"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A2")), QStringLiteral("available"));
    EXPECT_EQ(f.server.scalar(QStringLiteral("SELECT status FROM refunds WHERE order_id = '%1'").arg(orderId)).toString(), QStringLiteral("pending"));
    EXPECT_EQ(events("order.refunded"), 0);
    allowAll();
    // The reconciler (or the provider's refund webhook, whichever comes first) records it now.
    EXPECT_TRUE(eventually([&] {
        f.server.context().orderService.reconcileOnce();
        return f.orderState(orderId) == QLatin1String("REFUNDED");
    }));
    EXPECT_EQ(events("refund.succeeded"), 1);
    EXPECT_EQ(f.sim.intentStatus(intentId), QStringLiteral("refunded"));

    // order failed (a declined card; its seats stay held until the failure and its event commit together)
    const OrderFixture::OpenOrder declined = f.openOrder(*kiosk, {QStringLiteral("A3")});
    refuse("order.failed");
    ASSERT_EQ(f.sim.pay(declined.intentId, QStringLiteral("tok_declined")).status, 200);
    EXPECT_EQ(f.confirm(*kiosk, declined).status, 503);
    EXPECT_EQ(f.orderState(declined.orderId), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(f.seatStatus(QStringLiteral("A3")), QStringLiteral("held"));
    allowAll();
    EXPECT_API_ERROR(f.confirm(*kiosk, declined), 402, "payment_failed");
    EXPECT_EQ(f.seatStatus(QStringLiteral("A3")), QStringLiteral("available"));
    EXPECT_EQ(events("order.failed"), 1);
}

TEST(OrdersAcceptance, BadInputOnEveryIssue3EndpointIsRefusedClearlyAndChangesNothing)
{
    OrderFixture f;
    const QString kioskToken = f.server.deviceToken();
    auto kiosk = f.server.client(kioskToken);
    // Something of each kind to aim at: a pending order, a confirmed booking with a ticket, another's hold.
    const QString pendingHold = f.hold(*kiosk, {QStringLiteral("A1")});
    const QJsonObject pending = f.order(*kiosk, pendingHold).json();
    const QJsonObject sold = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("A2")})).json();
    ASSERT_EQ(f.sim.pay(sold.value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_lost")).status, 200);
    const HttpResult booking = f.confirm(*kiosk, sold.value(QStringLiteral("order_id")).toString(), sold.value(QStringLiteral("payment_intent_id")).toString());
    ASSERT_EQ(booking.status, 200);
    const QByteArray orderId = pending.value(QStringLiteral("order_id")).toString().toUtf8();
    const QByteArray bookingId = booking.json().value(QStringLiteral("booking_id")).toString().toUtf8();
    const QByteArray ticketId = booking.json().value(QStringLiteral("tickets")).toArray()[0][QStringLiteral("ticket_id")].toString().toUtf8();
    const QByteArray qr = booking.json().value(QStringLiteral("tickets")).toArray()[0][QStringLiteral("qr")].toString().toUtf8();
    auto other = f.server.client(f.server.deviceToken());
    const QString othersHold = f.hold(*other, {QStringLiteral("B1")});
    // Let the webhooks and events of the set-up settle before the fingerprint is taken.
    ASSERT_TRUE(eventually([&] { return f.count(QStringLiteral("SELECT count(*) FROM payment_events WHERE processed_at IS NULL")) == 0; }));

    const QString cashierToken = f.server.elevatedStaffToken(QStringLiteral("cashier"));
    const QString plainCashierToken = f.server.staffToken(QStringLiteral("cashier"));
    const QString secondKioskToken = f.server.deviceToken();
    const QByteArray unknown = uuid().toUtf8();
    const QByteArray big = "{\"hold_id\": \"" + QByteArray(70 * 1024, 'x') + "\"}";
    struct Case {
        const char *method;
        QByteArray path;
        QByteArray body;
        QString token;
        int status;
        const char *error;
    };
    const QList<Case> cases = {
        // POST /api/v1/orders
        {"POST", "/api/v1/orders", "{not json", kioskToken, 400, "malformed_json"},
        {"POST", "/api/v1/orders", "[1]", kioskToken, 400, "invalid_body"},
        {"POST", "/api/v1/orders", "{}", kioskToken, 400, "missing_field"},
        {"POST", "/api/v1/orders", "{\"hold_id\": 42}", kioskToken, 400, "invalid_type"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + unknown + "\"}", kioskToken, 404, "hold_not_found"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + othersHold.toUtf8() + "\"}", kioskToken, 404, "hold_not_found"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + pendingHold.toUtf8() + "\"}", kioskToken, 409, "order_exists"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + othersHold.toUtf8() + "\", \"payment_method\": 7}", secondKioskToken, 400, "invalid_type"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + othersHold.toUtf8() + "\", \"payment_method\": \"cash\"}", secondKioskToken, 403, "payment_method_not_allowed"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + othersHold.toUtf8() + "\", \"customer_email\": \"nope\"}", secondKioskToken, 400, "invalid_email"},
        {"POST", "/api/v1/orders", big, kioskToken, 413, "body_too_large"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + pendingHold.toUtf8() + "\"}", QString(), 401, "unauthorized"},
        {"POST", "/api/v1/orders", "{\"hold_id\": \"" + pendingHold.toUtf8() + "\"}", QStringLiteral("forged"), 401, "unauthorized"},
        // POST /api/v1/orders/{id}/confirm
        {"POST", "/api/v1/orders/" + orderId + "/confirm", "{}", kioskToken, 400, "missing_field"},
        {"POST", "/api/v1/orders/" + orderId + "/confirm", "{\"payment_intent_id\": 5}", kioskToken, 400, "invalid_type"},
        {"POST", "/api/v1/orders/" + orderId + "/confirm", "{\"payment_intent_id\": \"pi_other\"}", kioskToken, 409, "intent_mismatch"},
        {"POST", "/api/v1/orders/" + orderId + "/confirm", "{\"payment_intent_id\": \"" + pending.value(QStringLiteral("payment_intent_id")).toString().toUtf8() + "\"}",
         secondKioskToken, 404, "order_not_found"},
        {"POST", "/api/v1/orders/" + unknown + "/confirm", "{\"payment_intent_id\": \"pi_x\"}", kioskToken, 404, "order_not_found"},
        {"POST", "/api/v1/orders/not-a-uuid/confirm", "{\"payment_intent_id\": \"pi_x\"}", kioskToken, 404, "order_not_found"},
        {"POST", "/api/v1/orders/" + orderId + "/confirm", "{\"payment_intent_id\"", kioskToken, 400, "malformed_json"},
        // GET /api/v1/orders/{id}, /bookings/{id}, /bookings?ref=
        {"GET", "/api/v1/orders/" + orderId, {}, secondKioskToken, 404, "order_not_found"},
        {"GET", "/api/v1/orders/" + unknown, {}, kioskToken, 404, "order_not_found"},
        {"GET", "/api/v1/bookings/" + bookingId, {}, secondKioskToken, 404, "booking_not_found"},
        {"GET", "/api/v1/bookings/" + unknown, {}, kioskToken, 404, "booking_not_found"},
        {"GET", "/api/v1/bookings", {}, kioskToken, 400, "missing_ref"},
        {"GET", "/api/v1/bookings?ref=" + QByteArray(40, 'Z'), {}, kioskToken, 404, "booking_not_found"},
        {"GET", "/api/v1/bookings?ref=" + booking.json().value(QStringLiteral("booking_ref")).toString().toUtf8(), {}, secondKioskToken, 404, "booking_not_found"},
        // POST /api/v1/bookings/{id}/cancel
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{}", kioskToken, 403, "forbidden"},
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{}", plainCashierToken, 403, "reauth_required"},
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{\"reason\": 5}", cashierToken, 400, "invalid_type"},
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{\"waive_fee\": \"yes\"}", cashierToken, 400, "invalid_type"},
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{\"waive_fee\": true, \"reason\": \"x\"}", cashierToken, 403, "fee_waiver_not_allowed"},
        {"POST", "/api/v1/bookings/" + bookingId + "/cancel", "{not json", cashierToken, 400, "malformed_json"},
        {"POST", "/api/v1/bookings/" + unknown + "/cancel", "{}", cashierToken, 404, "booking_not_found"},
        // POST /api/v1/tickets/{id}/reissue
        {"POST", "/api/v1/tickets/" + ticketId + "/reissue", "{\"reason\": \"jam\"}", kioskToken, 403, "forbidden"},
        {"POST", "/api/v1/tickets/" + ticketId + "/reissue", "{\"reason\": \"  \"}", cashierToken, 400, "missing_field"},
        {"POST", "/api/v1/tickets/" + ticketId + "/reissue", "{\"reason\": 1}", cashierToken, 400, "invalid_type"},
        {"POST", "/api/v1/tickets/" + unknown + "/reissue", "{\"reason\": \"jam\"}", cashierToken, 404, "ticket_not_found"},
        // POST /api/v1/checkin
        {"POST", "/api/v1/checkin", "{not json", kioskToken, 400, "malformed_json"},
        {"POST", "/api/v1/checkin", "{\"qr\": 1, \"nonce\": \"n\", \"scanned_at\": \"2026-01-01T00:00:00Z\"}", kioskToken, 400, "invalid_type"},
        {"POST", "/api/v1/checkin", "{\"qr\": \"MQ1.x.y\", \"nonce\": \"n\", \"scanned_at\": \"2026-01-01T00:00:00Z\"}", kioskToken, 400, "malformed_qr"},
        {"POST", "/api/v1/checkin", "{\"qr\": \"" + qr + "\", \"nonce\": \"n\", \"scanned_at\": \"soon\"}", kioskToken, 400, "invalid_scanned_at"},
        {"POST", "/api/v1/checkin", "{\"qr\": \"" + qr + "\", \"nonce\": \"n\", \"scanned_at\": \"2026-01-01T00:00:00Z\"}", QString(), 401, "unauthorized"},
        // GET /api/v1/events, /revocations; /keys is public and read-only
        {"GET", "/api/v1/events?limit=0", {}, kioskToken, 400, "invalid_limit"},
        {"GET", "/api/v1/events?limit=1001", {}, kioskToken, 400, "invalid_limit"},
        {"GET", "/api/v1/events?after=x", {}, kioskToken, 400, "invalid_cursor"},
        {"GET", "/api/v1/events", {}, QString(), 401, "unauthorized"},
        {"GET", "/api/v1/revocations?after=-1", {}, kioskToken, 400, "invalid_cursor"},
        {"POST", "/api/v1/keys", "{}", QString(), 405, "method_not_allowed"},
        // POST /webhooks/payment: the signature is the authentication
        {"POST", "/webhooks/payment", "{\"event_id\": \"e1\", \"type\": \"payment_intent.succeeded\", \"payment_intent_id\": \"" +
                                          sold.value(QStringLiteral("payment_intent_id")).toString().toUtf8() + "\"}", QString(), 401, "invalid_signature"},
        // DELETE /api/v1/holds/{id} of someone else's hold
        {"DELETE", holdUrl(othersHold), {}, kioskToken, 404, "hold_not_found"},
    };
    const QString before = ordersState(f.server);
    for (const Case &c : cases) {
        SCOPED_TRACE(::testing::Message() << c.method << ' ' << c.path.left(120).constData() << ' ' << c.body.left(120).constData());
        auto client = f.server.client(c.token);
        const HttpResult r = client->request(c.method, c.path, c.body, {{"Content-Type", "application/json"}});
        EXPECT_API_ERROR(r, c.status, c.error);
        EXPECT_EQ(ordersState(f.server), before);
    }
    // A signed webhook with a forged signature or none changes nothing either (also tst_payments).
    const QByteArray body = "{\"event_id\":\"e2\",\"type\":\"payment_intent.succeeded\",\"payment_intent_id\":\"" +
                            pending.value(QStringLiteral("payment_intent_id")).toString().toUtf8() + "\"}";
    EXPECT_API_ERROR(f.server.client()->request("POST", "/webhooks/payment", body, signatureHeader(body, "wrong-secret")), 401, "invalid_signature");
    EXPECT_EQ(ordersState(f.server), before);
    EXPECT_EQ(f.sim.intentStatus(pending.value(QStringLiteral("payment_intent_id")).toString()), QStringLiteral("requires_payment"));
}

TEST(OrdersAcceptance, PaymentSettingsComeFromOptionsEnvironmentOrConfigFile)
{
    QString error;
    // Environment.
    qputenv("MARQUEE_PAYMENT_PROVIDER_URL", "http://127.0.0.1:8091");
    qputenv("MARQUEE_PAYMENT_WEBHOOK_SECRET", "from-env");
    auto fromEnv = ServerConfig::fromArguments({}, &error);
    qunsetenv("MARQUEE_PAYMENT_PROVIDER_URL");
    qunsetenv("MARQUEE_PAYMENT_WEBHOOK_SECRET");
    ASSERT_TRUE(fromEnv) << error.toStdString();
    EXPECT_EQ(fromEnv->payments.providerUrl, QStringLiteral("http://127.0.0.1:8091"));
    EXPECT_EQ(fromEnv->payments.webhookSecret, QByteArray("from-env"));

    // Config file, and the command line winning over it.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QFile file(dir.filePath(QStringLiteral("marquee.conf")));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Text));
    file.write("# payments\npayment-provider-url = http://127.0.0.1:8092\npayment-webhook-secret = from-file\npayment-window = 600\n");
    file.close();
    auto fromFile = ServerConfig::fromArguments({QStringLiteral("--config"), file.fileName()}, &error);
    ASSERT_TRUE(fromFile) << error.toStdString();
    EXPECT_EQ(fromFile->payments.providerUrl, QStringLiteral("http://127.0.0.1:8092"));
    EXPECT_EQ(fromFile->payments.webhookSecret, QByteArray("from-file"));
    EXPECT_EQ(fromFile->payments.paymentWindowSeconds, 600);
    auto overridden = ServerConfig::fromArguments({QStringLiteral("--config"), file.fileName(), QStringLiteral("--payment-webhook-secret"),
                                                   QStringLiteral("from-options")}, &error);
    ASSERT_TRUE(overridden) << error.toStdString();
    EXPECT_EQ(overridden->payments.webhookSecret, QByteArray("from-options"));
    EXPECT_EQ(overridden->payments.providerUrl, QStringLiteral("http://127.0.0.1:8092"));

    // A provider URL that is not http://HOST:PORT is refused with a message.
    error.clear();
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--payment-provider-url"), QStringLiteral("ftp://x")}, &error));
    EXPECT_FALSE(error.isEmpty());
}

TEST(OrdersAcceptance, ASlowProviderDelaysOnlyPaymentCallsNotTheWorkerThread)
{
    // One worker thread, and a "provider" that accepts the connection and never answers: confirm's status query
    // hangs for the provider timeout. Meanwhile the same worker must keep answering other requests; before, the
    // blocking call held the worker and every connection on it waited (up to 10 s per call).
    TestServer::Options options = paymentOptions();
    options.threads = 1;
    options.configure = [](ServerConfig &config) { config.payments.providerTimeoutMs = 4000; };
    OrderFixture f(options);
    auto kiosk = f.server.client(f.server.deviceToken());
    const QJsonObject order = f.order(*kiosk, f.hold(*kiosk, {QStringLiteral("A6")})).json();

    const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(silent, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(silent, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(silent, 4), 0);
    socklen_t length = sizeof address;
    ::getsockname(silent, reinterpret_cast<sockaddr *>(&address), &length);
    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:%1").arg(ntohs(address.sin_port)));

    std::atomic<bool> confirmDone{false};
    HttpResult confirmed;
    std::thread confirmer([&] {
        confirmed = f.confirm(*kiosk, order.value(QStringLiteral("order_id")).toString(), order.value(QStringLiteral("payment_intent_id")).toString());
        confirmDone = true;
    });
    // The server has connected to the silent provider: confirm is now inside the provider call.
    pollfd waiting{silent, POLLIN, 0};
    ASSERT_EQ(::poll(&waiting, 1, 10000), 1);
    const int held = ::accept(silent, nullptr, nullptr);
    ASSERT_GE(held, 0);

    auto other = f.server.client(f.server.deviceToken());
    const HttpResult health = other->get("/healthz");
    EXPECT_EQ(health.status, 200);
    const HttpResult seats = other->get("/api/v1/shows/" + QByteArray::number(f.showId) + "/seatmap");
    EXPECT_EQ(seats.status, 200);
    EXPECT_FALSE(confirmDone.load()) << "other requests waited for the provider call";

    confirmer.join();
    EXPECT_API_ERROR(confirmed, 503, "payment_status_unknown");
    EXPECT_EQ(f.orderState(order.value(QStringLiteral("order_id")).toString()), QStringLiteral("PENDING_PAYMENT"));
    ::close(held);
    ::close(silent);
}

TEST(OrdersAcceptance, KeysArePublicAndShapedAsSpecifiedAndVerifyTheSoldTickets)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    const OrderFixture::OpenOrder order = f.openOrder(*kiosk, {QStringLiteral("B5")});
    ASSERT_EQ(f.sim.pay(order.intentId, QStringLiteral("tok_visa")).status, 200);
    const HttpResult sold = f.confirm(*kiosk, order);
    ASSERT_EQ(sold.status, 200) << sold.body.constData();
    const QString qr = sold.json().value(QStringLiteral("tickets")).toArray()[0][QStringLiteral("qr")].toString();
    // MQ1.<base64url payload>.<base64url signature>, no padding.
    static const QRegularExpression shape(QStringLiteral("^MQ1\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{86}$"));
    EXPECT_TRUE(shape.match(qr).hasMatch()) << qr.toStdString();

    const HttpResult keys = kiosk->get("/api/v1/keys"); // the kiosk's venue's keys
    ASSERT_EQ(keys.status, 200) << keys.body.constData();
    const qint64 venueId = f.server.scalar(QStringLiteral("SELECT sc.venue_id FROM shows s JOIN screens sc USING (screen_id) WHERE s.show_id = %1").arg(f.showId)).toLongLong();
    QHash<quint32, QByteArray> published;
    for (const QJsonValue &key : keys.jsonArray()) {
        const QJsonObject k = key.toObject();
        EXPECT_GT(k.value(QStringLiteral("key_id")).toInteger(), 0);
        EXPECT_EQ(k.value(QStringLiteral("alg")).toString(), QStringLiteral("Ed25519"));
        const QByteArray raw = QByteArray::fromBase64(k.value(QStringLiteral("public_key")).toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        EXPECT_EQ(raw.size(), 32) << "base64 of the raw 32-byte public key";
        EXPECT_EQ(k.value(QStringLiteral("venue_id")).toInteger(), venueId);
        EXPECT_GT(fromIso(k.value(QStringLiteral("not_after")).toString()), QDateTime::currentDateTimeUtc());
        // Public parts only.
        for (const QString &field : k.keys())
            EXPECT_TRUE((QStringList{QStringLiteral("key_id"), QStringLiteral("alg"), QStringLiteral("public_key"), QStringLiteral("venue_id"),
                                     QStringLiteral("not_after"), QStringLiteral("signing")})
                            .contains(field))
                << field.toStdString();
        published.insert(quint32(k.value(QStringLiteral("key_id")).toInteger()), raw);
    }
    ASSERT_FALSE(published.isEmpty());
    EXPECT_EQ(TicketCodec::verify(qr, published).result, TicketCheck::Ok);
}

TEST(OrdersAcceptance, AConfirmedSaleReachesTheNotificationSpoolWithTheCustomersContact)
{
    // The notification consumer end to end: a real sale with an e-mail address, the server's own relay, its spool.
    QTemporaryDir spool;
    ASSERT_TRUE(spool.isValid());
    TestServer::Options options = paymentOptions();
    options.configure = [dir = spool.path()](ServerConfig &config) {
        config.notificationSpool = dir;
        config.relayIntervalMs = 50;
    };
    OrderFixture f(options);
    auto kiosk = f.server.client(f.server.deviceToken());
    const HttpResult created = kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), f.hold(*kiosk, {QStringLiteral("C3"), QStringLiteral("C4")})},
                                                                         {QStringLiteral("customer_email"), QStringLiteral("Ana@Example.org")}});
    ASSERT_EQ(created.status, 201) << created.body.constData();
    ASSERT_EQ(f.sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
    const HttpResult sold = f.confirm(*kiosk, created.json().value(QStringLiteral("order_id")).toString(), created.json().value(QStringLiteral("payment_intent_id")).toString());
    ASSERT_EQ(sold.status, 200) << sold.body.constData();

    QDir dir(spool.path());
    ASSERT_TRUE(eventually([&] { return !dir.entryList({QStringLiteral("event-*.json")}).isEmpty(); }));
    const QStringList files = dir.entryList({QStringLiteral("event-*.json")});
    ASSERT_EQ(files.size(), 1);
    QFile file(dir.filePath(files[0]));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject message = QJsonDocument::fromJson(file.readAll()).object();
    EXPECT_EQ(message.value(QStringLiteral("booking_id")).toString(), sold.json().value(QStringLiteral("booking_id")).toString());
    EXPECT_EQ(message.value(QStringLiteral("channels")).toArray()[0][QStringLiteral("to")].toString(), QStringLiteral("ana@example.org"));
    EXPECT_EQ(message.value(QStringLiteral("tickets")).toArray().size(), 2);
    // The personal data stays out of the event feed that every device may read.
    auto reader = f.server.client(f.server.deviceToken());
    EXPECT_FALSE(reader->get("/api/v1/events?after=0&limit=1000").body.contains("example.org"));
}

TEST(OrdersAcceptance, OrderCreationFreezesOnlyALiveHoldAndSurvivesAProviderThatIsDown)
{
    OrderFixture f;
    auto kiosk = f.server.client(f.server.deviceToken());
    // The answer's shape and the frozen TTL: past the payment window (900 s) plus grace.
    const QString holdId = f.hold(*kiosk, {QStringLiteral("D5")});
    f.server.context().orderService.setProviderUrl(QStringLiteral("http://127.0.0.1:1"));
    const HttpResult down = f.order(*kiosk, holdId);
    EXPECT_API_ERROR(down, 502, "payment_provider_unavailable");
    // No intent, no money: the order failed at once and the hold is still the customer's.
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM orders WHERE hold_id = '%1' AND state = 'FAILED'").arg(holdId)), 1);
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM payments")), 0);
    EXPECT_EQ(f.seatStatus(QStringLiteral("D5")), QStringLiteral("held"));
    f.server.context().orderService.setProviderUrl(f.sim.url());
    const HttpResult created = f.order(*kiosk, holdId);
    ASSERT_EQ(created.status, 201) << created.body.constData();
    const QJsonObject order = created.json();
    for (const char *field : {"order_id", "amount_minor", "currency", "payment_intent_id", "state", "expires_at"})
        EXPECT_TRUE(order.contains(QLatin1String(field))) << field;
    const qint64 window = QDateTime::currentDateTimeUtc().secsTo(fromIso(order.value(QStringLiteral("expires_at")).toString()));
    EXPECT_GT(window, 890);
    EXPECT_LE(window, 900);

    // A released hold cannot be ordered.
    const QString released = f.hold(*kiosk, {QStringLiteral("D6")});
    ASSERT_EQ(kiosk->del(holdUrl(released)).status, 200);
    EXPECT_API_ERROR(f.order(*kiosk, released), 409, "hold_released");
    EXPECT_EQ(f.count(QStringLiteral("SELECT count(*) FROM orders WHERE hold_id = '%1'").arg(released)), 0);
}

TEST(OrdersAcceptance, TheReconcilerReleasesADeclinedOrderThatNobodyConfirmed)
{
    // No webhook reaches this server (the simulator posts them nowhere) and nobody confirms: the reconciler's
    // status query finds the decline, fails the order and frees the seats.
    TestServer server(paymentOptions());
    PaySimProcess sim(QStringLiteral("http://127.0.0.1:9/webhooks/payment"), {});
    server.context().orderService.setProviderUrl(sim.url());
    const qint64 showId = server.createShow(2, 3);
    auto kiosk = server.client(server.deviceToken());
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}));
    ASSERT_EQ(held.status, 200);
    const HttpResult created = kiosk->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))}});
    ASSERT_EQ(created.status, 201) << created.body.constData();
    const QString orderId = created.json().value(QStringLiteral("order_id")).toString();
    ASSERT_EQ(sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_declined")).status, 200);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString(), QStringLiteral("PENDING_PAYMENT"));
    EXPECT_EQ(server.context().orderService.reconcileOnce(), 1);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT state || '/' || failure_reason FROM orders WHERE order_id = '%1'").arg(orderId)).toString(),
              QStringLiteral("FAILED/card_declined"));
    EXPECT_EQ(seatsInStatus(server, showId, "available"), 6);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM refunds")).toInt(), 0);
}
