// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The writes a kiosk queues while offline, each as one function that both its own route and
// POST /api/v1/sync/batch call, so a replayed action is applied exactly as the single request would be.

#include "core/jsonbody.h"
#include "holds/holdbatcher.h"
#include "http/httpresponse.h"
#include "store/authrepository.h"
#include "store/holdrepository.h"
#include "store/ticketrepository.h"
#include "waitingroom/waitingroomservice.h"

#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/** @brief A hold request, checked: POST /api/v1/shows/{show_id}/hold, or a batch's "hold" action. */
struct HoldRequest {
    qint64 showId = 0;
    QString idempotencyKey; ///< empty: nothing is deduplicated
    QStringList seatIds;
    QByteArray fingerprint; ///< what the request means (show and set of seats), for idempotency_key_reused
    QByteArray admissionToken;
};

/** @brief Read {seat_ids} for @p showId; the error for a malformed body or too many seats. */
Result<HoldRequest> parseHoldRequest(const ServerContext &context, qint64 showId, const QString &idempotencyKey, const QJsonObject &body,
                                     const QByteArray &admissionToken);

/**
 * @brief A hold before and after PostgreSQL decides. begin() asks the waiting room and the in-memory fast path
 * (which may answer at once); otherwise HoldRepository::placeHold decides — on its own connection's autocommit
 * for the single route, inside a batch's transaction for the batch — and finish() tells the waiting room and
 * the seat maps, once the decision is committed.
 */
class HoldAttempt
{
public:
    HoldAttempt(ServerContext &context, const store::Principal &caller, HoldRequest request);
    HoldAttempt(HoldAttempt &&) noexcept = default;
    HoldAttempt(const HoldAttempt &) = delete;

    /** @brief The answer when the database need not be asked (refused by the waiting room or from memory). */
    const std::optional<HttpResponse> &earlyAnswer() const { return m_early; }
    /** @brief Ask PostgreSQL (only without an early answer). */
    store::HoldDecision place();
    /**
     * @brief As place(), but queued in the HoldBatcher and decided in a batch's own transaction (never inside a
     * caller's one). @p done gets the outcome once committed, on a batch thread (on this one without batching).
     */
    void submitBatched(HoldBatcher::Done done);
    /**
     * @brief The response for @p outcome after its transaction ended: @p committed false means the batch
     * transaction holding it rolled back, so nothing of it stays and the caller may retry.
     */
    HttpResponse finish(const store::HoldDecision &outcome, bool committed);

private:
    ServerContext &m_context;
    store::Principal m_caller; ///< a copy: a batched attempt outlives the request that made it
    HoldRequest m_request;
    AdmissionPass m_admission;
    std::optional<HttpResponse> m_early;
    /** @brief Its Idempotency-Key was new to this process (HoldFastPath::rememberKey): a queued refusal may answer it. */
    bool m_keyFresh = false;
};

/** @brief Read a check-in upload {qr, nonce, scanned_at, show_id?} made by @p caller. */
Result<store::CheckinRequest> parseCheckinRequest(const QJsonObject &body, const store::Principal &caller);
/** @brief Record the scan (TicketRepository::checkIn, its own transaction) and answer as POST /api/v1/checkin. */
HttpResponse checkIn(ServerContext &context, const store::CheckinRequest &checkin);

/** @brief Read {payment_intent_id} of a confirm. */
Result<QString> parseConfirmIntent(const QJsonObject &body);
/** @brief Confirm @p orderId with @p paymentIntentId (OrderService::confirm) and answer as POST /api/v1/orders/{id}/confirm. */
HttpResponse confirmOrder(ServerContext &context, const store::Principal &caller, const QString &orderId, const QString &paymentIntentId);

/** @brief The answer when the database failed a hold; nothing was held. */
HttpResponse holdStoreFailure();

} // namespace marquee::http
