// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/paymentrepository.h"

#include "store/orderrepository.h"

#include <QUuid>

namespace marquee::store {

PaymentRepository::PaymentRepository(const Database &database)
    : m_database(database)
{
}

PaymentRepository::EventRecord PaymentRepository::recordEvent(const QString &provider, const QString &eventId, const QString &type,
                                                              const QString &intentId, const QByteArray &payload)
{
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral(
        "WITH ins AS (INSERT INTO payment_events (provider, event_id, event_type, payment_intent_id, payload) "
        "             VALUES (?, ?, ?, ?, ?::jsonb) ON CONFLICT (provider, event_id) DO NOTHING RETURNING 1) "
        "SELECT (SELECT count(*) FROM ins), "
        "       (SELECT processed_at IS NOT NULL FROM payment_events WHERE provider = ? AND event_id = ?)"));
    q.addBindValue(provider);
    q.addBindValue(eventId);
    q.addBindValue(type);
    q.addBindValue(intentId);
    q.addBindValue(QString::fromUtf8(payload));
    q.addBindValue(provider);
    q.addBindValue(eventId);
    if (!execQuery(q, "record payment event") || !q.next())
        return EventRecord::Error;
    if (q.value(0).toInt() == 1)
        return EventRecord::New;
    return q.value(1).toBool() ? EventRecord::AlreadyProcessed : EventRecord::Unprocessed;
}

bool PaymentRepository::markEventProcessed(const QString &provider, const QString &eventId)
{
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral("UPDATE payment_events SET processed_at = clock_timestamp() WHERE provider = ? AND event_id = ? "
                                   "AND processed_at IS NULL"));
    q.addBindValue(provider);
    q.addBindValue(eventId);
    return execQuery(q, "mark event processed");
}

std::optional<RefundRecord> PaymentRepository::refundOfOrder(const QString &orderId, bool *ok)
{
    *ok = true;
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral("SELECT refund_id::text, order_id::text, payment_intent_id, provider, amount_minor, currency, status, "
                                   "coalesce(provider_refund_id, ''), cash_minor FROM refunds WHERE order_id = ?::uuid"));
    q.addBindValue(orderId);
    if (!execQuery(q, "read refund")) {
        *ok = false;
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return RefundRecord{q.value(0).toString(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
                        q.value(4).toLongLong(), q.value(5).toString(), q.value(6).toString(), q.value(7).toString(),
                        q.value(8).toLongLong()};
}

bool PaymentRepository::completeRefund(const QString &orderId, const QString &providerRefundId)
{
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return false;
    const auto state = OrderRepository::lockState(db, orderId);
    if (!state)
        return false;
    if (*state == OrderState::Refunded)
        return true;
    if (*state != OrderState::RefundPending)
        return false;
    QSqlQuery r(db);
    prepareQuery(r, QStringLiteral("UPDATE refunds SET status = 'succeeded', provider_refund_id = ?, completed_at = clock_timestamp() "
                                   "WHERE order_id = ?::uuid AND status = 'pending' RETURNING amount_minor, currency"));
    r.addBindValue(providerRefundId);
    r.addBindValue(orderId);
    if (!execQuery(r, "complete refund") || !r.next())
        return false;
    const qint64 amount = r.value(0).toLongLong();
    const QString currency = r.value(1).toString();
    QSqlQuery p(db);
    prepareQuery(p, QStringLiteral("UPDATE payments SET status = 'refunded', updated_at = clock_timestamp() WHERE order_id = ?::uuid"));
    p.addBindValue(orderId);
    if (!execQuery(p, "mark payment refunded"))
        return false;
    if (!OrderRepository::transition(db, orderId, OrderState::RefundPending, OrderState::Refunded, QString()))
        return false;
    if (!OrderRepository::writeEvent(db, QStringLiteral("refund.succeeded"), orderId,
                                     {{QStringLiteral("order_id"), orderId}, {QStringLiteral("refund_id"), providerRefundId},
                                      {QStringLiteral("amount_minor"), amount}, {QStringLiteral("currency"), currency}}))
        return false;
    return tx.commit();
}

} // namespace marquee::store
