// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "routes.h"
#include "servercontext.h"
#include "store/idempotencyrepository.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; nothing was held. Try again shortly.")));
}
HttpResponse holdNotFound()
{
    return HttpResponse::error(ApiError::notFound(QStringLiteral("hold_not_found"), QStringLiteral("There is no hold with this id for you.")));
}
/**
 * @brief Whether a hold's 200 is a hold placed by this very request rather than an Idempotency-Key replay of an
 * earlier one (whose seats may have been released or sold since): a fresh hold expires a full TTL from now.
 * Misjudging costs little either way: "replayed" only means a re-read of the show instead of an immediate delta;
 * a replay within ~2 s of its original judged fresh shows its seats held until the next re-read (≤ kLivePollMs).
 */
bool placedJustNow(const QByteArray &body, int ttlSeconds)
{
    constexpr qint64 kFreshWithinMs = 2000;
    const QString expiresAt = QJsonDocument::fromJson(body).object().value(QStringLiteral("expires_at")).toString();
    const QDateTime expires = QDateTime::fromString(expiresAt, Qt::ISODateWithMs);
    if (!expires.isValid())
        return false;
    const qint64 remainingMs = QDateTime::currentDateTimeUtc().msecsTo(expires);
    return remainingMs > qint64(ttlSeconds) * 1000 - kFreshWithinMs && remainingMs <= qint64(ttlSeconds) * 1000 + kFreshWithinMs;
}
} // namespace

void registerHoldRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/shows/{show_id}/hold"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer.")));
        const QByteArray key = request.header("Idempotency-Key");
        if (key.size() > 255)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_idempotency_key"),
                                                            QStringLiteral("The Idempotency-Key header is longer than 255 characters.")));
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        const auto seatIds = requiredStringArray(std::get<QJsonObject>(object), QStringLiteral("seat_ids"));
        if (isError(seatIds))
            return HttpResponse::error(std::get<ApiError>(seatIds));
        const QStringList &seats = std::get<QStringList>(seatIds);
        if (seats.size() > context.config.maxSeatsPerHold)
            return HttpResponse::error(ApiError::badRequest(
                QStringLiteral("too_many_seats"), QStringLiteral("One hold may take at most %1 seats.").arg(context.config.maxSeatsPerHold)));

        // The fingerprint covers what the request means (show and the set of seats), not its formatting.
        QStringList sorted = seats;
        sorted.sort();
        const QByteArray fingerprint = QCryptographicHash::hash(QByteArray::number(*showId) + '|' + sorted.join(QLatin1Char(',')).toUtf8(),
                                                                QCryptographicHash::Sha256)
                                           .toHex();
        // A hot show sells only to callers the waiting room admitted (one live hold per admission).
        AdmissionPass admission = context.waitingRoom.admitHold(*showId, request.caller(), request.header("Admission-Token"));
        if (admission.refusal()) {
            // A retry of the very request that placed the admission's live hold gets that request's answer, as
            // every retried write does (rule 3), not a refusal for the hold it made itself.
            if (admission.refusal()->code == QLatin1String("admission_hold_active") && !key.isEmpty()) {
                bool ok = false;
                const auto stored = store::IdempotencyRepository(context.database).storedReply(request.caller().owner(), QString::fromUtf8(key), &ok);
                if (!ok)
                    return storeFailure();
                if (stored && stored->requestHash == fingerprint)
                    return HttpResponse::rawJson(stored->status, stored->body);
                if (stored)
                    return HttpResponse::error(ApiError{422, QStringLiteral("idempotency_key_reused"),
                                                        QStringLiteral("This Idempotency-Key was used with a different request."), {}});
            }
            return HttpResponse::error(*admission.refusal());
        }
        // Obvious losers are refused from memory; everything else (and every yes) is PostgreSQL's decision.
        if (const auto answer = context.holdFastPath.decide(*showId, request.caller().owner(), QString::fromUtf8(key), fingerprint, seats)) {
            admission.finish(answer->status, answer->body);
            return HttpResponse::rawJson(answer->status, answer->body);
        }
        context.holdFastPath.rememberKey(request.caller().owner(), QString::fromUtf8(key));
        const store::HoldOutcome outcome = context.holds.placeHold(request.caller().owner(), QString::fromUtf8(key), fingerprint, *showId,
                                                                   seats, context.config.holdTtlSeconds);
        if (!outcome.ok)
            return storeFailure();
        admission.finish(outcome.status, outcome.body);
        if (outcome.status == 200) {
            if (placedJustNow(outcome.body, context.config.holdTtlSeconds))
                context.seatMaps.applyLocalWrite(*showId, seats, 'h');
            else
                context.seatMaps.markChanged(*showId); // a stored answer replayed: the seats may have moved since
        }
        return HttpResponse::rawJson(outcome.status, outcome.body);
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
        context.seatMaps.markChanged(released.showId);
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("hold_id"), request.params.value(QStringLiteral("hold_id"))},
                                                   {QStringLiteral("state"), QStringLiteral("released")}});
    });
}

} // namespace marquee::http
