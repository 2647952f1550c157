// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// Request bodies read into typed requests: every write a device or a person sends (hold, order, confirm,
// check-in, a sync batch of them) is checked here, before any service or the database sees it. Pure functions of
// the body and the caller, so that the fuzz targets (tests/fuzz/) reach exactly what the routes run.

#include "core/jsonbody.h"
#include "core/role.h"
#include "holds/holdrequest.h"
#include "store/orderrepository.h"
#include "store/principal.h"
#include "store/ticketrepository.h"

#include <QJsonObject>
#include <QStringList>
#include <variant>
#include <vector>

namespace marquee::http {

/** @brief Read {seat_ids} for @p showId; the error for a malformed body or more than @p maxSeatsPerHold seats. */
Result<HoldRequest> parseHoldRequest(int maxSeatsPerHold, qint64 showId, const QString &idempotencyKey, const QJsonObject &body,
                                     const QByteArray &admissionToken);

/** @brief Read a check-in upload {qr, nonce, scanned_at, show_id?} made by @p caller. */
Result<store::CheckinRequest> parseCheckinRequest(const QJsonObject &body, const store::Principal &caller);

/** @brief An order request, checked: POST /api/v1/orders. */
struct OrderRequest {
    QString holdId;
    bool cash = false; ///< payment_method "cash" (a split is card-driven with a cash part in the tender)
    store::CashTender tender;
    store::CustomerContact contact;
};

/** @brief Read {hold_id, payment_method?, tendered_minor?, cash_minor?, customer_email?, customer_phone?} from a caller of @p role. */
Result<OrderRequest> parseOrderRequest(const QJsonObject &body, Role role);

/** @brief Read {payment_intent_id} of a confirm. */
Result<QString> parseConfirmIntent(const QJsonObject &body);

/** @brief A batch's "confirm_order" action. */
struct ConfirmRequest {
    QString orderId;
    QString paymentIntentId;
};
/** @brief One action of POST /api/v1/sync/batch. */
using SyncAction = std::variant<HoldRequest, store::CheckinRequest, ConfirmRequest>;

/** @brief Actions one POST /api/v1/sync/batch may carry at most. */
constexpr int kMaxSyncBatchActions = 200;

/**
 * @brief Read a sync batch {actions: [{kind, idempotency_key, payload}]} of @p caller: every action is checked
 * before anything is applied, and the first malformed one refuses the whole batch (its error names the index).
 */
Result<std::vector<SyncAction>> parseSyncBatch(const QJsonObject &body, int maxSeatsPerHold, const store::Principal &caller);

} // namespace marquee::http
