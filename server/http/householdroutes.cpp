// SPDX-License-Identifier: AGPL-3.0-or-later
// House holds (managers): seats kept off sale with a reason, listed and released.
#include "core/jsonbody.h"
#include "holds/holdanswer.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/householdrepository.h"

#include <QCryptographicHash>
#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not answering; nothing was changed. Try again shortly.")));
}
} // namespace

void registerHouseHoldRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/shows/{show_id}/house-holds"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer.")));
        const auto key = idempotencyKey(request);
        if (const ApiError *error = std::get_if<ApiError>(&key))
            return HttpResponse::error(*error);
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        const QJsonObject &body = std::get<QJsonObject>(parsed);
        const auto seatIds = requiredStringArray(body, QStringLiteral("seat_ids"));
        const auto reason = requiredString(body, QStringLiteral("reason"), 500);
        if (const ApiError *error = firstError(seatIds, reason))
            return HttpResponse::error(*error);
        const QStringList &seats = std::get<QStringList>(seatIds);
        if (seats.size() > 1000)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("too_many_seats"), QStringLiteral("One house hold takes at most 1000 seats.")));
        if (std::get<QString>(reason).trimmed().isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("A house hold needs a 'reason'.")));
        QStringList sorted = seats;
        sorted.sort();
        const QByteArray fingerprint = QCryptographicHash::hash(QByteArray::number(*showId) + '|' + sorted.join(QLatin1Char(',')).toUtf8() + '|'
                                                                    + std::get<QString>(reason).toUtf8(),
                                                                QCryptographicHash::Sha256)
                                           .toHex();
        store::HouseHoldRepository house(context.database);
        const store::HoldDecision outcome = house.place(request.caller(), std::get<QString>(key), fingerprint, *showId, seats, std::get<QString>(reason));
        if (!outcome.ok)
            return storeFailure();
        if (outcome.verdict == store::HoldVerdict::Granted)
            context.seatMaps.markChanged(*showId);
        const HoldAnswer answer = holdAnswer(outcome);
        return HttpResponse::rawJson(answer.status, answer.body);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/house-holds"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer.")));
        store::HouseHoldRepository house(context.database);
        const auto rows = house.list(*showId);
        return rows ? HttpResponse::json(200, *rows) : storeFailure();
    });

    router.add(Method::Delete, QStringLiteral("/api/v1/house-holds/{hold_id}"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QString reason = QUrlQuery(request.request.url()).queryItemValue(QStringLiteral("reason"), QUrl::FullyDecoded);
        if (reason.size() > 500)
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("'reason' has at most 500 characters.")));
        store::HouseHoldRepository house(context.database);
        const auto released = house.release(request.caller(), request.params.value(QStringLiteral("hold_id")), reason);
        if (!released.ok)
            return storeFailure();
        if (!released.found)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("hold_not_found"), QStringLiteral("There is no house hold with this id.")));
        // The freed seats reached the seat maps and live subscribers from the release itself (store::SeatWrites).
        return HttpResponse::noBody(204);
    });
}

} // namespace marquee::http
