// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "http/orderanswers.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

HttpResponse confirmOrder(ServerContext &context, const store::Principal &caller, const QString &orderId, const QString &paymentIntentId)
{
    return orderAnswer(context.orderService.confirm(caller, orderId, paymentIntentId));
}

void registerOrderRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/orders"), Access::roles_(kAllRoles), [&context](RequestContext &request, const QJsonObject &body) {
        auto parsed = parseOrderRequest(body, request.caller().role);
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        return answerPaymentCall(context, [&context, caller = request.caller(), order = std::get<OrderRequest>(std::move(parsed))] {
            return orderAnswer(context.orderService.createOrder(caller, order.holdId, order.cash, order.tender, order.contact));
        });
    });

    router.add(Method::Get, QStringLiteral("/api/v1/orders/{order_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return orderAnswer(context.orderService.order(request.caller(), request.params.value(QStringLiteral("order_id"))));
    });

    router.add(Method::Post, QStringLiteral("/api/v1/orders/{order_id}/confirm"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        const auto intentId = parseConfirmIntent(std::get<QJsonObject>(object));
        if (isError(intentId))
            return HttpResponse::error(std::get<ApiError>(intentId));
        return answerPaymentCall(context, [&context, caller = request.caller(), orderId = request.params.value(QStringLiteral("order_id")),
                                           intentId = std::get<QString>(intentId)] {
            return confirmOrder(context, caller, orderId, intentId);
        });
    });
}

} // namespace marquee::http
