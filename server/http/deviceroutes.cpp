// SPDX-License-Identifier: AGPL-3.0-or-later
// The fleet: a device's heartbeat (with its reconciliation summary) and the manager's list of devices.
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
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


} // namespace

void registerDeviceRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/devices/heartbeat"), Access::roles_(roleBit(Role::Kiosk) | roleBit(Role::Till)),
                   [&context](RequestContext &request, const QJsonObject &body) {
        const auto queueLength = requiredInteger(body, QStringLiteral("queue_length"));
        const auto printerState = requiredString(body, QStringLiteral("printer_state"), 40);
        const auto appVersion = requiredString(body, QStringLiteral("app_version"), 40);
        if (const ApiError *error = firstError(queueLength, printerState, appVersion))
            return HttpResponse::error(*error);
        if (std::get<qint64>(queueLength) < 0 || std::get<qint64>(queueLength) > 10000000)
            return invalidRequest(QStringLiteral("invalid_value"), QStringLiteral("'queue_length' must be a count from 0."));
        static const QStringList printerStates = {QStringLiteral("ok"), QStringLiteral("no_paper"), QStringLiteral("paper_low"),
                                                  QStringLiteral("offline"), QStringLiteral("error"), QStringLiteral("none")};
        if (!printerStates.contains(std::get<QString>(printerState)))
            return invalidRequest(QStringLiteral("invalid_value"),
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
            return bookingDatabaseUnavailable();
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("server_time"), toIsoUtc(QDateTime::currentDateTimeUtc())}});
    });

    router.add(Method::Get, QStringLiteral("/api/v1/devices"), Access::roles_(kManagerRoles), [&context](RequestContext &) {
        store::StaffRepository staff(context.database);
        const auto devices = staff.devices(kOnlineWindowSeconds);
        return devices ? HttpResponse::json(200, *devices) : bookingDatabaseUnavailable();
    });
}

} // namespace marquee::http
