// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerWebhookRoutes(Router &router, ServerContext &context)
{
    // Public path: the provider has no bearer token; the HMAC signature over the raw body is the authentication.
    router.add(Method::Post, QStringLiteral("/webhooks/payment"), Access::anyone(), [&context](RequestContext &request) {
        // A webhook may query the provider or refund through it: off the worker thread.
        return answerPaymentCall(context, [&context, body = request.request.body(), signature = request.header("X-Signature")] {
            return context.orderService.webhook(body, signature);
        });
    });
}

} // namespace marquee::http
