// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/routes.h"
#include "runtime/servercontext.h"

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerEventRoutes(Router &router, ServerContext &context)
{
    // The outbox as a resumable feed: next_cursor is the position of the last event served (or `after` itself
    // when there is nothing new), so a client that stores it resumes exactly where it stopped.
    router.add(Method::Get, QStringLiteral("/api/v1/events"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        qint64 after = 0;
        int limit = 0;
        if (const auto error = parseCursorQuery(request.request, &after, &limit, 100, 1000))
            return HttpResponse::error(*error);
        const auto events = context.events.events(after, limit);
        if (!events)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The event store is not answering; try again shortly.")));
        QJsonArray array;
        qint64 next = after;
        for (const store::FeedEvent &event : *events) {
            array.append(event.toJson());
            next = event.cursor;
        }
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("events"), array}, {QStringLiteral("next_cursor"), next}});
    });
}

} // namespace marquee::http
