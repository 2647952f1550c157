// SPDX-License-Identifier: AGPL-3.0-or-later
// Manager and fleet routes: creating and editing shows, device heartbeats and the fleet, the audit report.
#include "core/textcheck.h"
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "core/money.h"
#include "routes.h"
#include "servercontext.h"
#include "store/showrepository.h"
#include "store/staffrepository.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
constexpr int kOnlineWindowSeconds = 120;
/** @brief Problem items a heartbeat's reconciliation summary lists at most (the kiosk keeps the full report). */
constexpr int kMaxReconciliationProblems = 50;

ApiError invalidSummary(const QString &message)
{
    return ApiError::badRequest(QStringLiteral("invalid_reconciliation"), QStringLiteral("'reconciliation': %1").arg(message));
}

// Counts {name: integer >= 0} of a summary section, exactly the names given.
Result<QJsonObject> summaryCounts(const QJsonObject &summary, const QString &section, const QStringList &names)
{
    if (!summary.value(section).isObject())
        return invalidSummary(QStringLiteral("'%1' must be an object of counts.").arg(section));
    const QJsonObject counts = summary.value(section).toObject();
    QJsonObject out;
    for (const QString &name : names) {
        const auto count = requiredInteger(counts, name);
        if (isError(count) || std::get<qint64>(count) < 0 || std::get<qint64>(count) > 10000000)
            return invalidSummary(QStringLiteral("'%1.%2' must be a count from 0.").arg(section, name));
        out.insert(name, std::get<qint64>(count));
    }
    return out;
}

/**
 * @brief A kiosk's reconciliation summary, checked and rebuilt field by field (nothing else is stored):
 * {finished_at, complete, tickets: {confirmed, voided, unknown}, payments: {confirmed, refund_due, pending, unknown},
 * problems: [{kind: ticket|payment, id, booking_ref, state, reason}] (at most kMaxReconciliationProblems), problems_total}.
 */
Result<QJsonObject> parseReconciliationSummary(const QJsonValue &value)
{
    if (!value.isObject())
        return invalidSummary(QStringLiteral("must be an object."));
    const QJsonObject summary = value.toObject();
    const auto finishedText = requiredString(summary, QStringLiteral("finished_at"), 64);
    const QDateTime finishedAt = isError(finishedText) ? QDateTime() : fromIso(std::get<QString>(finishedText));
    if (!finishedAt.isValid())
        return invalidSummary(QStringLiteral("'finished_at' must be an ISO 8601 time with an offset."));
    if (!summary.value(QStringLiteral("complete")).isBool())
        return invalidSummary(QStringLiteral("'complete' must be true or false."));
    const auto tickets = summaryCounts(summary, QStringLiteral("tickets"), {QStringLiteral("confirmed"), QStringLiteral("voided"), QStringLiteral("unknown")});
    if (isError(tickets))
        return tickets;
    const auto payments = summaryCounts(summary, QStringLiteral("payments"),
                                        {QStringLiteral("confirmed"), QStringLiteral("refund_due"), QStringLiteral("pending"), QStringLiteral("unknown")});
    if (isError(payments))
        return payments;
    if (!summary.value(QStringLiteral("problems")).isArray())
        return invalidSummary(QStringLiteral("'problems' must be an array."));
    const QJsonArray problems = summary.value(QStringLiteral("problems")).toArray();
    if (problems.size() > kMaxReconciliationProblems)
        return invalidSummary(QStringLiteral("at most %1 problems are sent; count the rest in 'problems_total'.").arg(kMaxReconciliationProblems));
    static const QStringList kinds = {QStringLiteral("ticket"), QStringLiteral("payment")};
    static const QStringList states = {QStringLiteral("voided"), QStringLiteral("unknown"), QStringLiteral("refund_due"), QStringLiteral("pending")};
    QJsonArray checked;
    for (const QJsonValue &item : problems) {
        const QJsonObject problem = item.toObject();
        const auto kind = requiredString(problem, QStringLiteral("kind"), 16);
        const auto id = requiredString(problem, QStringLiteral("id"), 64);
        const auto bookingRef = optionalString(problem, QStringLiteral("booking_ref"), 32);
        const auto state = requiredString(problem, QStringLiteral("state"), 16);
        const auto reason = optionalString(problem, QStringLiteral("reason"), 300);
        if (!item.isObject() || isError(kind) || isError(id) || isError(bookingRef) || isError(state) || isError(reason)
            || !kinds.contains(std::get<QString>(kind)) || !states.contains(std::get<QString>(state)))
            return invalidSummary(QStringLiteral("each problem is {kind: ticket|payment, id, booking_ref, state: %1, reason}.").arg(states.join(QLatin1Char('|'))));
        checked.append(QJsonObject{{QStringLiteral("kind"), std::get<QString>(kind)},
                                   {QStringLiteral("id"), std::get<QString>(id)},
                                   {QStringLiteral("booking_ref"), std::get<QString>(bookingRef)},
                                   {QStringLiteral("state"), std::get<QString>(state)},
                                   {QStringLiteral("reason"), std::get<QString>(reason)}});
    }
    const auto total = requiredInteger(summary, QStringLiteral("problems_total"));
    if (isError(total) || std::get<qint64>(total) < checked.size() || std::get<qint64>(total) > 10000000)
        return invalidSummary(QStringLiteral("'problems_total' must count every problem, at least those listed."));
    return QJsonObject{{QStringLiteral("finished_at"), toIsoUtc(finishedAt)},
                       {QStringLiteral("complete"), summary.value(QStringLiteral("complete")).toBool()},
                       {QStringLiteral("tickets"), std::get<QJsonObject>(tickets)},
                       {QStringLiteral("payments"), std::get<QJsonObject>(payments)},
                       {QStringLiteral("problems"), checked},
                       {QStringLiteral("problems_total"), std::get<qint64>(total)}};
}

HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; nothing was changed.")));
}

HttpResponse invalid(const QString &code, const QString &message)
{
    return HttpResponse::error(ApiError::badRequest(code, message));
}

// An optional ISO 8601 timestamp with an offset; an error for a present but unreadable value.
Result<std::optional<QDateTime>> optionalTime(const QJsonObject &body, const QString &field)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::optional<QDateTime>();
    const QDateTime time = value.isString() ? fromIso(value.toString()) : QDateTime();
    if (!time.isValid())
        return ApiError::badRequest(QStringLiteral("invalid_time"),
                                    QStringLiteral("'%1' must be an ISO 8601 time with an offset, e.g. 2026-12-01T19:45:00Z.").arg(field));
    return std::optional<QDateTime>(time);
}

// {tier: amount_minor}: non-empty tier names, non-negative integer amounts.
Result<QMap<QString, qint64>> priceTiers(const QJsonObject &body, bool required)
{
    const QJsonValue value = body.value(QStringLiteral("price_tiers"));
    QMap<QString, qint64> prices;
    if (value.isUndefined() || value.isNull()) {
        if (required)
            return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field 'price_tiers' is required."));
        return prices;
    }
    if (!value.isObject() || value.toObject().isEmpty())
        return ApiError::badRequest(QStringLiteral("invalid_type"),
                                    QStringLiteral("'price_tiers' must be an object of tier → amount in minor units."));
    const QJsonObject object = value.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const auto amount = requiredInteger(object, it.key());
        if (isError(amount) || std::get<qint64>(amount) < 0 || it.key().isEmpty() || it.key().size() > 40)
            return ApiError::badRequest(QStringLiteral("invalid_price"),
                                        QStringLiteral("The price of tier '%1' must be a non-negative integer of minor units.").arg(it.key()));
        prices.insert(it.key(), std::get<qint64>(amount));
    }
    return prices;
}
} // namespace

void registerManagerRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Post, QStringLiteral("/api/v1/shows"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        const QJsonObject &body = std::get<QJsonObject>(parsed);
        const auto movieId = requiredInteger(body, QStringLiteral("movie_id"));
        const auto screenId = requiredInteger(body, QStringLiteral("screen_id"));
        const auto currency = requiredString(body, QStringLiteral("currency"), 3);
        const auto startsAt = optionalTime(body, QStringLiteral("starts_at"));
        const auto salesOpenAt = optionalTime(body, QStringLiteral("sales_open_at"));
        const auto salesCloseAt = optionalTime(body, QStringLiteral("sales_close_at"));
        const auto prices = priceTiers(body, true);
        if (const ApiError *error = firstError(movieId, screenId, currency, startsAt, salesOpenAt, salesCloseAt, prices))
            return HttpResponse::error(*error);
        if (!std::get<std::optional<QDateTime>>(startsAt))
            return invalid(QStringLiteral("missing_field"), QStringLiteral("The field 'starts_at' is required."));
        if (!isCurrencyCode(std::get<QString>(currency)))
            return invalid(QStringLiteral("invalid_currency"), QStringLiteral("'currency' must be an ISO 4217 code such as EUR or INR."));

        store::NewShow show;
        show.movieId = std::get<qint64>(movieId);
        show.screenId = std::get<qint64>(screenId);
        show.startsAt = *std::get<std::optional<QDateTime>>(startsAt);
        show.salesOpenAt = std::get<std::optional<QDateTime>>(salesOpenAt).value_or(QDateTime::currentDateTimeUtc());
        show.salesCloseAt = std::get<std::optional<QDateTime>>(salesCloseAt).value_or(show.startsAt);
        show.currency = std::get<QString>(currency);
        show.prices = std::get<QMap<QString, qint64>>(prices);
        if (show.startsAt <= QDateTime::currentDateTimeUtc())
            return HttpResponse::error(ApiError::unprocessable(QStringLiteral("starts_in_past"), QStringLiteral("A new show must start in the future.")));
        if (!(show.salesOpenAt <= show.salesCloseAt && show.salesCloseAt <= show.startsAt))
            return invalid(QStringLiteral("invalid_sales_window"), QStringLiteral("Sales must open before they close, and close no later than the start."));

        store::ShowRepository shows(context.database);
        bool exists = false;
        if (!shows.movieExists(show.movieId, &exists))
            return storeFailure();
        if (!exists)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("movie_not_found"), QStringLiteral("There is no movie with this id.")));
        bool ok = false;
        const auto tiers = shows.screenTiers(show.screenId, &ok);
        if (!ok)
            return storeFailure();
        if (!tiers)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("screen_not_found"), QStringLiteral("There is no screen with this id.")));
        // Every seat must have a price: a tier without one would sell seats for nothing.
        for (const QString &tier : *tiers) {
            if (!show.prices.contains(tier))
                return invalid(QStringLiteral("missing_price"), QStringLiteral("The screen has seats of tier '%1', which needs a price.").arg(tier));
        }
        const auto showId = shows.addShow(show, nullptr,
                                          store::StaffRepository::auditShow(request.caller(), {QStringLiteral("show.create"), {}, {}, body}));
        if (!showId)
            return storeFailure();
        const auto created = context.catalog.show(*showId);
        return created ? HttpResponse::json(201, *created) : storeFailure();
    });

    router.add(Method::Patch, QStringLiteral("/api/v1/shows/{show_id}"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return invalid(QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer."));
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        const QJsonObject &body = std::get<QJsonObject>(parsed);
        static const QStringList editable = {QStringLiteral("starts_at"), QStringLiteral("sales_open_at"), QStringLiteral("sales_close_at"),
                                             QStringLiteral("price_tiers"), QStringLiteral("waiting_room"), QStringLiteral("reason")};
        for (const QString &key : body.keys()) {
            if (!editable.contains(key))
                return invalid(QStringLiteral("not_editable"),
                               QStringLiteral("'%1' cannot be changed; editable fields are %2.").arg(key, editable.join(QStringLiteral(", "))));
        }
        store::ShowRepository::ShowChanges changes;
        const auto startsAt = optionalTime(body, QStringLiteral("starts_at"));
        const auto salesOpenAt = optionalTime(body, QStringLiteral("sales_open_at"));
        const auto salesCloseAt = optionalTime(body, QStringLiteral("sales_close_at"));
        const auto prices = priceTiers(body, false);
        const auto reason = optionalString(body, QStringLiteral("reason"), 500);
        if (const ApiError *error = firstError(startsAt, salesOpenAt, salesCloseAt, prices, reason))
            return HttpResponse::error(*error);
        if (body.contains(QStringLiteral("waiting_room"))) {
            if (!body.value(QStringLiteral("waiting_room")).isBool())
                return invalid(QStringLiteral("invalid_type"), QStringLiteral("'waiting_room' must be true or false."));
            changes.waitingRoom = body.value(QStringLiteral("waiting_room")).toBool();
        }
        changes.startsAt = std::get<std::optional<QDateTime>>(startsAt);
        changes.salesOpenAt = std::get<std::optional<QDateTime>>(salesOpenAt);
        changes.salesCloseAt = std::get<std::optional<QDateTime>>(salesCloseAt);
        changes.prices = std::get<QMap<QString, qint64>>(prices);

        const auto before = context.catalog.show(*showId);
        if (!before)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        if (fromIso(before->value(QStringLiteral("starts_at")).toString()) <= QDateTime::currentDateTimeUtc())
            return HttpResponse::error(ApiError::unprocessable(QStringLiteral("show_started"), QStringLiteral("A show that has started cannot be edited.")));

        store::ShowRepository shows(context.database);
        QString why;
        const QJsonObject details{{QStringLiteral("before"), *before}, {QStringLiteral("change"), body}};
        const auto result = shows.updateShow(
            *showId, changes, &why,
            store::StaffRepository::auditShow(request.caller(), {QStringLiteral("show.update"), {}, std::get<QString>(reason), details}));
        switch (result) {
        case store::ShowRepository::UpdateResult::NotFound:
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        case store::ShowRepository::UpdateResult::Invalid:
            return invalid(QStringLiteral("invalid_sales_window"), why);
        case store::ShowRepository::UpdateResult::Error:
            return storeFailure();
        case store::ShowRepository::UpdateResult::Updated:
            break;
        }
        // Prices live in the cached seat-map layout; seats themselves are never touched by an edit.
        context.seatMaps.invalidate(*showId);
        const auto after = context.catalog.show(*showId);
        return after ? HttpResponse::json(200, *after) : storeFailure();
    });

    router.add(Method::Post, QStringLiteral("/api/v1/devices/heartbeat"), Access::roles_(roleBit(Role::Kiosk) | roleBit(Role::Till)),
               [&context](RequestContext &request) {
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        const QJsonObject &body = std::get<QJsonObject>(parsed);
        const auto queueLength = requiredInteger(body, QStringLiteral("queue_length"));
        const auto printerState = requiredString(body, QStringLiteral("printer_state"), 40);
        const auto appVersion = requiredString(body, QStringLiteral("app_version"), 40);
        if (const ApiError *error = firstError(queueLength, printerState, appVersion))
            return HttpResponse::error(*error);
        if (std::get<qint64>(queueLength) < 0 || std::get<qint64>(queueLength) > 10000000)
            return invalid(QStringLiteral("invalid_value"), QStringLiteral("'queue_length' must be a count from 0."));
        static const QStringList printerStates = {QStringLiteral("ok"), QStringLiteral("no_paper"), QStringLiteral("paper_low"),
                                                  QStringLiteral("offline"), QStringLiteral("error"), QStringLiteral("none")};
        if (!printerStates.contains(std::get<QString>(printerState)))
            return invalid(QStringLiteral("invalid_value"),
                           QStringLiteral("'printer_state' must be one of %1.").arg(printerStates.join(QStringLiteral(", "))));
        store::Heartbeat heartbeat{int(std::get<qint64>(queueLength)), std::get<QString>(printerState), std::get<QString>(appVersion), {}};
        if (body.contains(QStringLiteral("reconciliation")) && !body.value(QStringLiteral("reconciliation")).isNull()) {
            const auto summary = parseReconciliationSummary(body.value(QStringLiteral("reconciliation")));
            if (isError(summary))
                return HttpResponse::error(std::get<ApiError>(summary));
            heartbeat.reconciliation = std::get<QJsonObject>(summary);
        }
        store::StaffRepository staff(context.database);
        if (!staff.recordHeartbeat(request.caller().id, heartbeat))
            return storeFailure();
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("server_time"), toIsoUtc(QDateTime::currentDateTimeUtc())}});
    });

    router.add(Method::Get, QStringLiteral("/api/v1/devices"), Access::roles_(kManagerRoles), [&context](RequestContext &) {
        store::StaffRepository staff(context.database);
        const auto devices = staff.devices(kOnlineWindowSeconds);
        return devices ? HttpResponse::json(200, *devices) : storeFailure();
    });

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
                return invalid(QStringLiteral("invalid_query"), QStringLiteral("'limit' must be from 1 to 5000."));
        }
        if (query.hasQueryItem(QStringLiteral("before"))) {
            filter.before = canonicalId(query.queryItemValue(QStringLiteral("before"))).value_or(0);
            if (filter.before < 1)
                return invalid(QStringLiteral("invalid_query"), QStringLiteral("'before' must be an audit_id (the 'next_before' of the previous page)."));
        }
        store::StaffRepository staff(context.database);
        if (filter.before > 0) {
            const auto exists = staff.auditEntryExists(filter.before);
            if (!exists)
                return storeFailure();
            if (!*exists)
                return invalid(QStringLiteral("invalid_query"), QStringLiteral("'before' names no audit entry."));
        }
        const auto page = staff.audit(filter);
        if (!page)
            return storeFailure();
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
