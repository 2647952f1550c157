// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/orderrepository.h"
#include "logging.h"

#include "store/staffrepository.h"

#include "core/isotime.h"
#include "core/jsonwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUuid>

#include <algorithm>

namespace marquee::store {

namespace {
const QString kOrderColumns = QStringLiteral(
    "o.order_id::text, o.hold_id::text, o.show_id, o.owner, o.channel, array_to_json(o.seat_ids)::text, o.amount_minor, "
    "o.currency, o.state, o.provider, coalesce(o.payment_intent_id, ''), coalesce(o.failure_reason, ''), "
    "coalesce(o.booking_id::text, ''), o.confirm_decision, o.confirm_data::text, o.created_at, "
    "o.updated_at, o.expires_at, o.cash_minor, coalesce(o.tendered_minor, -1), coalesce(o.change_minor, 0)");

struct AnswerName {
    ErrorCode code;
    QLatin1StringView decision;
};
// The refusals an order ends in without a booking, as orders.confirm_decision spells them (migration 043); a
// confirmed order's decision is kConfirmed.
constexpr AnswerName kStoredRefusals[] = {
    {ErrorCode::PaymentNotStarted, QLatin1StringView("payment_not_started")},
    {ErrorCode::PaymentFailed, QLatin1StringView("payment_failed")},
    {ErrorCode::OrderExpired, QLatin1StringView("order_expired")},
    {ErrorCode::OrderCancelled, QLatin1StringView("order_cancelled")},
    {ErrorCode::OrderFailed, QLatin1StringView("order_failed")},
    {ErrorCode::HoldLost, QLatin1StringView("hold_lost")},
};
constexpr QLatin1StringView kConfirmed("confirmed");

ConfirmAnswer confirmAnswerFrom(const QString &decision, const QByteArray &data, const QString &orderId)
{
    ConfirmAnswer answer;
    const QJsonObject object = QJsonDocument::fromJson(data).object();
    if (decision == kConfirmed) {
        answer.booking = object;
        return answer;
    }
    for (const AnswerName &entry : kStoredRefusals) {
        if (entry.decision == decision) {
            answer.refusal = Refusal{entry.code, object, {}};
            return answer;
        }
    }
    // Only a newer server could have written it, and an older binary never serves a newer schema (Migrations).
    qCCritical(lcStore) << "order" << orderId << "has a stored confirm answer this server does not know:" << decision;
    answer.refusal = Refusal{ErrorCode::OrderStoreUnavailable, {}, {}};
    return answer;
}

OrderRecord readOrder(const QSqlQuery &q)
{
    OrderRecord r;
    r.orderId = q.value(0).toString();
    r.holdId = q.value(1).toString();
    r.showId = q.value(2).toLongLong();
    r.owner = q.value(3).toString();
    r.channel = q.value(4).toString();
    for (const QJsonValue &v : QJsonDocument::fromJson(q.value(5).toString().toUtf8()).array())
        r.seatIds << v.toString();
    r.amountMinor = q.value(6).toLongLong();
    r.currency = q.value(7).toString();
    r.state = orderStateFromString(q.value(8).toString()).value_or(OrderState::Created);
    r.provider = q.value(9).toString();
    r.paymentIntentId = q.value(10).toString();
    r.failureReason = q.value(11).toString();
    r.bookingId = q.value(12).toString();
    if (!q.value(13).isNull())
        r.confirmAnswer = confirmAnswerFrom(q.value(13).toString(), q.value(14).toString().toUtf8(), r.orderId);
    r.createdAt = q.value(15).toDateTime();
    r.updatedAt = q.value(16).toDateTime();
    r.expiresAt = q.value(17).toDateTime();
    r.cashMinor = q.value(18).toLongLong();
    r.tenderedMinor = q.value(19).toLongLong();
    r.changeMinor = q.value(20).toLongLong();
    return r;
}

QString json(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

bool isUuid(const QString &text)
{
    return !QUuid::fromString(text).isNull() && text.size() == 36;
}

// Lock the order row and tell whether it is in @p expected. A database failure leaves *dbError true; an order in
// another state sets it false (nothing to do: not an error). On success *dbError is true again for what follows.
bool lockInState(QSqlDatabase &db, const QString &orderId, OrderState expected, bool *dbError)
{
    *dbError = true;
    const auto state = OrderRepository::lockState(db, orderId);
    if (!state)
        return false;
    if (*state != expected) {
        *dbError = false;
        return false;
    }
    return true;
}

} // namespace

QString OrderRecord::paymentMethod() const
{
    return paymentMethodOf(provider, cashMinor);
}

QString OrderRecord::paymentMethodOf(const QString &provider, qint64 cashMinor)
{
    return provider == QLatin1String("cash") ? QStringLiteral("cash") : cashMinor > 0 ? QStringLiteral("split") : QStringLiteral("card");
}

QJsonObject OrderRecord::toJson() const
{
    QJsonObject object{{QStringLiteral("order_id"), orderId},
                       {QStringLiteral("hold_id"), holdId},
                       {QStringLiteral("show_id"), showId},
                       {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seatIds)},
                       {QStringLiteral("amount_minor"), amountMinor},
                       {QStringLiteral("currency"), currency},
                       {QStringLiteral("state"), toString(state)},
                       {QStringLiteral("channel"), channel},
                       {QStringLiteral("payment_method"), paymentMethod()},
                       {QStringLiteral("cash_minor"), cashMinor},
                       {QStringLiteral("card_minor"), cardMinor()},
                       {QStringLiteral("created_at"), toIsoUtc(createdAt)},
                       {QStringLiteral("updated_at"), toIsoUtc(updatedAt)},
                       {QStringLiteral("expires_at"), toIsoUtc(expiresAt)}};
    object.insert(QStringLiteral("payment_intent_id"), paymentIntentId.isEmpty() ? QJsonValue() : QJsonValue(paymentIntentId));
    if (tenderedMinor >= 0) {
        object.insert(QStringLiteral("tendered_minor"), tenderedMinor);
        object.insert(QStringLiteral("change_minor"), changeMinor);
    }
    object.insert(QStringLiteral("booking_id"), bookingId.isEmpty() ? QJsonValue() : QJsonValue(bookingId));
    if (!failureReason.isEmpty())
        object.insert(QStringLiteral("reason"), failureReason);
    return object;
}

OrderRepository::OrderRepository(const Database &database)
    : m_database(database)
{
}

bool OrderRepository::writeEvent(QSqlDatabase &db, const QString &type, const QString &aggregateId, const QJsonObject &payload)
{
    QSqlQuery q(db);
    prepareQuery(q, QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) VALUES (?, ?, ?::jsonb)"));
    q.addBindValue(type);
    q.addBindValue(aggregateId);
    q.addBindValue(json(payload));
    return execQuery(q, "write outbox event");
}

std::optional<OrderState> OrderRepository::lockState(QSqlDatabase &db, const QString &orderId)
{
    QSqlQuery q(db);
    prepareQuery(q, QStringLiteral("SELECT state FROM orders WHERE order_id = ?::uuid FOR UPDATE"));
    q.addBindValue(orderId);
    if (!execQuery(q, "lock order") || !q.next())
        return std::nullopt;
    return orderStateFromString(q.value(0).toString());
}

bool OrderRepository::transition(QSqlDatabase &db, const QString &orderId, OrderState from, OrderState to, const QString &reason)
{
    if (!checkTransition(from, to, orderId))
        return false;
    QSqlQuery q(db);
    prepareQuery(q, QStringLiteral("UPDATE orders SET state = ?, updated_at = clock_timestamp(), "
                                   "failure_reason = coalesce(nullif(?, ''), failure_reason) "
                                   "WHERE order_id = ?::uuid AND state = ?"));
    q.addBindValue(toString(to));
    q.addBindValue(reason);
    q.addBindValue(orderId);
    q.addBindValue(toString(from));
    if (!execQuery(q, "order transition") || q.numRowsAffected() != 1)
        return false;
    QJsonObject payload{{QStringLiteral("order_id"), orderId}, {QStringLiteral("from"), toString(from)}, {QStringLiteral("to"), toString(to)}};
    if (!reason.isEmpty())
        payload.insert(QStringLiteral("reason"), reason);
    return writeEvent(db, QStringLiteral("order.") + toString(to).toLower(), orderId, payload);
}

bool OrderRepository::releaseHoldSeats(QSqlDatabase &db, const QString &holdId, qint64 showId, const QStringList &seatIds,
                                       const QString &reason, QStringList *freedSeats)
{
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("SELECT 1 FROM show_seats WHERE show_id = ? AND seat_id = ANY (?::text[]) ORDER BY seat_id FOR UPDATE"));
    lock.addBindValue(showId);
    lock.addBindValue(toPgTextArray(seatIds));
    if (!execQuery(lock, "lock seats for release"))
        return false;
    QSqlQuery q(db);
    prepareQuery(q, QStringLiteral(
        "WITH freed AS (UPDATE show_seats SET status = 'available', held_by = NULL, hold_expires_at = NULL, version = version + 1 "
        "                WHERE show_id = ? AND seat_id = ANY (?::text[]) AND status = 'held' AND held_by = ?::uuid RETURNING seat_id) "
        "SELECT coalesce(json_agg(seat_id ORDER BY seat_id), '[]')::text FROM freed"));
    q.addBindValue(showId);
    q.addBindValue(toPgTextArray(seatIds));
    q.addBindValue(holdId);
    if (!execQuery(q, "release hold seats") || !q.next())
        return false;
    const QJsonArray freed = QJsonDocument::fromJson(q.value(0).toString().toUtf8()).array();
    if (freedSeats) {
        for (const QJsonValue &seat : freed)
            freedSeats->append(seat.toString());
    }
    QSqlQuery hold(db);
    prepareQuery(hold, QStringLiteral("UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = ?::uuid AND released_at IS NULL"));
    hold.addBindValue(holdId);
    if (!execQuery(hold, "mark hold released"))
        return false;
    if (freed.isEmpty() && hold.numRowsAffected() == 0)
        return true;
    return writeEvent(db, QStringLiteral("hold.released"), holdId,
                      {{QStringLiteral("hold_id"), holdId}, {QStringLiteral("show_id"), showId},
                       {QStringLiteral("seat_ids"), freed}, {QStringLiteral("reason"), reason}});
}

CreateOrderOutcome OrderRepository::create(const NewOrder &order)
{
    CreateOrderOutcome out;
    auto refuse = [&out](ErrorCode refusal) {
        out.ok = true;
        out.refusal = refusal;
        return out;
    };
    if (!isUuid(order.holdId))
        return refuse(ErrorCode::HoldNotFound);
    QSqlDatabase db = m_database.connection();
    if (!db.isOpen())
        return out;
    Transaction tx(db);
    if (!tx.isActive())
        return out;

    QSqlQuery hold(db);
    prepareQuery(hold, QStringLiteral("SELECT h.show_id, array_to_json(h.seat_ids)::text, h.released_at IS NOT NULL, "
                                      "       s.starts_at <= now() "
                                      "  FROM holds h JOIN shows s USING (show_id) WHERE h.hold_id = ?::uuid AND h.owner = ? FOR UPDATE OF h"));
    hold.addBindValue(order.holdId);
    hold.addBindValue(order.owner);
    if (!execQuery(hold, "read hold for order"))
        return out;
    if (!hold.next())
        return refuse(ErrorCode::HoldNotFound);
    const qint64 showId = hold.value(0).toLongLong();
    QStringList seats;
    for (const QJsonValue &v : QJsonDocument::fromJson(hold.value(1).toString().toUtf8()).array())
        seats << v.toString();
    if (hold.value(2).toBool())
        return refuse(ErrorCode::HoldReleased);
    if (hold.value(3).toBool() && !order.soldUnderLease)
        return refuse(ErrorCode::ShowStarted);

    QSqlQuery existing(db);
    prepareQuery(existing, QStringLiteral("SELECT order_id::text FROM orders WHERE hold_id = ?::uuid "
                                          "AND state NOT IN ('FAILED', 'EXPIRED', 'CANCELLED')"));
    existing.addBindValue(order.holdId);
    if (!execQuery(existing, "find live order of hold"))
        return out;
    if (existing.next()) {
        refuse(ErrorCode::OrderExists);
        out.extra.insert(QStringLiteral("order_id"), existing.value(0).toString());
        return out;
    }

    // Each seat costs its tier's price when the hold was placed (migration 023): a price edit since then does not
    // change what the customer was shown and is charged. A tier priced only after the hold takes today's price.
    QSqlQuery price(db);
    prepareQuery(price, QStringLiteral("SELECT o_priced, o_amount, o_currency "
                                       "  FROM mq_seat_prices(?, ?::text[], (SELECT created_at FROM holds WHERE hold_id = ?::uuid))"));
    price.addBindValue(showId);
    price.addBindValue(toPgTextArray(seats));
    price.addBindValue(order.holdId);
    if (!execQuery(price, "price seats") || !price.next())
        return out;
    if (price.value(0).toInt() != seats.size())
        return refuse(ErrorCode::PriceMissing);
    const qint64 amount = price.value(1).toLongLong();
    const QString currency = price.value(2).toString();
    const qint64 cashPart = order.provider == QLatin1String("cash") ? amount : order.tender.splitCashMinor;
    if (order.provider != QLatin1String("cash") && cashPart >= amount) {
        refuse(ErrorCode::InvalidSplit);
        out.extra.insert(QStringLiteral("amount_minor"), amount);
        return out;
    }
    const qint64 tendered = order.tender.tenderedMinor.value_or(cashPart);
    if (tendered < cashPart) {
        refuse(ErrorCode::InsufficientTender);
        out.extra.insert(QStringLiteral("cash_due_minor"), cashPart);
        return out;
    }

    // Freeze: the seats must still be held by this hold and not expired; all of them or nothing.
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("SELECT 1 FROM show_seats WHERE show_id = ? AND seat_id = ANY (?::text[]) ORDER BY seat_id FOR UPDATE"));
    lock.addBindValue(showId);
    lock.addBindValue(toPgTextArray(seats));
    if (!execQuery(lock, "lock seats for order"))
        return out;
    const int frozenSeconds = order.paymentWindowSeconds + order.graceSeconds;
    QSqlQuery freeze(db);
    prepareQuery(freeze, QStringLiteral(
        "UPDATE show_seats SET hold_expires_at = clock_timestamp() + make_interval(secs => ?), version = version + 1 "
        " WHERE show_id = ? AND seat_id = ANY (?::text[]) AND status = 'held' AND held_by = ?::uuid "
        "   AND hold_expires_at > clock_timestamp()"));
    freeze.addBindValue(frozenSeconds);
    freeze.addBindValue(showId);
    freeze.addBindValue(toPgTextArray(seats));
    freeze.addBindValue(order.holdId);
    if (!execQuery(freeze, "freeze hold"))
        return out;
    if (freeze.numRowsAffected() != seats.size())
        return refuse(ErrorCode::HoldExpired);
    QSqlQuery holdTtl(db);
    prepareQuery(holdTtl, QStringLiteral("UPDATE holds SET expires_at = clock_timestamp() + make_interval(secs => ?) WHERE hold_id = ?::uuid"));
    holdTtl.addBindValue(frozenSeconds);
    holdTtl.addBindValue(order.holdId);
    if (!execQuery(holdTtl, "extend hold"))
        return out;

    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO orders (order_id, hold_id, show_id, owner, channel, device_id, staff_id, seat_ids, amount_minor, currency, "
        "                    state, provider, expires_at, cash_minor, tendered_minor, change_minor, customer_email, customer_phone) "
        "VALUES (?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?::text[], ?, ?, 'CREATED', ?, clock_timestamp() + make_interval(secs => ?), ?, ?, ?, ?, ?) "
        "RETURNING ") + QString(kOrderColumns).replace(QStringLiteral("o."), QString()));
    insert.addBindValue(order.orderId);
    insert.addBindValue(order.holdId);
    insert.addBindValue(showId);
    insert.addBindValue(order.owner);
    insert.addBindValue(order.channel);
    insert.addBindValue(order.deviceId ? QVariant(order.deviceId) : QVariant(QMetaType::fromType<qint64>()));
    insert.addBindValue(order.staffId ? QVariant(order.staffId) : QVariant(QMetaType::fromType<qint64>()));
    insert.addBindValue(toPgTextArray(seats));
    insert.addBindValue(amount);
    insert.addBindValue(currency);
    insert.addBindValue(order.provider);
    insert.addBindValue(order.paymentWindowSeconds);
    insert.addBindValue(cashPart);
    insert.addBindValue(cashPart > 0 ? QVariant(tendered) : QVariant(QMetaType::fromType<qint64>()));
    insert.addBindValue(cashPart > 0 ? QVariant(tendered - cashPart) : QVariant(QMetaType::fromType<qint64>()));
    insert.addBindValue(order.contact.email.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(order.contact.email));
    insert.addBindValue(order.contact.phone.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(order.contact.phone));
    if (!execQuery(insert, "insert order") || !insert.next())
        return out;
    OrderRecord record = readOrder(insert);
    if (!writeEvent(db, QStringLiteral("order.created"), order.orderId,
                    {{QStringLiteral("order_id"), order.orderId}, {QStringLiteral("hold_id"), order.holdId},
                     {QStringLiteral("show_id"), showId}, {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)},
                     {QStringLiteral("amount_minor"), amount}, {QStringLiteral("currency"), currency},
                     {QStringLiteral("channel"), order.channel}}))
        return out;
    if (order.staff) {
        const QJsonObject payment = record.toJson();
        QJsonObject details{{QStringLiteral("hold_id"), order.holdId},
                            {QStringLiteral("show_id"), showId},
                            {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)},
                            {QStringLiteral("amount_minor"), amount},
                            {QStringLiteral("currency"), currency}};
        for (const QString &field : {QStringLiteral("payment_method"), QStringLiteral("cash_minor"), QStringLiteral("card_minor"),
                                     QStringLiteral("tendered_minor"), QStringLiteral("change_minor")}) {
            if (payment.contains(field))
                details.insert(field, payment.value(field));
        }
        if (!StaffRepository::appendAudit(db, *order.staff, {QStringLiteral("order.create"), QStringLiteral("order:") + order.orderId, QString(), details}))
            return out;
    }
    if (!tx.commit())
        return out;
    out.ok = true;
    out.order = record;
    return out;
}

bool OrderRepository::attachIntent(const QString &orderId, const QString &intentId, const QString &provider, qint64 amountMinor,
                                   const QString &currency)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    QSqlQuery q(db);
    prepareQuery(q, QStringLiteral("UPDATE orders SET payment_intent_id = ? WHERE order_id = ?::uuid AND state = 'CREATED'"));
    q.addBindValue(intentId);
    q.addBindValue(orderId);
    if (!execQuery(q, "attach intent") || q.numRowsAffected() != 1)
        return false;
    QSqlQuery p(db);
    prepareQuery(p, QStringLiteral("INSERT INTO payments (payment_intent_id, order_id, provider, amount_minor, currency, status) "
                                   "VALUES (?, ?::uuid, ?, ?, ?, 'requires_payment')"));
    p.addBindValue(intentId);
    p.addBindValue(orderId);
    p.addBindValue(provider);
    p.addBindValue(amountMinor);
    p.addBindValue(currency);
    if (!execQuery(p, "insert payment"))
        return false;
    if (!transition(db, orderId, OrderState::Created, OrderState::PendingPayment, QString()))
        return false;
    return tx.commit();
}

std::optional<OrderRecord> OrderRepository::findWhere(const QString &column, const QString &value, bool *ok)
{
    *ok = true;
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral("SELECT %1 FROM orders o WHERE o.%2 = ?").arg(kOrderColumns, column));
    q.addBindValue(value);
    if (!execQuery(q, "read order")) {
        *ok = false;
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return readOrder(q);
}

std::optional<OrderRecord> OrderRepository::find(const QString &orderId, bool *ok)
{
    *ok = true;
    if (!isUuid(orderId))
        return std::nullopt;
    return findWhere(QStringLiteral("order_id"), orderId, ok);
}

std::optional<OrderRecord> OrderRepository::findByIntent(const QString &intentId, bool *ok)
{
    *ok = true;
    if (intentId.isEmpty())
        return std::nullopt;
    return findWhere(QStringLiteral("payment_intent_id"), intentId, ok);
}

bool OrderRepository::markPaid(const QString &orderId, bool *dbError)
{
    *dbError = true;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    if (!lockInState(db, orderId, OrderState::PendingPayment, dbError))
        return false;
    QSqlQuery p(db);
    prepareQuery(p, QStringLiteral("UPDATE payments SET status = 'succeeded', captured_at = coalesce(captured_at, clock_timestamp()), "
                                   "updated_at = clock_timestamp() WHERE order_id = ?::uuid"));
    p.addBindValue(orderId);
    if (!execQuery(p, "record capture"))
        return false;
    if (!transition(db, orderId, OrderState::PendingPayment, OrderState::Paid, QString()))
        return false;
    if (!tx.commit())
        return false;
    *dbError = false;
    return true;
}

bool OrderRepository::storeAnswer(
    QSqlDatabase &db, const QString &orderId, const ConfirmAnswer &answer, const QString &bookingId)
{
    QLatin1StringView decision = kConfirmed;
    if (const auto &refusal = answer.refusal) {
        const auto stored = std::find_if(std::begin(kStoredRefusals), std::end(kStoredRefusals),
            [&](const AnswerName &entry) { return entry.code == refusal->code; });
        // A replay renders the sentence from the decision alone: one with arguments could not be rendered again.
        if (stored == std::end(kStoredRefusals) || !refusal->arguments.isEmpty()) {
            qCCritical(lcStore) << "order" << orderId << "cannot store the refusal" << errorEntry(refusal->code).code
                                << "as its confirm answer";
            return false;
        }
        decision = stored->decision;
    }
    QSqlQuery r(db);
    prepareQuery(r,
        QStringLiteral("UPDATE orders SET confirm_decision = ?, confirm_data = ?::jsonb, booking_id = "
                       "coalesce(?::uuid, booking_id) "
                       "WHERE order_id = ?::uuid"));
    r.addBindValue(QString(decision));
    r.addBindValue(json(answer.refusal ? answer.refusal->data : answer.booking));
    r.addBindValue(bookingId.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(bookingId));
    r.addBindValue(orderId);
    return execQuery(r, "store confirm answer");
}

bool OrderRepository::endWithoutBooking(const QString &orderId, OrderState from, OrderState to, const QString &reason,
                                        const QString &paymentStatus, const Refusal &answer, bool *dbError, bool releaseSeats)
{
    *dbError = true;
    const SeatFreeing::Scope freeing(m_database.seatFreeing()); // outlives the transaction: see SeatFreeing
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    if (!lockInState(db, orderId, from, dbError))
        return false;
    if (!checkTransition(from, to, orderId)) {
        *dbError = false;
        return false;
    }
    bool ok = false;
    const auto order = findWhere(QStringLiteral("order_id"), orderId, &ok); // same thread, same connection: inside tx
    if (!order || !transition(db, orderId, from, to, reason))
        return false;
    QStringList freed;
    if (releaseSeats && !releaseHoldSeats(db, order->holdId, order->showId, order->seatIds, QStringLiteral("order_") + toString(to).toLower(), &freed))
        return false;
    if (!paymentStatus.isEmpty()) {
        QSqlQuery p(db);
        prepareQuery(p, QStringLiteral("UPDATE payments SET status = ?, decline_reason = nullif(?, ''), updated_at = clock_timestamp() "
                                       "WHERE order_id = ?::uuid"));
        p.addBindValue(paymentStatus);
        p.addBindValue(reason);
        p.addBindValue(orderId);
        if (!execQuery(p, "record payment outcome"))
            return false;
    }
    if (!storeAnswer(db, orderId, ConfirmAnswer{answer, {}}) || !tx.commit())
        return false;
    m_database.seatWrites().committed(order->showId, freed, SeatStatus::Available);
    *dbError = false;
    return true;
}

bool OrderRepository::markHoldLost(const QString &orderId, const QString &requestedBy, const Refusal &answer, bool *dbError)
{
    *dbError = true;
    const SeatFreeing::Scope freeing(m_database.seatFreeing());
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    if (!lockInState(db, orderId, OrderState::Paid, dbError))
        return false;
    bool ok = false;
    const auto order = findWhere(QStringLiteral("order_id"), orderId, &ok);
    if (!order || !transition(db, orderId, OrderState::Paid, OrderState::RefundPending, QStringLiteral("hold_lost")))
        return false;
    QStringList freed;
    if (!releaseHoldSeats(db, order->holdId, order->showId, order->seatIds, QStringLiteral("hold_lost"), &freed))
        return false;
    QSqlQuery refund(db);
    prepareQuery(refund, QStringLiteral(
        "INSERT INTO refunds (refund_id, order_id, payment_intent_id, provider, amount_minor, currency, reason, status, requested_by) "
        "VALUES (gen_random_uuid(), ?::uuid, ?, ?, ?, ?, 'hold_lost', 'pending', ?) ON CONFLICT (order_id) DO NOTHING"));
    refund.addBindValue(orderId);
    refund.addBindValue(order->paymentIntentId);
    refund.addBindValue(order->provider);
    refund.addBindValue(order->amountMinor);
    refund.addBindValue(order->currency);
    refund.addBindValue(requestedBy);
    if (!execQuery(refund, "record pending refund"))
        return false;
    if (!storeAnswer(db, orderId, ConfirmAnswer{answer, {}}))
        return false;
    if (!writeEvent(db, QStringLiteral("refund.requested"), orderId,
                    {{QStringLiteral("order_id"), orderId}, {QStringLiteral("amount_minor"), order->amountMinor},
                     {QStringLiteral("currency"), order->currency}, {QStringLiteral("reason"), QStringLiteral("hold_lost")}}))
        return false;
    if (!tx.commit())
        return false;
    m_database.seatWrites().committed(order->showId, freed, SeatStatus::Available);
    *dbError = false;
    return true;
}

std::optional<QList<OrderRecord>> OrderRepository::unsettled(int ageSeconds, int limit)
{
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral("SELECT %1 FROM orders o WHERE o.state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING') "
                                   "AND o.updated_at <= clock_timestamp() - make_interval(secs => ?) ORDER BY o.updated_at LIMIT ?")
                        .arg(kOrderColumns));
    q.addBindValue(ageSeconds);
    q.addBindValue(limit);
    if (!execQuery(q, "list unsettled orders"))
        return std::nullopt;
    QList<OrderRecord> list;
    while (q.next())
        list << readOrder(q);
    return list;
}

std::optional<QJsonArray> OrderRepository::awaitingReconciliation(int minAgeSeconds, int limit)
{
    QSqlQuery q(m_database.connection());
    // The same states and bounds as the reconciler's (OrderService::reconcileOnce): what it has not settled yet.
    prepareQuery(q, QStringLiteral(
        "SELECT %1, "
        "       CASE o.state WHEN 'CREATED' THEN 'payment_start' WHEN 'PAID' THEN 'booking' "
        "                    WHEN 'PENDING_PAYMENT' THEN 'provider_answer' ELSE 'refund' END, "
        "       floor(extract(epoch FROM clock_timestamp() - o.updated_at))::bigint, r.created_at, coalesce(r.reason, '') "
        "  FROM orders o LEFT JOIN refunds r ON r.order_id = o.order_id "
        " WHERE o.state IN ('CREATED', 'PENDING_PAYMENT', 'PAID', 'REFUND_PENDING') "
        "   AND (o.state = 'REFUND_PENDING' "
        "        OR (o.state = 'PENDING_PAYMENT' AND o.expires_at <= clock_timestamp()) "
        "        OR (o.state IN ('CREATED', 'PAID') AND o.updated_at <= clock_timestamp() - make_interval(secs => ?))) "
        " ORDER BY o.updated_at, o.order_id LIMIT ?").arg(kOrderColumns));
    q.addBindValue(minAgeSeconds);
    q.addBindValue(limit);
    if (!execQuery(q, "list orders awaiting reconciliation"))
        return std::nullopt;
    QJsonArray rows;
    while (q.next()) {
        const OrderRecord order = readOrder(q);
        QJsonObject row = order.toJson();
        row.insert(QStringLiteral("owner"), order.owner);
        row.insert(QStringLiteral("waiting_for"), q.value(21).toString());
        row.insert(QStringLiteral("age_seconds"), q.value(22).toLongLong());
        row.insert(QStringLiteral("refund_requested_at"), q.value(23).isNull() ? QJsonValue() : QJsonValue(toIsoUtc(q.value(23).toDateTime())));
        row.insert(QStringLiteral("refund_reason"), q.value(24).toString());
        rows.append(row);
    }
    return rows;
}

namespace {
/**
 * @brief Why a refund was made, from who asked for it: "override" (a manager cancelled outside the policy, with a
 * reason), "staff" (a staff member cancelled within it), "till" (a till device cancelled as itself), "reconciler"
 * (the server's reconciler found a payment whose hold was lost) or "hold_lost" (the same found when the order was
 * confirmed, by the provider's webhook or on a hold release; rows written before the finder was recorded say
 * just "system") or "provider" (refunded at the payment provider, not by us; the booking was cancelled after it).
 */
QString refundKind(const QString &requestedBy, bool policyOverride)
{
    if (requestedBy.startsWith(QLatin1String("session:")))
        return policyOverride ? QStringLiteral("override") : QStringLiteral("staff");
    if (requestedBy.startsWith(QLatin1String("device:")))
        return QStringLiteral("till");
    if (requestedBy == QLatin1String("system:provider"))
        return QStringLiteral("provider"); // refunded at the provider (its dashboard, a dispute); the server followed
    return requestedBy == QLatin1String("system:reconciler") ? QStringLiteral("reconciler") : QStringLiteral("hold_lost");
}
} // namespace

std::optional<QByteArray> OrderRepository::refunds(const QDateTime &from, const QDateTime &to, int limit, bool *truncated)
{
    *truncated = false;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return std::nullopt;
    QSqlQuery q(db);
    // The page is cut first, newest first down the refunds_created index; everything else is joined to its rows by
    // primary key. At the default cost of a random page the planner reads every order (or booking) of the year
    // instead and hashes them (~300 ms on a year of 1,000,000 tickets, docs/perf/journal.md, "Refunds report
    // rewritten"); those indexes are in memory, so for this statement a random page costs little more than a
    // sequential one.
    if (!q.exec(QStringLiteral("SET LOCAL random_page_cost = 1.1"))) {
        qCWarning(lcStore) << "refunds report:" << q.lastError().text();
        return std::nullopt;
    }
    // Who asked is the refund's requested_by: a staff session (its staff member and the device it was opened on), a
    // device acting itself, or the server ("system:<finder>"); its ids are columns of their own (migration 026).
    // The device that took the payment: the order's own, else the till of the shift it was sold in, else the device
    // its staff session was opened on (looked up only when the first two are missing: coalesce() stops at the first
    // value). Times come as milliseconds since the epoch (no text to parse, no time zone to look up per value).
    prepareQuery(q, QStringLiteral(
        "WITH page AS MATERIALIZED ("
        "    SELECT * FROM refunds WHERE created_at >= ? AND created_at < ? ORDER BY created_at DESC, refund_id DESC LIMIT ?) "
        "SELECT r.refund_id::text, o.order_id::text, b.booking_id::text, b.booking_ref, o.show_id, m.title, "
        "       (extract(epoch FROM s.starts_at) * 1000)::bigint, o.channel, sold.device_id, sold.name, o.amount_minor, "
        "       r.amount_minor, r.currency, r.cash_minor, o.provider, o.cash_minor, r.reason, coalesce(b.cancel_fee_minor, 0), "
        "       coalesce(b.fee_waived, false), r.status, (extract(epoch FROM r.created_at) * 1000)::bigint, "
        "       (extract(epoch FROM r.completed_at) * 1000)::bigint, r.requested_by, st.name, st.role, asker.device_id, "
        "       asker.name, r.shift_id, coalesce(b.policy_override, false) "
        "  FROM page r "
        "  JOIN orders o ON o.order_id = r.order_id "
        "  JOIN shows s ON s.show_id = o.show_id "
        "  JOIN movies m ON m.movie_id = s.movie_id "
        "  LEFT JOIN bookings b ON b.booking_id = r.booking_id "
        "  LEFT JOIN sessions se ON se.session_id = r.requested_by_session "
        "  LEFT JOIN staff st ON st.staff_id = se.staff_id "
        "  LEFT JOIN devices asker ON asker.device_id = coalesce(se.device_id, r.requested_by_device) "
        "  LEFT JOIN shifts osh ON osh.shift_id = o.shift_id "
        "  LEFT JOIN devices sold ON sold.device_id = coalesce(o.device_id, osh.device_id, "
        "      (SELECT ose.device_id FROM sessions ose WHERE ose.session_id = substring(o.owner FROM '^session:(\\d+)$')::bigint)) "
        " ORDER BY r.created_at DESC, r.refund_id DESC"));
    q.setForwardOnly(true);
    q.addBindValue(from.toUTC());
    q.addBindValue(to.toUTC());
    q.addBindValue(limit + 1);
    if (!execQuery(q, "refunds report"))
        return std::nullopt;

    enum Column {
        RefundId, OrderId, BookingId, BookingRef, ShowId, Title, StartsAtMs, Channel, SoldOnDeviceId, SoldOnDevice,
        OrderAmount, Amount, Currency, Cash, Provider, OrderCash, Reason, Fee, FeeWaived, Status, RequestedAtMs,
        CompletedAtMs, RequestedBy, ActorName, ActorRole, DeviceId, DeviceName, ShiftId, PolicyOverride
    };
    const auto isoTime = [&q](int column) { return toIsoUtcFromMs(q.value(column).toLongLong()); };
    // A text or number column that may be NULL (a LEFT JOIN that found nothing).
    const auto nullableMember = [&q](JsonWriter &row, QByteArrayView key, int column, bool number) -> JsonWriter & {
        const QVariant value = q.value(column);
        if (value.isNull())
            return row.nullMember(key);
        return number ? row.member(key, value.toLongLong()) : row.member(key, value.toString());
    };

    // Written straight as JSON, keys in QJsonObject's (sorted) order: 5,000 rows cost ~70 µs each through
    // QJsonObject and a document (docs/perf/journal.md, "Refunds report rewritten").
    QByteArray json;
    json.reserve(1024 * 1024);
    JsonWriter rows(&json);
    rows.beginArray();
    int count = 0;
    while (q.next()) {
        if (count++ == limit) {
            *truncated = true;
            break;
        }
        const qint64 amount = q.value(Amount).toLongLong();
        const qint64 cash = q.value(Cash).toLongLong();
        const QString requestedBy = q.value(RequestedBy).toString();
        const bool automatic = requestedBy.startsWith(QLatin1String("system"));
        const QString finder = automatic && requestedBy.startsWith(QLatin1String("system:")) ? requestedBy.mid(7) : QString();
        rows.beginObject();
        nullableMember(rows, "actor_name", ActorName, false);
        nullableMember(rows, "actor_role", ActorRole, false);
        rows.member("amount_minor", amount).member("automatic", automatic);
        nullableMember(rows, "booking_id", BookingId, false);
        nullableMember(rows, "booking_ref", BookingRef, false);
        rows.member("card_minor", amount - cash).member("cash_minor", cash).member("channel", q.value(Channel).toString());
        if (q.value(CompletedAtMs).isNull())
            rows.nullMember("completed_at");
        else
            rows.member("completed_at", isoTime(CompletedAtMs));
        rows.member("currency", q.value(Currency).toString());
        nullableMember(rows, "device_id", DeviceId, true);
        nullableMember(rows, "device_name", DeviceName, false);
        rows.member("fee_minor", q.value(Fee).toLongLong()).member("fee_waived", q.value(FeeWaived).toBool());
        if (finder.isEmpty())
            rows.nullMember("found_by");
        else
            rows.member("found_by", finder);
        rows.member("kind", refundKind(requestedBy, q.value(PolicyOverride).toBool()))
            .member("order_amount_minor", q.value(OrderAmount).toLongLong())
            .member("order_id", q.value(OrderId).toString())
            .member("payment_method", OrderRecord::paymentMethodOf(q.value(Provider).toString(), q.value(OrderCash).toLongLong()))
            .member("reason", q.value(Reason).toString())
            .member("refund_id", q.value(RefundId).toString())
            .member("requested_at", isoTime(RequestedAtMs))
            .member("requested_by", requestedBy);
        nullableMember(rows, "shift_id", ShiftId, true);
        rows.member("show_id", q.value(ShowId).toLongLong());
        nullableMember(rows, "sold_on_device", SoldOnDevice, false);
        nullableMember(rows, "sold_on_device_id", SoldOnDeviceId, true);
        rows.member("starts_at", isoTime(StartsAtMs)).member("status", q.value(Status).toString()).member("title", q.value(Title).toString());
        rows.endObject();
    }
    rows.endArray();
    q.finish();
    tx.commit();
    return json;
}

} // namespace marquee::store
