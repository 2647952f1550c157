// SPDX-License-Identifier: AGPL-3.0-or-later
// The manager desk's reports: sales, occupancy, shifts, refunds, payments awaiting reconciliation (the audit report
// lives with the other manager routes).
#include "core/textcheck.h"
#include "core/isotime.h"
#include "core/jsonwriter.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/orderrepository.h"
#include "store/reportrepository.h"
#include "store/shiftrepository.h"

#include <QTimeZone>
#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The reporting database is not answering; try again shortly.")));
}

HttpResponse invalidQuery(const QString &message)
{
    return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_query"), message));
}

// A positive integer query parameter; 0 when absent, std::nullopt when present but not a positive integer.
std::optional<qint64> optionalId(const QUrlQuery &query, const QString &name)
{
    if (!query.hasQueryItem(name))
        return 0;
    return canonicalId(query.queryItemValue(name));
}

// The `limit` query parameter of a list report: 1..5000, @p fallback when absent; std::nullopt when malformed.
std::optional<int> listLimit(const QUrlQuery &query, int fallback)
{
    if (!query.hasQueryItem(QStringLiteral("limit")))
        return fallback;
    bool ok = false;
    const int limit = query.queryItemValue(QStringLiteral("limit")).toInt(&ok);
    return ok && limit >= 1 && limit <= 5000 ? std::optional(limit) : std::nullopt;
}

HttpResponse invalidLimit()
{
    return invalidQuery(QStringLiteral("'limit' must be from 1 to 5000."));
}
} // namespace

std::optional<ApiError> parseTimeRange(const QUrlQuery &query, QDateTime *from, QDateTime *to, int defaultDays)
{
    *to = QDateTime::currentDateTimeUtc().addSecs(1);
    *from = to->addDays(-defaultDays);
    for (const auto &[field, target] : {std::pair{QStringLiteral("from"), from}, std::pair{QStringLiteral("to"), to}}) {
        const QString text = query.queryItemValue(field, QUrl::FullyDecoded);
        if (text.isEmpty())
            continue;
        QDateTime time = fromIso(text);
        if (!time.isValid()) {
            const QDate date = QDate::fromString(text, QStringLiteral("yyyy-MM-dd"));
            // A date means its whole UTC day: "to=2026-11-30" includes the 30th.
            if (date.isValid())
                time = date.startOfDay(QTimeZone::utc()).addDays(field == QLatin1String("to") ? 1 : 0);
        }
        if (!time.isValid())
            return ApiError::badRequest(QStringLiteral("invalid_query"),
                                        QStringLiteral("'%1' must be a date (YYYY-MM-DD) or an ISO 8601 time with an offset.").arg(field));
        *target = time;
    }
    if (*from >= *to)
        return ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("'from' must be before 'to'."));
    if (from->daysTo(*to) > 3 * 366)
        return ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("A report covers at most three years."));
    return std::nullopt;
}

void registerReportRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/reports/sales"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        QDateTime from;
        QDateTime to;
        if (const auto error = parseTimeRange(query, &from, &to, 30))
            return HttpResponse::error(*error);
        const QString groupBy = query.hasQueryItem(QStringLiteral("group_by")) ? query.queryItemValue(QStringLiteral("group_by"))
                                                                               : QStringLiteral("day");
        const auto grouping = store::salesGroupingFromString(groupBy);
        if (!grouping)
            return invalidQuery(QStringLiteral("'group_by' must be one of day, show, movie, channel, device."));
        store::ReportRepository reports(context.database);
        const auto rows = reports.sales(from, to, *grouping);
        if (!rows)
            return storeFailure();
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("from"), toIsoUtc(from)},
                                                   {QStringLiteral("to"), toIsoUtc(to)},
                                                   {QStringLiteral("group_by"), groupBy},
                                                   {QStringLiteral("rows"), *rows}});
    });

    router.add(Method::Get, QStringLiteral("/api/v1/reports/occupancy"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        const auto showId = optionalId(query, QStringLiteral("show_id"));
        if (!showId || !*showId)
            return invalidQuery(QStringLiteral("'show_id' is required and must be a positive integer."));
        QByteArray json;
        switch (context.occupancyReports.report(*showId, &json)) {
        case OccupancyReports::Outcome::Error:
        case OccupancyReports::Outcome::NoRoom: // only warming asks for room
            return storeFailure();
        case OccupancyReports::Outcome::NotFound:
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        case OccupancyReports::Outcome::Ok:
            break;
        }
        return HttpResponse::rawJson(200, json);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/reports/shifts"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        store::ShiftQuery filter;
        if (const auto error = parseTimeRange(query, &filter.from, &filter.to, 30))
            return HttpResponse::error(*error);
        const auto deviceId = optionalId(query, QStringLiteral("device_id"));
        const auto shiftId = optionalId(query, QStringLiteral("shift_id"));
        if (!deviceId || !shiftId)
            return invalidQuery(QStringLiteral("'device_id' and 'shift_id' must be positive integers."));
        filter.deviceId = *deviceId;
        filter.shiftId = *shiftId;
        filter.cashier = query.queryItemValue(QStringLiteral("cashier"), QUrl::FullyDecoded);
        if (filter.cashier.size() > 100)
            return invalidQuery(QStringLiteral("'cashier' is a staff name of at most 100 characters."));
        const auto limit = listLimit(query, filter.limit);
        if (!limit)
            return invalidLimit();
        filter.limit = *limit;
        store::ShiftRepository shifts(context.database);
        const auto rows = shifts.list(filter);
        return rows ? HttpResponse::json(200, *rows) : storeFailure();
    });

    // Every refund asked for in the range: staff cancellations and overrides and the server's own
    // (a payment that landed after its hold was lost), newest first.
    router.add(Method::Get, QStringLiteral("/api/v1/reports/refunds"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        QDateTime from;
        QDateTime to;
        if (const auto error = parseTimeRange(query, &from, &to, 30))
            return HttpResponse::error(*error);
        const auto limit = listLimit(query, 1000);
        if (!limit)
            return invalidLimit();
        store::OrderRepository orders(context.database);
        bool truncated = false;
        const auto rows = orders.refunds(from, to, *limit, &truncated);
        if (!rows)
            return storeFailure();
        QByteArray body;
        body.reserve(rows->size() + 256);
        JsonWriter(&body)
            .beginObject()
            .member("from", toIsoUtc(from))
            .member("limit", *limit)
            .key("rows")
            .raw(*rows)
            .member("to", toIsoUtc(to))
            .member("truncated", truncated)
            .endObject();
        return HttpResponse::rawJson(200, std::move(body));
    });

    // Payments awaiting reconciliation: what the server's reconciler has not settled yet, for a person.
    router.add(Method::Get, QStringLiteral("/api/v1/reports/reconciliation"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const QUrlQuery query(request.request.url());
        const auto limit = listLimit(query, 500);
        if (!limit)
            return invalidLimit();
        store::OrderRepository orders(context.database);
        const auto rows = orders.awaitingReconciliation(context.config.payments.reconcileMinAgeSeconds, *limit);
        return rows ? HttpResponse::json(200, *rows) : storeFailure();
    });
}

} // namespace marquee::http
