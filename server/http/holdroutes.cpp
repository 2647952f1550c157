// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/errorcatalogue.h"
#include "core/jsonbody.h"
#include "holds/holdanswer.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

#include <QCryptographicHash>
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
HttpResponse answerFor(const store::HoldDecision &decision)
{
    const HoldAnswer answer = holdAnswer(decision);
    return HttpResponse::rawJson(answer.status, answer.body);
}
} // namespace

Result<HoldRequest> parseHoldRequest(const ServerContext &context, qint64 showId, const QString &idempotencyKey, const QJsonObject &body,
                                     const QByteArray &admissionToken)
{
    const auto seatIds = requiredStringArray(body, QStringLiteral("seat_ids"));
    if (isError(seatIds))
        return std::get<ApiError>(seatIds);
    const QStringList &seats = std::get<QStringList>(seatIds);
    if (seats.size() > context.config.maxSeatsPerHold)
        return apiError(ErrorCode::TooManySeats, {QString::number(context.config.maxSeatsPerHold)});
    // The fingerprint covers what the request means (show and the set of seats), not its formatting.
    QStringList sorted = seats;
    sorted.sort();
    const QByteArray fingerprint =
        QCryptographicHash::hash(QByteArray::number(showId) + '|' + sorted.join(QLatin1Char(',')).toUtf8(), QCryptographicHash::Sha256).toHex();
    return HoldRequest{showId, idempotencyKey, seats, fingerprint, admissionToken};
}

HttpResponse holdStoreFailure()
{
    return storeFailure();
}

HoldAttempt::HoldAttempt(ServerContext &context, const store::Principal &caller, HoldRequest request)
    : m_context(context)
    , m_caller(caller)
    , m_request(std::move(request))
    , m_admission(context.waitingRoom.admitHold(m_request.showId, caller, m_request.admissionToken))
{
    const QString &key = m_request.idempotencyKey;
    // A hot show sells only to callers the waiting room admitted (one live hold per admission).
    if (m_admission.refusal()) {
        // A retry of the very request that placed the admission's live hold gets that request's answer, as
        // every retried write does (rule 3), not a refusal for the hold it made itself.
        if (m_admission.refusal()->code == QLatin1String("admission_hold_active") && !key.isEmpty()) {
            bool ok = false;
            const auto stored = context.holds.storedDecision(caller.owner(), key, m_request.fingerprint, &ok);
            if (!ok)
                m_early = storeFailure();
            else if (stored)
                m_early = answerFor(*stored);
        }
        if (!m_early)
            m_early = HttpResponse::error(*m_admission.refusal());
        return;
    }
    // Obvious losers are refused from memory; everything else (and every yes) is PostgreSQL's decision.
    if (const auto answer = context.holdFastPath.decide(m_request.showId, caller.owner(), key, m_request.fingerprint, m_request.seatIds)) {
        m_admission.finish({});
        m_early = answerFor(*answer);
        return;
    }
    auto remembered = context.holdFastPath.rememberKey(caller.owner(), key, m_request.fingerprint);
    if (remembered.answer) {
        m_admission.finish({});
        m_early = answerFor(*remembered.answer);
        return;
    }
    m_keyFresh = remembered.fresh;
}

store::HoldDecision HoldAttempt::place()
{
    return m_context.holds.placeHold(m_caller.owner(), m_request.idempotencyKey, m_request.fingerprint, m_request.showId, m_request.seatIds,
                                     m_context.config.holdTtlSeconds);
}

void HoldAttempt::submitBatched(HoldBatcher::Done done)
{
    m_context.holdBatcher.submit(m_request.showId, {m_caller.owner(), m_request.idempotencyKey, m_request.fingerprint, m_request.seatIds, m_keyFresh},
                                 m_context.config.holdTtlSeconds, std::move(done));
}

HttpResponse HoldAttempt::finish(const store::HoldDecision &outcome, bool committed)
{
    m_context.holdFastPath.keyDone(m_caller.owner(), m_request.idempotencyKey);
    if (!outcome.ok || !committed) {
        m_admission.finish({});
        // The seat map may already show seats of a hold its transaction then lost: read the show again.
        if (outcome.ok && outcome.verdict == store::HoldVerdict::Granted)
            m_context.seatMaps.markChanged(m_request.showId);
        return storeFailure();
    }
    m_admission.finish(outcome.holdId);
    if (outcome.verdict == store::HoldVerdict::Granted) {
        if (!outcome.replayed)
            m_context.seatMaps.applyLocalWrite(m_request.showId, outcome.seatIds, 'h');
        else
            m_context.seatMaps.markChanged(m_request.showId); // a stored grant replayed: the seats may have moved since
    } else if (outcome.verdict == store::HoldVerdict::StoredHttpAnswer && outcome.storedStatus == 200) {
        m_context.seatMaps.markChanged(m_request.showId);
    }
    return answerFor(outcome);
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
        auto parsed = parseHoldRequest(context, *showId, QString::fromUtf8(key), std::get<QJsonObject>(object), request.header("Admission-Token"));
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        QElapsedTimer clock;
        clock.start();
        auto attempt = std::make_shared<HoldAttempt>(context, request.caller(), std::move(std::get<HoldRequest>(parsed)));
        if (attempt->earlyAnswer()) {
            // Server-Timing (milliseconds; ApiServer adds total): how a benchmark tells answers from memory apart.
            return HttpResponse(*attempt->earlyAnswer()).withHeader("Server-Timing", "memory;dur=" + milliseconds(clock.nsecsElapsed()));
        }
        // Admission and group commit (HoldBatcher): the request waits in this show's queue, without holding this
        // worker thread, and is decided with other waiting holds of the show in one transaction — or refused from
        // memory if an earlier batch took its seats meanwhile. The answer is sent once that has committed.
        HttpResponse response;
        response.deferred = [attempt](std::function<void(HttpResponse)> answer) {
            attempt->submitBatched([attempt, answer = std::move(answer)](store::HoldDecision outcome, const HoldBatcher::Timing &timing) {
                HttpResponse decided = attempt->finish(outcome, true);
                answer(std::move(decided.withHeader("Server-Timing", timing.fromMemory ? "queue;dur=" + milliseconds(timing.queueNs) + ", memory;dur=0"
                                                                                       : "queue;dur=" + milliseconds(timing.queueNs) + ", db;dur="
                                                                                             + milliseconds(timing.databaseNs) + ";desc=\"batch of "
                                                                                             + QByteArray::number(timing.batchSize) + "\"")));
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
                return context.orderService.abandonOrder(holdId, orderId);
            });
        }
        // The freed seats reached the seat maps and live subscribers from the release itself (store::SeatWrites).
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("hold_id"), request.params.value(QStringLiteral("hold_id"))},
                                                   {QStringLiteral("state"), QStringLiteral("released")}});
    });
}

} // namespace marquee::http
