// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/migrations.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerHealthRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/healthz"), Access::anyone(), [](RequestContext &) {
        static const QByteArray ok = "{\"status\":\"ok\"}";
        return HttpResponse::rawJson(200, ok);
    });
    router.add(Method::Get, QStringLiteral("/readyz"), Access::anyone(), [&context](RequestContext &) {
        if (!context.database.ping())
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not reachable.")));
        store::Migrations migrations(context.database);
        if (migrations.status() != store::Migrations::Status::Current)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database schema is not at this server's version.")));
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("status"), QStringLiteral("ready")},
                                                   {QStringLiteral("schema_version"), store::Migrations::latestVersion()}});
    });
}

} // namespace marquee::http
