// SPDX-License-Identifier: AGPL-3.0-or-later
#include "routes.h"
#include "servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerWebhookRoutes(Router &router, ServerContext &context)
{
    // Public path: the provider has no bearer token; the HMAC signature over the raw body is the authentication.
    router.add(Method::Post, QStringLiteral("/webhooks/payment"), Access::anyone(), [&context](RequestContext &request) {
        const auto r = context.orderService.webhook(request.request.body(), request.header("X-Signature"));
        return HttpResponse::json(r.status, r.body);
    });
}

} // namespace marquee::http
