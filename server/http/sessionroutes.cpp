// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "routes.h"
#include "servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerSessionRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/sessions"), Access::anyone(), [&context](RequestContext &request) {
        const auto object = parseJsonObject(request.request.body());
        if (isError(object))
            return HttpResponse::error(std::get<ApiError>(object));
        const auto name = requiredString(std::get<QJsonObject>(object), QStringLiteral("name"), 100);
        if (isError(name))
            return HttpResponse::error(std::get<ApiError>(name));
        const auto password = requiredString(std::get<QJsonObject>(object), QStringLiteral("password"), 200);
        if (isError(password))
            return HttpResponse::error(std::get<ApiError>(password));
        const auto session = context.auth.createSession(std::get<QString>(name), std::get<QString>(password), context.config.sessionTtlSeconds);
        if (!session)
            return HttpResponse::error(ApiError{401, QStringLiteral("invalid_credentials"), QStringLiteral("The name or password is wrong."), {}});
        return HttpResponse::json(201, QJsonObject{{QStringLiteral("token"), session->token},
                                                   {QStringLiteral("role"), toString(session->role)},
                                                   {QStringLiteral("expires_at"), toIsoUtc(session->expiresAt)}});
    });
    router.add(Method::Delete, QStringLiteral("/api/v1/sessions/current"), Access::roles_(kStaffRoles), [&context](RequestContext &request) {
        context.auth.endSession(request.caller().id);
        return HttpResponse::noBody(204);
    });
}

} // namespace marquee::http
