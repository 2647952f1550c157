// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/migrations.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse ready()
{
    return HttpResponse::json(200, QJsonObject{{QStringLiteral("status"), QStringLiteral("ready")},
                                               {QStringLiteral("schema_version"), store::Migrations::latestVersion()}});
}
} // namespace

void registerHealthRoutes(Router &router, ServerContext &context)
{
    // Liveness: this process serves. Never touches the database, so that a silent database does not get a healthy
    // server restarted.
    router.add(Method::Get, QStringLiteral("/healthz"), Access::anyone().answeredWithoutDatabase(), [](RequestContext &) {
        static const QByteArray ok = "{\"status\":\"ok\"}";
        return HttpResponse::rawJson(200, ok);
    });
    // Readiness: from the watchdog's probe (at most a quarter of a second old, the schema a few seconds), never
    // waiting on the database itself, so that it answers at once also while the database is silent.
    router.add(Method::Get, QStringLiteral("/readyz"), Access::anyone().answeredWithoutDatabase(), [&context](RequestContext &) {
        const store::DatabaseWatchdog &watchdog = context.databaseWatchdog;
        if (watchdog.running()) {
            if (!watchdog.answering())
                return HttpResponse::error(ApiError::unavailable(
                    QStringLiteral("The database has not answered for %1 ms.").arg(watchdog.unansweredForMs())));
            if (!watchdog.schemaCurrent())
                return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database schema is not at this server's version.")));
            return ready();
        }
        if (!context.database.ping())
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not reachable.")));
        store::Migrations migrations(context.database);
        if (migrations.status() != store::Migrations::Status::Current)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database schema is not at this server's version.")));
        return ready();
    });
}

} // namespace marquee::http
