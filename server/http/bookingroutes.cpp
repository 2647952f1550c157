// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/customercontact.h"
#include "core/jsonbody.h"
#include "http/orderanswers.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerBookingRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/bookings/{booking_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return orderAnswer(context.orderService.booking(request.caller(), request.params.value(QStringLiteral("booking_id")), QString()));
    });

    router.add(Method::Get, QStringLiteral("/api/v1/bookings"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const QString ref = QUrlQuery(request.request.url()).queryItemValue(QStringLiteral("ref"));
        if (ref.isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_ref"), QStringLiteral("Give the booking reference as ?ref=.")));
        return orderAnswer(context.orderService.booking(request.caller(), QString(), ref));
    });

    // The box office finds a customer's bookings by the phone or e-mail given with the order (staff only: a device
    // would learn other people's bookings).
    router.add(Method::Get, QStringLiteral("/api/v1/customers/bookings"), Access::roles_(kStaffRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        const QString phone = query.queryItemValue(QStringLiteral("phone"), QUrl::FullyDecoded);
        const QString email = query.queryItemValue(QStringLiteral("email"), QUrl::FullyDecoded);
        if (phone.isEmpty() == email.isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("Give exactly one of ?phone= or ?email=.")));
        const auto value = email.isEmpty() ? normalizedCustomerPhone(phone) : normalizedCustomerEmail(email);
        if (!value)
            return HttpResponse::error(email.isEmpty() ? ApiError::badRequest(QStringLiteral("invalid_phone"), QStringLiteral("'phone' must be 6 to 20 digits."))
                                                       : ApiError::badRequest(QStringLiteral("invalid_email"), QStringLiteral("'email' is not an e-mail address.")));
        const auto rows = context.bookings.bookingsByContact(email.isEmpty() ? store::BookingRepository::ContactField::Phone
                                                                               : store::BookingRepository::ContactField::Email,
                                                             *value, 50);
        if (!rows)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not answering; try again shortly.")));
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("bookings"), *rows}});
    });

    // Kiosks are refused by the access rule (403) before the handler runs.
    constexpr RoleMask mayCancel = roleBit(Role::Till) | kStaffRoles;
    router.add(Method::Post, QStringLiteral("/api/v1/bookings/{booking_id}/cancel"), Access::roles_(mayCancel).withReauthentication(), [&context](RequestContext &request) {
        // A cancellation refunds (and may override the policy): staff enter their password or PIN again first.
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
        const QJsonValue admitted = body.value(QStringLiteral("admitted_override"));
        if (!admitted.isUndefined() && !admitted.isNull() && !admitted.isBool())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_type"), QStringLiteral("The field 'admitted_override' must be true or false.")));
        // The refund is a provider call: off the worker thread.
        return answerPaymentCall(context, [&context, caller = request.caller(), bookingId = request.params.value(QStringLiteral("booking_id")),
                                           reason = std::get<QString>(reason), waiveFee = waive.toBool(false),
                                           admittedOverride = admitted.toBool(false)] {
            return orderAnswer(context.orderService.cancelBooking(caller, bookingId, reason, waiveFee, admittedOverride));
        });
    });
}

} // namespace marquee::http
