// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "routes.h"
#include "servercontext.h"

#include <QCryptographicHash>

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
        if (admission.refusal())
            return HttpResponse::error(*admission.refusal());
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
        if (outcome.status == 200)
            context.seatMaps.markChanged(*showId);
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
