// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/money.h"

#include <QString>
#include <QUrl>
#include <optional>

namespace marquee::payments {

/** @brief A payment intent's status as the provider reports it (paysim spelling on the wire). */
enum class IntentStatus { RequiresPayment, Succeeded, Failed, Canceled, Refunded };

QString toString(IntentStatus status);
std::optional<IntentStatus> intentStatusFromString(const QString &text);

/** @brief A payment intent as the provider sees it. */
struct Intent {
    QString id;
    IntentStatus status = IntentStatus::RequiresPayment;
    qint64 amountMinor = 0;
    QString currency;
    QString declineReason; ///< set when status is Failed
    qint64 refundedMinor = 0; ///< set when status is Refunded: how much went back (all of it, or a part)
};

/** @brief A refund the provider made. */
struct RefundResult {
    QString refundId;
    bool succeeded = false;
};

/**
 * @brief One way of taking money. Calls block the calling thread (never call inside a database transaction);
 * std::nullopt means the provider could not be reached or gave no usable answer: the outcome is unknown and the
 * caller must fail closed (keep the order as it is; the reconciler asks again later).
 */
class PaymentProvider
{
public:
    virtual ~PaymentProvider() = default;
    /** @brief Stored in orders.provider: "paysim" or "cash". */
    virtual QString name() const = 0;
    /** @brief Create an intent for @p amount, tagged with @p orderId. */
    virtual std::optional<Intent> createIntent(const QString &orderId, const Money &amount, QString *error) = 0;
    /** @brief The intent's current status (this is how a capture is verified). */
    virtual std::optional<Intent> queryIntent(const QString &intentId, QString *error) = 0;
    /**
     * @brief Cancel an unpaid intent so that it can no longer be paid; returns its status afterwards (Succeeded
     * when it was paid first: then the money is real and must be booked or refunded).
     */
    virtual std::optional<Intent> cancelIntent(const QString &intentId, QString *error) = 0;
    /** @brief Refund @p amountMinor of a paid intent. Idempotent per intent: a second call returns the first refund. */
    virtual std::optional<RefundResult> refund(const QString &intentId, qint64 amountMinor, QString *error) = 0;
};

/** @brief The card provider: marquee-paysim (or anything speaking its API) over HTTP. */
class PaySimProvider : public PaymentProvider
{
public:
    PaySimProvider(QUrl baseUrl, int timeoutMs);
    QString name() const override { return QStringLiteral("paysim"); }
    std::optional<Intent> createIntent(const QString &orderId, const Money &amount, QString *error) override;
    std::optional<Intent> queryIntent(const QString &intentId, QString *error) override;
    std::optional<Intent> cancelIntent(const QString &intentId, QString *error) override;
    std::optional<RefundResult> refund(const QString &intentId, qint64 amountMinor, QString *error) override;
    bool isConfigured() const { return m_baseUrl.isValid() && !m_baseUrl.host().isEmpty(); }

private:
    QUrl m_baseUrl;
    int m_timeoutMs;
};

/**
 * @brief Cash at a till: the cashier has the money in hand before the order exists, so every intent is paid at
 * once and a refund is cash handed back. Stateless; intent ids are "cash_<uuid>".
 */
class CashProvider : public PaymentProvider
{
public:
    QString name() const override { return QStringLiteral("cash"); }
    std::optional<Intent> createIntent(const QString &orderId, const Money &amount, QString *error) override;
    std::optional<Intent> queryIntent(const QString &intentId, QString *error) override;
    std::optional<Intent> cancelIntent(const QString &intentId, QString *error) override;
    std::optional<RefundResult> refund(const QString &intentId, qint64 amountMinor, QString *error) override;
};

/** @brief A blocking HTTP/1.1 exchange over a fresh TCP connection (no event loop needed). */
struct HttpReply {
    int status = 0;
    QByteArray body;
};
std::optional<HttpReply> blockingHttp(const QUrl &url, const QByteArray &method, const QByteArray &body, int timeoutMs,
                                      QString *error);

} // namespace marquee::payments
