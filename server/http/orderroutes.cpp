// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "routes.h"
#include "servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse reply(const payments::ServiceReply &r)
{
    return HttpResponse::json(r.status, r.body);
}
} // namespace

void registerOrderRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/orders"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        const QJsonObject &body = std::get<QJsonObject>(object);
        const auto holdId = requiredString(body, QStringLiteral("hold_id"), 64);
        if (isError(holdId))
            return HttpResponse::error(std::get<ApiError>(holdId));
        const auto method = optionalString(body, QStringLiteral("payment_method"), 16);
        if (isError(method))
            return HttpResponse::error(std::get<ApiError>(method));
        const QString &paymentMethod = std::get<QString>(method);
        if (!paymentMethod.isEmpty() && paymentMethod != QLatin1String("card") && paymentMethod != QLatin1String("cash"))
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_payment_method"),
                                                            QStringLiteral("payment_method must be 'card' or 'cash'.")));
        return reply(context.orderService.createOrder(request.caller(), std::get<QString>(holdId), paymentMethod == QLatin1String("cash")));
    });

    router.add(Method::Get, QStringLiteral("/api/v1/orders/{order_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return reply(context.orderService.order(request.caller(), request.params.value(QStringLiteral("order_id"))));
    });

    router.add(Method::Post, QStringLiteral("/api/v1/orders/{order_id}/confirm"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        const auto intentId = requiredString(std::get<QJsonObject>(object), QStringLiteral("payment_intent_id"), 128);
        if (isError(intentId))
            return HttpResponse::error(std::get<ApiError>(intentId));
        return reply(context.orderService.confirm(request.caller(), request.params.value(QStringLiteral("order_id")), std::get<QString>(intentId)));
    });
}

} // namespace marquee::http
