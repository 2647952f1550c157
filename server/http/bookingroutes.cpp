// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "routes.h"
#include "servercontext.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerBookingRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/bookings/{booking_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto r = context.orderService.booking(request.caller(), request.params.value(QStringLiteral("booking_id")), QString());
        return HttpResponse::json(r.status, r.body);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/bookings"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const QString ref = QUrlQuery(request.request.url()).queryItemValue(QStringLiteral("ref"));
        if (ref.isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_ref"), QStringLiteral("Give the booking reference as ?ref=.")));
        const auto r = context.orderService.booking(request.caller(), QString(), ref);
        return HttpResponse::json(r.status, r.body);
    });

    // Kiosks are refused by the access rule (403) before the handler runs.
    constexpr RoleMask mayCancel = roleBit(Role::Till) | kStaffRoles;
    router.add(Method::Post, QStringLiteral("/api/v1/bookings/{booking_id}/cancel"), Access::roles_(mayCancel), [&context](RequestContext &request) {
        // A cancellation refunds (and may override the policy): staff enter their password or PIN again first.
        if (const auto refused = requireReauthentication(request))
            return *refused;
        QJsonObject body;
        if (!request.request.body().trimmed().isEmpty()) {
            const auto object = parseJsonObject(request.request.body());
            if (isError(object))
                return HttpResponse::error(std::get<ApiError>(object));
            body = std::get<QJsonObject>(object);
        }
        const auto reason = optionalString(body, QStringLiteral("reason"), 500);
        if (isError(reason))
            return HttpResponse::error(std::get<ApiError>(reason));
        const QJsonValue waive = body.value(QStringLiteral("waive_fee"));
        if (!waive.isUndefined() && !waive.isNull() && !waive.isBool())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_type"), QStringLiteral("The field 'waive_fee' must be true or false.")));
        const auto r = context.orderService.cancelBooking(request.caller(), request.params.value(QStringLiteral("booking_id")),
                                                          std::get<QString>(reason), waive.toBool(false));
        return HttpResponse::json(r.status, r.body);
    });
}

} // namespace marquee::http
