// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/jsonbody.h"

#include <QByteArray>
#include <QString>

namespace marquee::payments {

/**
 * @brief Whether @p signatureHeader (X-Signature, surrounding white space ignored) is `sha256=` and the hex
 * HMAC-SHA256 of @p rawBody under @p secret, compared in constant time. Never true for an empty secret.
 */
bool webhookSignatureValid(const QByteArray &secret, const QByteArray &rawBody, const QByteArray &signatureHeader);

/** @brief A card provider's event, as POST /webhooks/payment carries it (after its signature was checked). */
struct PaymentEvent {
    QString eventId;  ///< the provider's id of the event, 1..200 characters: a redelivery has the same one
    QString type;     ///< payment_intent.succeeded, payment_intent.failed or charge.refunded
    QString intentId; ///< the payment intent it is about, 1..200 characters
    QString refundId; ///< charge.refunded: the provider's refund_id; the event id when the event has none
};

/** @brief Read {event_id, type, payment_intent_id, refund_id?}; otherwise the catalogue's InvalidPaymentEvent or UnknownPaymentEvent. */
Result<PaymentEvent> parsePaymentEvent(const QByteArray &rawBody);

} // namespace marquee::payments
