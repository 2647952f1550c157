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
        // Managers see the whole feed; anyone else (a kiosk, a till, a cashier) only what they sold themselves: the
        // feed names bookings, orders and seats, and one device has no business learning another's sales.
        const store::Principal &caller = request.caller();
        QJsonArray array;
        qint64 next = after;
        if (caller.role == Role::Manager || caller.role == Role::Admin) {
            const auto events = context.events.events(after, limit);
            if (!events)
                return HttpResponse::error(ApiError::unavailable(QStringLiteral("The event store is not answering; try again shortly.")));
            for (const store::FeedEvent &event : *events) {
                array.append(event.toJson());
                next = event.cursor;
            }
        } else {
            const auto page = context.events.eventsOf(caller.owner(), after, limit, qMax(limit * 10, 1000));
            if (!page)
                return HttpResponse::error(ApiError::unavailable(QStringLiteral("The event store is not answering; try again shortly.")));
            for (const store::FeedEvent &event : page->events)
                array.append(event.toJson());
            next = page->nextCursor;
        }
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("events"), array}, {QStringLiteral("next_cursor"), next}});
    });
}

} // namespace marquee::http
