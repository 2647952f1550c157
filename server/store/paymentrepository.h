// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QJsonObject>
#include <optional>

namespace marquee::store {

/** @brief A refund waiting for (or done by) the provider. */
struct RefundRecord {
    QString refundId;
    QString orderId;
    QString paymentIntentId;
    QString provider;
    qint64 amountMinor = 0;
    QString currency;
    QString status; ///< pending or succeeded
    QString providerRefundId;
    qint64 cashMinor = 0; ///< handed back from a drawer; the rest goes back through the provider
};

/**
 * @brief Provider webhook events (deduplicated by provider event id) and refunds.
 */
class PaymentRepository
{
public:
    explicit PaymentRepository(const Database &database);

    enum class EventRecord { New, Unprocessed, AlreadyProcessed, Error };
    /**
     * @brief Remember a webhook event. New the first time; Unprocessed when it was seen before but its processing
     * did not finish (process it again: processing is idempotent); AlreadyProcessed for a true duplicate.
     */
    EventRecord recordEvent(const QString &provider, const QString &eventId, const QString &type, const QString &intentId,
                            const QByteArray &payload);
    bool markEventProcessed(const QString &provider, const QString &eventId);

    /** @brief The refund of an order, if any; @p ok false on error. */
    std::optional<RefundRecord> refundOfOrder(const QString &orderId, bool *ok);
    /**
     * @brief The provider refunded: in one transaction the refund succeeds, the payment is marked refunded and the
     * order goes REFUND_PENDING → REFUNDED. Idempotent: true when already done.
     */
    bool completeRefund(const QString &orderId, const QString &providerRefundId);

private:
    const Database &m_database;
};

} // namespace marquee::store
