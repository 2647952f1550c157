// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/customercontact.h"
#include "core/jsonbody.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse reply(const payments::ServiceReply &r)
{
    return HttpResponse::json(r.status, r.body);
}

// Cash at a till: tendered_minor (cash and split, optional: exact cash when absent) and cash_minor (split only,
// the part paid in cash, above 0; the card pays the rest). Whether they fit the order's amount is decided when
// the order is priced (OrderRepository::create).
Result<store::CashTender> cashTender(const QJsonObject &body, const QString &paymentMethod)
{
    store::CashTender tender;
    const bool cash = paymentMethod == QLatin1String("cash");
    const bool split = paymentMethod == QLatin1String("split");
    auto amount = [&body](const QString &field) -> Result<qint64> {
        const auto value = requiredInteger(body, field);
        if (isError(value))
            return value;
        if (std::get<qint64>(value) < 0 || std::get<qint64>(value) > 100'000'000'00)
            return ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("'%1' must be a non-negative integer of minor units.").arg(field));
        return value;
    };
    if (body.contains(QStringLiteral("tendered_minor"))) {
        if (!cash && !split)
            return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'tendered_minor' is for cash and split payments."));
        const auto tendered = amount(QStringLiteral("tendered_minor"));
        if (isError(tendered))
            return std::get<ApiError>(tendered);
        tender.tenderedMinor = std::get<qint64>(tendered);
    }
    if (split) {
        const auto part = amount(QStringLiteral("cash_minor"));
        if (isError(part))
            return std::get<ApiError>(part);
        if (std::get<qint64>(part) == 0)
            return ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("A split payment needs a cash part above 0 in 'cash_minor'."));
        tender.splitCashMinor = std::get<qint64>(part);
    } else if (body.contains(QStringLiteral("cash_minor"))) {
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'cash_minor' is for split payments."));
    }
    return tender;
}
// The customer's e-mail and phone (both optional): stored normalised so the till can find the booking by them.
Result<store::CustomerContact> customerContact(const QJsonObject &body)
{
    store::CustomerContact contact;
    const auto email = optionalString(body, QStringLiteral("customer_email"), 254);
    if (isError(email))
        return std::get<ApiError>(email);
    if (!std::get<QString>(email).isEmpty()) {
        const auto normalized = normalizedCustomerEmail(std::get<QString>(email));
        if (!normalized)
            return ApiError::badRequest(QStringLiteral("invalid_email"), QStringLiteral("'customer_email' is not an e-mail address."));
        contact.email = *normalized;
    }
    const auto phone = optionalString(body, QStringLiteral("customer_phone"), 40);
    if (isError(phone))
        return std::get<ApiError>(phone);
    if (!std::get<QString>(phone).isEmpty()) {
        const auto normalized = normalizedCustomerPhone(std::get<QString>(phone));
        if (!normalized)
            return ApiError::badRequest(QStringLiteral("invalid_phone"), QStringLiteral("'customer_phone' must be 6 to 20 digits (spaces, dashes, brackets and a leading + allowed)."));
        contact.phone = *normalized;
    }
    return contact;
}
} // namespace

Result<QString> parseConfirmIntent(const QJsonObject &body)
{
    return requiredString(body, QStringLiteral("payment_intent_id"), 128);
}

HttpResponse confirmOrder(ServerContext &context, const store::Principal &caller, const QString &orderId, const QString &paymentIntentId)
{
    return reply(context.orderService.confirm(caller, orderId, paymentIntentId));
}

void registerOrderRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/orders"), Access::roles_(kAllRoles), [&context](RequestContext &request, const QJsonObject &body) {
        const auto holdId = requiredString(body, QStringLiteral("hold_id"), 64);
        if (isError(holdId))
            return HttpResponse::error(std::get<ApiError>(holdId));
        const auto method = optionalString(body, QStringLiteral("payment_method"), 16);
        if (isError(method))
            return HttpResponse::error(std::get<ApiError>(method));
        const QString &paymentMethod = std::get<QString>(method);
        if (!paymentMethod.isEmpty() && paymentMethod != QLatin1String("card") && paymentMethod != QLatin1String("cash")
            && paymentMethod != QLatin1String("split"))
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_payment_method"),
                                                            QStringLiteral("payment_method must be 'card', 'cash' or 'split'.")));
        if (paymentMethod == QLatin1String("split") && request.caller().role == Role::Kiosk)
            return HttpResponse::error(ApiError{403, QStringLiteral("payment_method_not_allowed"),
                                                QStringLiteral("Kiosks take cards only; cash is for tills and cashiers."), {}});
        const auto tender = cashTender(body, paymentMethod);
        if (isError(tender))
            return HttpResponse::error(std::get<ApiError>(tender));
        const auto contact = customerContact(body);
        if (isError(contact))
            return HttpResponse::error(std::get<ApiError>(contact));
        return answerPaymentCall(context, [&context, caller = request.caller(), holdId = std::get<QString>(holdId),
                                           cash = paymentMethod == QLatin1String("cash"), tender = std::get<store::CashTender>(tender),
                                           contact = std::get<store::CustomerContact>(contact)] {
            return context.orderService.createOrder(caller, holdId, cash, tender, contact);
        });
    });

    router.add(Method::Get, QStringLiteral("/api/v1/orders/{order_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return reply(context.orderService.order(request.caller(), request.params.value(QStringLiteral("order_id"))));
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
            return context.orderService.confirm(caller, orderId, intentId);
        });
    });
}

} // namespace marquee::http
