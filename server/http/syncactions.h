// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The writes a kiosk queues while offline, each as one function that both its own route and
// POST /api/v1/sync/batch call, so a replayed action is applied exactly as the single request would be.

#include "core/jsonbody.h"
#include "holds/holdservice.h"
#include "http/httpresponse.h"
#include "store/authrepository.h"
#include "store/ticketrepository.h"

#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/** @brief Read {seat_ids} for @p showId; the error for a malformed body or too many seats. */
Result<HoldRequest> parseHoldRequest(const ServerContext &context, qint64 showId, const QString &idempotencyKey, const QJsonObject &body,
                                     const QByteArray &admissionToken);
/** @brief The response for a hold's outcome (HoldService): the waiting room's refusal, or the decision's wire. */
HttpResponse holdResponse(const HoldOutcome &outcome);

/** @brief Read a check-in upload {qr, nonce, scanned_at, show_id?} made by @p caller. */
Result<store::CheckinRequest> parseCheckinRequest(const QJsonObject &body, const store::Principal &caller);
/** @brief Record the scan (TicketRepository::checkIn, its own transaction) and answer as POST /api/v1/checkin. */
HttpResponse checkIn(ServerContext &context, const store::CheckinRequest &checkin);

/** @brief Read {payment_intent_id} of a confirm. */
Result<QString> parseConfirmIntent(const QJsonObject &body);
/** @brief Confirm @p orderId with @p paymentIntentId (OrderService::confirm) and answer as POST /api/v1/orders/{id}/confirm. */
HttpResponse confirmOrder(ServerContext &context, const store::Principal &caller, const QString &orderId, const QString &paymentIntentId);

} // namespace marquee::http
