// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
// Scanner clocks drift; a scan from further in the future than this is a broken clock, not a scan.
constexpr int kMaxClockSkewSeconds = 300;
} // namespace

Result<store::CheckinRequest> parseCheckinRequest(const QJsonObject &body, const store::Principal &caller)
{
    const auto qr = requiredString(body, QStringLiteral("qr"), 512);
    if (isError(qr))
        return std::get<ApiError>(qr);
    const auto nonce = requiredString(body, QStringLiteral("nonce"), 128);
    if (isError(nonce))
        return std::get<ApiError>(nonce);
    const auto scannedText = requiredString(body, QStringLiteral("scanned_at"), 64);
    if (isError(scannedText))
        return std::get<ApiError>(scannedText);
    const QDateTime scannedAt = fromIso(std::get<QString>(scannedText));
    if (!scannedAt.isValid())
        return ApiError::badRequest(QStringLiteral("invalid_scanned_at"),
                                    QStringLiteral("scanned_at must be an ISO 8601 timestamp with an offset, e.g. 2026-05-01T19:30:00Z."));
    if (scannedAt > QDateTime::currentDateTimeUtc().addSecs(kMaxClockSkewSeconds))
        return ApiError::badRequest(QStringLiteral("invalid_scanned_at"), QStringLiteral("scanned_at is in the future; check the scanner's clock."));
    store::CheckinRequest checkin;
    checkin.qr = std::get<QString>(qr);
    checkin.nonce = std::get<QString>(nonce);
    checkin.scannedAt = scannedAt.toUTC();
    checkin.device = caller.owner();
    if (caller.kind == store::Principal::Kind::Session)
        checkin.staff = caller;
    if (body.contains(QStringLiteral("show_id")) && !body.value(QStringLiteral("show_id")).isNull()) {
        const auto showId = requiredInteger(body, QStringLiteral("show_id"));
        if (isError(showId))
            return std::get<ApiError>(showId);
        if (std::get<qint64>(showId) <= 0)
            return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("show_id must be a positive integer."));
        checkin.doorShowId = std::get<qint64>(showId);
    }
    return checkin;
}

HttpResponse checkIn(ServerContext &context, const store::CheckinRequest &checkin)
{
    const store::CheckinOutcome outcome = context.tickets.checkIn(checkin);
    switch (outcome.status) {
    case store::CheckinOutcome::Status::Answered:
        return HttpResponse::json(200, outcome.body);
    case store::CheckinOutcome::Status::MalformedQr:
        return HttpResponse::error(
            ApiError::badRequest(QStringLiteral("malformed_qr"), QStringLiteral("This is not a Marquee ticket code (MQ1.<payload>.<signature>).")));
    case store::CheckinOutcome::Status::NonceReused:
        return HttpResponse::error(
            ApiError::unprocessable(QStringLiteral("nonce_reused"), QStringLiteral("This nonce was already used for a different scan.")));
    case store::CheckinOutcome::Status::StoreError:
        break;
    }
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The ticket database is not answering; keep the scan and upload it again.")));
}

void registerCheckinRoutes(Router &router, ServerContext &context)
{
    // Every role may admit: lobby kiosks and tills scan at the door, and so do staff with the app.
    router.addJson(Method::Post, QStringLiteral("/api/v1/checkin"), Access::roles_(kAllRoles), [&context](RequestContext &request, const QJsonObject &body) {
        const auto checkin = parseCheckinRequest(body, request.caller());
        if (isError(checkin))
            return HttpResponse::error(std::get<ApiError>(checkin));
        return checkIn(context, std::get<store::CheckinRequest>(checkin));
    });
}

} // namespace marquee::http
