// SPDX-License-Identifier: AGPL-3.0-or-later
// The virtual waiting room of hot shows: join, status polls and the manager's switch.
#include "core/errorcatalogue.h"
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

#include <QDateTime>
#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
/// The longest a status request may wait for a change (`wait=`); below common proxy and client idle timeouts.
constexpr int kMaxLongPollSeconds = 30;

QString stateName(QueueStanding::State state)
{
    using State = QueueStanding::State;
    switch (state) {
    case State::BeforeOpening: return QStringLiteral("before_opening");
    case State::Queued: return QStringLiteral("queued");
    case State::Waiting: return QStringLiteral("waiting");
    case State::Admitted: return QStringLiteral("admitted");
    case State::Expired: return QStringLiteral("expired");
    case State::SoldOut: return QStringLiteral("sold_out");
    case State::Closed: return QStringLiteral("closed");
    }
    return {};
}

QJsonValue orNull(const std::optional<qint64> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

// The one place a waiting-room outcome (WaitingRoomService) becomes HTTP: each value with its status and body, each
// Refusal through the catalogue.
HttpResponse answer(const QueueStanding &standing)
{
    QJsonObject body{{QStringLiteral("state"), stateName(standing.state)},
                     {QStringLiteral("admitted"), standing.state == QueueStanding::State::Admitted},
                     {QStringLiteral("position"), orNull(standing.position)},
                     {QStringLiteral("eta_s"), orNull(standing.etaSeconds)},
                     {QStringLiteral("poll_after_ms"), standing.pollAfterMs}};
    if (standing.opensAt)
        body.insert(QStringLiteral("opens_at"), toIsoUtc(*standing.opensAt));
    if (standing.state == QueueStanding::State::Admitted) {
        body.insert(QStringLiteral("admission_token"), standing.admissionToken);
        body.insert(QStringLiteral("admission_expires_at"), toIsoUtc(standing.admissionExpiresAt));
    }
    return HttpResponse::json(200, body);
}
HttpResponse answer(const QueueJoin &joined)
{
    const QueueStanding &standing = joined.standing;
    return HttpResponse::json(200, QJsonObject{{QStringLiteral("queue_token"), joined.queueToken},
                                               {QStringLiteral("position"), orNull(standing.position)},
                                               {QStringLiteral("state"), stateName(standing.state)},
                                               {QStringLiteral("opens_at"), standing.opensAt ? toIsoUtc(*standing.opensAt) : QString()},
                                               {QStringLiteral("poll_after_ms"), standing.pollAfterMs}});
}
HttpResponse answer(const store::WaitingRoomRow &row)
{
    return HttpResponse::json(200, QJsonObject{{QStringLiteral("show_id"), row.showId},
                                               {QStringLiteral("enabled"), row.enabled},
                                               {QStringLiteral("automatic"), row.automatic},
                                               {QStringLiteral("opens_at"), toIsoUtc(row.opensAt)},
                                               {QStringLiteral("opened"), row.opened},
                                               {QStringLiteral("sold_out"), row.soldOut},
                                               {QStringLiteral("admission_ttl_s"), row.admissionTtlSeconds},
                                               {QStringLiteral("min_admit_per_s"), row.minAdmitPerSecond},
                                               {QStringLiteral("max_in_flight"), row.maxInFlight},
                                               {QStringLiteral("queued"), row.rankedUpto},
                                               {QStringLiteral("admitted"), row.admittedUpto}});
}
HttpResponse answer(const Refusal &refusal)
{
    return HttpResponse::error(apiError(refusal));
}
template<typename T> HttpResponse answer(const QueueOutcome<T> &outcome)
{
    return std::visit([](const auto &value) { return answer(value); }, outcome);
}

/** @brief A standing that may still change into an admission or a sell-out: worth waiting for. */
bool stillWaiting(const QueueOutcome<QueueStanding> &status)
{
    const auto *standing = std::get_if<QueueStanding>(&status);
    return standing && standing->stillWaiting();
}

HttpResponse invalidShow()
{
    return HttpResponse::error(apiError(ErrorCode::InvalidShowId));
}

// A number field within [min, max], or the default when absent.
template<typename T>
Result<T> boundedNumber(const QJsonObject &body, const QString &field, T fallback, double min, double max)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isDouble() || value.toDouble() < min || value.toDouble() > max
        || (std::is_integral_v<T> && value.toDouble() != double(qint64(value.toDouble()))))
        return ApiError::badRequest(QStringLiteral("invalid_value"),
                                    QStringLiteral("'%1' must be a number from %2 to %3.").arg(field).arg(min).arg(max));
    return T(value.toDouble());
}

Result<store::WaitingRoomSettings> parseSettings(const QJsonObject &body, QString *reason)
{
    static const QStringList known{QStringLiteral("enabled"),         QStringLiteral("opens_at"),      QStringLiteral("admission_ttl_s"),
                                   QStringLiteral("min_admit_per_s"), QStringLiteral("max_in_flight"), QStringLiteral("reason")};
    for (const QString &key : body.keys())
        if (!known.contains(key))
            return ApiError::badRequest(QStringLiteral("unknown_field"), QStringLiteral("Unknown field '%1'.").arg(key));
    store::WaitingRoomSettings settings;
    if (!body.value(QStringLiteral("enabled")).isBool())
        return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("'enabled' (true or false) is required."));
    settings.enabled = body.value(QStringLiteral("enabled")).toBool();
    const QJsonValue opensAt = body.value(QStringLiteral("opens_at"));
    if (!opensAt.isUndefined() && !opensAt.isNull()) {
        settings.opensAt = opensAt.isString() ? fromIso(opensAt.toString()) : QDateTime();
        if (!settings.opensAt.isValid())
            return ApiError::badRequest(QStringLiteral("invalid_time"),
                                        QStringLiteral("'opens_at' must be an ISO 8601 time with an offset, e.g. 2026-12-01T10:00:00Z."));
    }
    const auto ttl = boundedNumber<int>(body, QStringLiteral("admission_ttl_s"), settings.admissionTtlSeconds, 10, 86400);
    const auto rate = boundedNumber<double>(body, QStringLiteral("min_admit_per_s"), settings.minAdmitPerSecond, 0.01, 1e6);
    const auto inFlight = boundedNumber<int>(body, QStringLiteral("max_in_flight"), settings.maxInFlight, 1, 10'000'000);
    if (const ApiError *error = firstError(ttl, rate, inFlight))
        return *error;
    settings.admissionTtlSeconds = std::get<int>(ttl);
    settings.minAdmitPerSecond = std::get<double>(rate);
    settings.maxInFlight = std::get<int>(inFlight);
    const auto why = optionalString(body, QStringLiteral("reason"), 500);
    if (isError(why))
        return std::get<ApiError>(why);
    *reason = std::get<QString>(why);
    return settings;
}
} // namespace

void registerQueueRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Put, QStringLiteral("/api/v1/shows/{show_id}/waiting-room"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return invalidShow();
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        QString reason;
        const auto settings = parseSettings(std::get<QJsonObject>(parsed), &reason);
        if (isError(settings))
            return HttpResponse::error(std::get<ApiError>(settings));
        return answer(context.waitingRoom.configure(*showId, std::get<store::WaitingRoomSettings>(settings), request.caller(), reason));
    });

    router.add(Method::Post, QStringLiteral("/api/v1/queue/{show_id}/join"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return invalidShow();
        return answer(context.waitingRoom.join(*showId, request.caller()));
    });

    router.add(Method::Get, QStringLiteral("/api/v1/queue/{show_id}/status"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return invalidShow();
        const QUrlQuery query(request.request.url());
        const QString token = query.queryItemValue(QStringLiteral("token"), QUrl::FullyDecoded);
        if (token.isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_token"),
                                                            QStringLiteral("Pass the queue token from the join as ?token=.")));
        const QString waitText = query.queryItemValue(QStringLiteral("wait"));
        int waitSeconds = 0;
        if (query.hasQueryItem(QStringLiteral("wait"))) {
            bool ok = false;
            waitSeconds = waitText.toInt(&ok);
            if (!ok || waitSeconds < 0 || waitSeconds > kMaxLongPollSeconds)
                return HttpResponse::error(ApiError::badRequest(
                    QStringLiteral("invalid_wait"), QStringLiteral("'wait' must be a whole number of seconds from 0 to %1.").arg(kMaxLongPollSeconds)));
        }
        const auto now = context.waitingRoom.status(*showId, request.caller(), token);
        HttpResponse response = answer(now);
        if (waitSeconds == 0 || !stillWaiting(now))
            return response;
        // Long poll: answered as soon as the caller is admitted (or the show sells out, or the room closes), else
        // with the current status after `wait` seconds. Asked again only when the room changed.
        response.longPollUntilMs = QDateTime::currentMSecsSinceEpoch() + qint64(waitSeconds) * 1000;
        response.longPoll = [&context, showId = *showId, caller = request.caller(), token,
                             seen = context.waitingRoom.changes()](bool timedOut) mutable -> std::optional<HttpResponse> {
            const quint64 changes = context.waitingRoom.changes();
            if (!timedOut && changes == seen)
                return std::nullopt;
            seen = changes;
            const auto later = context.waitingRoom.status(showId, caller, token);
            if (!timedOut && stillWaiting(later))
                return std::nullopt;
            return answer(later);
        };
        return response;
    });
}

} // namespace marquee::http
