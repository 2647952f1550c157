// SPDX-License-Identifier: AGPL-3.0-or-later
// The audit log, read page by page (manager and admin).
#include "core/isotime.h"
#include "core/textcheck.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/staffrepository.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerAuditRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/reports/audit"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query = request.request.query();
        store::AuditQuery filter;
        if (const auto error = parseTimeRange(query, &filter.from, &filter.to, 30))
            return HttpResponse::error(*error);
        filter.actor = query.queryItemValue(QStringLiteral("actor"));
        filter.action = query.queryItemValue(QStringLiteral("action"));
        if (query.hasQueryItem(QStringLiteral("limit"))) {
            bool ok = false;
            filter.limit = query.queryItemValue(QStringLiteral("limit")).toInt(&ok);
            if (!ok || filter.limit < 1 || filter.limit > 5000)
                return invalidRequest(QStringLiteral("invalid_query"), QStringLiteral("'limit' must be from 1 to 5000."));
        }
        if (query.hasQueryItem(QStringLiteral("before"))) {
            filter.before = canonicalId(query.queryItemValue(QStringLiteral("before"))).value_or(0);
            if (filter.before < 1)
                return invalidRequest(QStringLiteral("invalid_query"), QStringLiteral("'before' must be an audit_id (the 'next_before' of the previous page)."));
        }
        store::StaffRepository staff(context.database);
        if (filter.before > 0) {
            const auto exists = staff.auditEntryExists(filter.before);
            if (!exists)
                return bookingDatabaseUnavailable();
            if (!*exists)
                return invalidRequest(QStringLiteral("invalid_query"), QStringLiteral("'before' names no audit entry."));
        }
        const auto page = staff.audit(filter);
        if (!page)
            return bookingDatabaseUnavailable();
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("from"), toIsoUtc(filter.from)},
                                                   {QStringLiteral("to"), toIsoUtc(filter.to)},
                                                   {QStringLiteral("limit"), filter.limit},
                                                   {QStringLiteral("total"), page->total},
                                                   {QStringLiteral("truncated"), page->truncated},
                                                   {QStringLiteral("next_before"), page->truncated ? QJsonValue(page->nextBefore) : QJsonValue()},
                                                   {QStringLiteral("rows"), page->rows}});
    });
}

} // namespace marquee::http
