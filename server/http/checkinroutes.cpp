// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/errorcatalogue.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

HttpResponse checkIn(ServerContext &context, const store::CheckinRequest &checkin)
{
    const store::CheckinOutcome outcome = context.tickets.checkIn(checkin);
    switch (outcome.status) {
    case store::CheckinOutcome::Status::Answered:
        return HttpResponse::json(200, outcome.body);
    case store::CheckinOutcome::Status::MalformedQr:
        return HttpResponse::error(apiError(ErrorCode::MalformedTicketCode));
    case store::CheckinOutcome::Status::NonceReused:
        return HttpResponse::error(apiError(ErrorCode::NonceReused));
    case store::CheckinOutcome::Status::StoreError:
        break;
    }
    return HttpResponse::error(apiError(ErrorCode::TicketStoreUnavailable));
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
