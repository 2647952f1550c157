// SPDX-License-Identifier: AGPL-3.0-or-later
// Till shifts and the cash drawer (cashiers): open, read, drawer operations, close with the Z-report.
#include "core/jsonbody.h"
#include "core/money.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/shiftrepository.h"


namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
constexpr qint64 kMaxCashMinor = 100'000'000'00; // far beyond any drawer; catches a mistyped amount

HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not answering; nothing was changed. Try again shortly.")));
}

HttpResponse noOpenShift()
{
    return HttpResponse::error(ApiError::notFound(QStringLiteral("no_open_shift"), QStringLiteral("You have no open shift; open one first.")));
}

// A required amount of minor units from 0 to kMaxCashMinor.
Result<qint64> cashAmount(const QJsonObject &body, const QString &field)
{
    const auto amount = requiredInteger(body, field);
    if (isError(amount))
        return amount;
    if (std::get<qint64>(amount) < 0 || std::get<qint64>(amount) > kMaxCashMinor)
        return ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("'%1' must be a non-negative integer of minor units.").arg(field));
    return amount;
}

HttpResponse shiftReply(const store::ShiftOutcome &outcome, int okStatus)
{
    switch (outcome.kind) {
    case store::ShiftOutcome::Kind::Done:
        return HttpResponse::json(okStatus, outcome.body);
    case store::ShiftOutcome::Kind::NoOpenShift:
        return noOpenShift();
    case store::ShiftOutcome::Kind::AlreadyOpen:
        return HttpResponse::error(ApiError{409, QStringLiteral("shift_already_open"), QStringLiteral("You already have an open shift; close it first."),
                                            QJsonObject{{QStringLiteral("shift"), outcome.body}}});
    case store::ShiftOutcome::Kind::UnknownDevice:
        return HttpResponse::error(ApiError::notFound(QStringLiteral("device_not_found"), QStringLiteral("There is no enrolled till with this id.")));
    case store::ShiftOutcome::Kind::Error:
        break;
    }
    return storeFailure();
}
} // namespace

void registerShiftRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/shifts"), Access::roles_(kStaffRoles).withReauthentication(), [&context](RequestContext &request, const QJsonObject &body) {
        // The opening float goes into the drawer, which the till opens on this answer: a drawer operation, so the
        // password or PIN again first, like cash in/out and the close.
        const auto openingFloat = cashAmount(body, QStringLiteral("opening_float_minor"));
        const auto currency = requiredString(body, QStringLiteral("currency"), 3);
        if (const ApiError *error = firstError(openingFloat, currency))
            return HttpResponse::error(*error);
        if (!isCurrencyCode(std::get<QString>(currency)))
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_currency"), QStringLiteral("'currency' must be an ISO 4217 code such as EUR.")));
        qint64 deviceId = 0;
        if (body.contains(QStringLiteral("device_id")) && !body.value(QStringLiteral("device_id")).isNull()) {
            const auto device = requiredInteger(body, QStringLiteral("device_id"));
            if (isError(device) || std::get<qint64>(device) <= 0)
                return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_id"), QStringLiteral("'device_id' must be a positive integer.")));
            deviceId = std::get<qint64>(device);
        }
        store::ShiftRepository shifts(context.database);
        return shiftReply(shifts.open(request.caller(), std::get<QString>(currency), std::get<qint64>(openingFloat), deviceId), 201);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/shifts/current"), Access::roles_(kStaffRoles), [&context](RequestContext &request) {
        store::ShiftRepository shifts(context.database);
        return shiftReply(shifts.current(request.caller()), 200);
    });

    router.addJson(Method::Post, QStringLiteral("/api/v1/shifts/current/drawer"), Access::roles_(kStaffRoles).withReauthentication(), [&context](RequestContext &request, const QJsonObject &body) {
        const auto kind = requiredString(body, QStringLiteral("kind"), 16);
        const auto reason = requiredString(body, QStringLiteral("reason"), 500);
        if (const ApiError *error = firstError(kind, reason))
            return HttpResponse::error(*error);
        if (std::get<QString>(reason).trimmed().isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("Every drawer operation needs a 'reason'.")));
        static const QHash<QString, store::DrawerOperation> kinds = {{QStringLiteral("cash_in"), store::DrawerOperation::CashIn},
                                                                    {QStringLiteral("cash_out"), store::DrawerOperation::CashOut},
                                                                    {QStringLiteral("no_sale"), store::DrawerOperation::NoSale}};
        const auto operation = kinds.constFind(std::get<QString>(kind));
        if (operation == kinds.constEnd())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_value"), QStringLiteral("'kind' must be cash_in, cash_out or no_sale.")));
        qint64 amount = 0;
        if (*operation == store::DrawerOperation::NoSale) {
            if (body.contains(QStringLiteral("amount_minor")) && body.value(QStringLiteral("amount_minor")).toInteger(-1) != 0)
                return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("A no-sale drawer open moves no money.")));
        } else {
            const auto parsedAmount = cashAmount(body, QStringLiteral("amount_minor"));
            if (isError(parsedAmount))
                return HttpResponse::error(std::get<ApiError>(parsedAmount));
            amount = std::get<qint64>(parsedAmount);
            if (amount == 0)
                return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("Cash in or out needs an amount above 0.")));
        }
        store::ShiftRepository shifts(context.database);
        return shiftReply(shifts.drawer(request.caller(), *operation, amount, std::get<QString>(reason)), 201);
    });

    router.addJson(Method::Post, QStringLiteral("/api/v1/shifts/current/close"), Access::roles_(kStaffRoles).withReauthentication(), [&context](RequestContext &request, const QJsonObject &body) {
        const auto counted = cashAmount(body, QStringLiteral("counted_cash_minor"));
        const auto note = optionalString(body, QStringLiteral("note"), 500);
        if (const ApiError *error = firstError(counted, note))
            return HttpResponse::error(*error);
        store::ShiftRepository shifts(context.database);
        return shiftReply(shifts.close(request.caller(), std::get<qint64>(counted), std::get<QString>(note)), 200);
    });
}

} // namespace marquee::http
