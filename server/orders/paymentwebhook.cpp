// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/paymentwebhook.h"

#include "core/errorcatalogue.h"
#include "core/tokenhash.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace marquee::payments {

bool webhookSignatureValid(const QByteArray &secret, const QByteArray &rawBody, const QByteArray &signatureHeader)
{
    if (secret.isEmpty())
        return false;
    return constantTimeEquals("sha256=" + hmacSha256Hex(secret, rawBody), signatureHeader.trimmed());
}

Result<PaymentEvent> parsePaymentEvent(const QByteArray &rawBody)
{
    const QJsonDocument document = QJsonDocument::fromJson(rawBody);
    const QJsonObject event = document.object();
    PaymentEvent parsed{event.value(QStringLiteral("event_id")).toString(), event.value(QStringLiteral("type")).toString(),
                        event.value(QStringLiteral("payment_intent_id")).toString(), {}};
    parsed.refundId = event.value(QStringLiteral("refund_id")).toString(parsed.eventId);
    static const QStringList types = {QStringLiteral("payment_intent.succeeded"), QStringLiteral("payment_intent.failed"),
                                      QStringLiteral("charge.refunded")};
    if (!document.isObject() || parsed.eventId.isEmpty() || parsed.eventId.size() > 200 || parsed.intentId.isEmpty() || parsed.intentId.size() > 200)
        return apiError(ErrorCode::InvalidPaymentEvent);
    if (!types.contains(parsed.type))
        return apiError(ErrorCode::UnknownPaymentEvent);
    return parsed;
}

} // namespace marquee::payments
