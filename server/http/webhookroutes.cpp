// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/orderanswers.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerWebhookRoutes(Router &router, ServerContext &context)
{
    // Public path: the provider has no bearer token; the HMAC signature over the raw body is the authentication.
    router.add(Method::Post, QStringLiteral("/webhooks/payment"), Access::anyone(), [&context](RequestContext &request) {
        const QByteArray body = request.request.body();
        if (!payments::webhookSignatureValid(context.orderService.webhookSecret(), body, request.header("X-Signature")))
            return orderAnswer(Refusal{ErrorCode::InvalidSignature, {}, {}});
        auto event = payments::parsePaymentEvent(body);
        if (isError(event))
            return HttpResponse::error(std::get<ApiError>(event));
        // A webhook may query the provider or refund through it: off the worker thread.
        return answerPaymentCall(context, [&context, body, event = std::get<payments::PaymentEvent>(std::move(event))] {
            return orderAnswer(context.orderService.webhook(event, body));
        });
    });
}

} // namespace marquee::http
