// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The writes a kiosk queues while offline, each as one function that both its own route and
// POST /api/v1/sync/batch call, so a replayed action is applied exactly as the single request would be.

#include "core/jsonbody.h"
#include "holds/holdservice.h"
#include "http/httpresponse.h"
#include "http/requestparsers.h"
#include "store/authrepository.h"
#include "store/ticketrepository.h"

#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/** @brief The response for a hold's outcome (HoldService): the waiting room's refusal, or the decision's wire. */
HttpResponse holdResponse(const HoldOutcome &outcome);

/** @brief Record the scan (TicketRepository::checkIn, its own transaction) and answer as POST /api/v1/checkin. */
HttpResponse checkIn(ServerContext &context, const store::CheckinRequest &checkin);

/** @brief Confirm @p orderId with @p paymentIntentId (OrderService::confirm) and answer as POST /api/v1/orders/{id}/confirm. */
HttpResponse confirmOrder(ServerContext &context, const store::Principal &caller, const QString &orderId, const QString &paymentIntentId);

} // namespace marquee::http
