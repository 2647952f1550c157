// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/errorcatalogue.h"
#include "core/jsonbody.h"
#include "holds/holdanswer.h"
#include "holds/holdservice.h"
#include "http/orderanswers.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

#include <QElapsedTimer>
#include <QJsonObject>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse storeFailure()
{
    return HttpResponse::error(apiError(ErrorCode::HoldStoreUnavailable));
}
HttpResponse holdNotFound()
{
    return HttpResponse::error(apiError(ErrorCode::HoldNotFound));
}
QByteArray milliseconds(qint64 ns)
{
    return QByteArray::number(double(ns) / 1e6, 'f', 3);
}
/** @brief Server-Timing (milliseconds; ApiServer adds total): how a benchmark tells answers from memory apart. */
QByteArray serverTiming(const HoldBatcher::Timing &timing)
{
    if (timing.fromMemory)
        return "queue;dur=" + milliseconds(timing.queueNs) + ", memory;dur=0";
    return "queue;dur=" + milliseconds(timing.queueNs) + ", db;dur=" + milliseconds(timing.databaseNs) + ";desc=\"batch of "
         + QByteArray::number(timing.batchSize) + "\"";
}
} // namespace

HttpResponse holdResponse(const HoldOutcome &outcome)
{
    if (outcome.admissionRefusal)
        return HttpResponse::error(apiError(*outcome.admissionRefusal));
    const HoldAnswer answer = holdAnswer(outcome.decision);
    HttpResponse response = HttpResponse::rawJson(answer.status, answer.body);
    const std::optional<ErrorCode> refusal = outcome.decision.ok ? holdError(outcome.decision.verdict) : ErrorCode::HoldStoreUnavailable;
    if (refusal)
        response.withErrorHeaders(answer.status, QString::fromLatin1(errorEntry(*refusal).code));
    return response;
}

void registerHoldRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/shows/{show_id}/hold"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return HttpResponse::error(apiError(ErrorCode::InvalidShowId));
        const QByteArray key = request.header("Idempotency-Key");
        if (key.size() > 255)
            return HttpResponse::error(apiError(ErrorCode::IdempotencyKeyTooLong));
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        auto parsed = parseHoldRequest(context.config.maxSeatsPerHold, *showId, QString::fromUtf8(key), std::get<QJsonObject>(object), request.header("Admission-Token"));
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        QElapsedTimer clock;
        clock.start();
        auto started = context.holdService.begin(request.caller(), std::move(std::get<HoldRequest>(parsed)));
        if (const auto *early = std::get_if<HoldOutcome>(&started))
            return holdResponse(*early).withHeader("Server-Timing", "memory;dur=" + milliseconds(clock.nsecsElapsed()));
        // Group commit (HoldBatcher): the request waits in this show's queue, without holding this worker thread,
        // and is decided with other waiting holds of the show in one transaction — or refused from memory if an
        // earlier batch took its seats meanwhile. The answer is sent once that has committed.
        HttpResponse response;
        response.deferred = [&context, pending = std::get<HoldService::Pending>(std::move(started))](std::function<void(HttpResponse)> answer) {
            context.holdService.submit(pending, [answer = std::move(answer)](HoldOutcome outcome) {
                answer(std::move(holdResponse(outcome).withHeader("Server-Timing", serverTiming(outcome.timing))));
            });
        };
        return response;
    });

    router.add(Method::Get, QStringLiteral("/api/v1/holds/{hold_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        bool ok = true;
        const auto hold = context.holds.hold(request.caller().owner(), request.params.value(QStringLiteral("hold_id")), &ok);
        if (!ok)
            return storeFailure();
        return hold ? HttpResponse::json(200, *hold) : holdNotFound();
    });

    router.add(Method::Delete, QStringLiteral("/api/v1/holds/{hold_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto released = context.holds.releaseHold(request.caller().owner(), request.params.value(QStringLiteral("hold_id")));
        if (!released.ok)
            return storeFailure();
        if (!released.found)
            return holdNotFound();
        if (!released.liveOrderId.isEmpty()) {
            // Frozen by an order being paid: end the order first (cancelling its intent), never free the seats
            // under a charge that may still go through.
            return answerPaymentCall(context, [&context, holdId = request.params.value(QStringLiteral("hold_id")), orderId = released.liveOrderId] {
                return orderAnswer(context.orderService.abandonOrder(holdId, orderId));
            });
        }
        // The freed seats reached the seat maps and live subscribers from the release itself (store::SeatWrites).
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("hold_id"), request.params.value(QStringLiteral("hold_id"))},
                                                   {QStringLiteral("state"), QStringLiteral("released")}});
    });
}

} // namespace marquee::http
