// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/sync/batch: a kiosk's offline queue replayed many actions per request.
#include "core/errorcatalogue.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <variant>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {

struct ConfirmRequest {
    QString orderId;
    QString paymentIntentId;
};
using BatchAction = std::variant<HoldRequest, store::CheckinRequest, ConfirmRequest>;

ApiError atIndex(ApiError error, qsizetype index)
{
    error.message = QStringLiteral("actions[%1]: %2").arg(index).arg(error.message);
    error.extra.insert(QStringLiteral("index"), qint64(index));
    return error;
}

ApiError keyMismatch(const QString &field)
{
    return ApiError::badRequest(QStringLiteral("invalid_idempotency_key"),
                                QStringLiteral("'idempotency_key' must equal the payload's '%1' (the key of this action on its own endpoint).").arg(field));
}

// Everything is checked before anything is applied: one malformed action refuses the whole batch.
Result<BatchAction> parseAction(const ServerContext &context, const store::Principal &caller, const QJsonValue &value)
{
    if (!value.isObject())
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("Each action must be an object {kind, idempotency_key, payload}."));
    const QJsonObject action = value.toObject();
    const auto kind = requiredString(action, QStringLiteral("kind"), 32);
    if (isError(kind))
        return std::get<ApiError>(kind);
    const auto key = requiredString(action, QStringLiteral("idempotency_key"), 255);
    if (isError(key))
        return std::get<ApiError>(key);
    const QString &idempotencyKey = std::get<QString>(key);
    if (idempotencyKey.isEmpty())
        return ApiError::badRequest(QStringLiteral("invalid_idempotency_key"), QStringLiteral("'idempotency_key' must not be empty."));
    if (!action.value(QStringLiteral("payload")).isObject())
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'payload' must be an object."));
    const QJsonObject payload = action.value(QStringLiteral("payload")).toObject();
    const QString &actionKind = std::get<QString>(kind);

    if (actionKind == QLatin1String("hold")) {
        const auto showId = requiredInteger(payload, QStringLiteral("show_id"));
        if (isError(showId))
            return std::get<ApiError>(showId);
        if (std::get<qint64>(showId) <= 0)
            return apiError(ErrorCode::InvalidShowId);
        const auto admission = optionalString(payload, QStringLiteral("admission_token"), 1000);
        if (isError(admission))
            return std::get<ApiError>(admission);
        auto hold = parseHoldRequest(context, std::get<qint64>(showId), idempotencyKey, payload, std::get<QString>(admission).toUtf8());
        if (isError(hold))
            return std::get<ApiError>(hold);
        return std::get<HoldRequest>(std::move(hold));
    }
    if (actionKind == QLatin1String("checkin")) {
        auto checkin = parseCheckinRequest(payload, caller);
        if (isError(checkin))
            return std::get<ApiError>(checkin);
        if (std::get<store::CheckinRequest>(checkin).nonce != idempotencyKey)
            return keyMismatch(QStringLiteral("nonce"));
        return std::get<store::CheckinRequest>(std::move(checkin));
    }
    if (actionKind == QLatin1String("confirm_order")) {
        const auto orderId = requiredString(payload, QStringLiteral("order_id"), 64);
        if (isError(orderId))
            return std::get<ApiError>(orderId);
        const auto intent = parseConfirmIntent(payload);
        if (isError(intent))
            return std::get<ApiError>(intent);
        if (std::get<QString>(intent) != idempotencyKey)
            return keyMismatch(QStringLiteral("payment_intent_id"));
        return ConfirmRequest{std::get<QString>(orderId), std::get<QString>(intent)};
    }
    return ApiError::badRequest(QStringLiteral("unknown_kind"),
                                QStringLiteral("Unknown action kind '%1'; one of hold, checkin, confirm_order.").arg(actionKind));
}

/** @brief A run of hold actions, decided together by HoldService::placeTogether (one transaction, one commit). */
void applyHolds(ServerContext &context, const store::Principal &caller, std::vector<HoldRequest> requests, std::vector<HttpResponse> &responses)
{
    for (const HoldOutcome &outcome : context.holdService.placeTogether(caller, std::move(requests)))
        responses.push_back(holdResponse(outcome));
}

QJsonObject resultJson(const HttpResponse &response)
{
    const QJsonDocument document = QJsonDocument::fromJson(response.body);
    return QJsonObject{{QStringLiteral("status"), response.status},
                       {QStringLiteral("body"), document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object())}};
}

} // namespace

void registerSyncRoutes(Router &router, ServerContext &context)
{
    // Devices replay their own queues; staff sessions send single requests.
    router.addJson(Method::Post, QStringLiteral("/api/v1/sync/batch"), Access::roles_(roleBit(Role::Kiosk) | roleBit(Role::Till)),
                   [&context](RequestContext &request, const QJsonObject &body) {
        const QJsonValue actionsValue = body.value(QStringLiteral("actions"));
        if (!actionsValue.isArray())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'actions' must be an array.")));
        const QJsonArray actions = actionsValue.toArray();
        if (actions.isEmpty() || actions.size() > kMaxSyncBatchActions)
            return HttpResponse::error(ApiError::badRequest(
                QStringLiteral("too_many_actions"), QStringLiteral("A batch carries 1 to %1 actions; this one has %2.").arg(kMaxSyncBatchActions).arg(actions.size())));
        std::vector<BatchAction> batch;
        batch.reserve(actions.size());
        for (qsizetype i = 0; i < actions.size(); ++i) {
            auto action = parseAction(context, request.caller(), actions.at(i));
            if (isError(action))
                return HttpResponse::error(atIndex(std::get<ApiError>(action), i));
            batch.push_back(std::get<BatchAction>(std::move(action)));
        }

        // In the batch's order: a run of holds shares a transaction; a check-in or a confirm is applied alone, in
        // its own transaction as on its endpoint (a confirm may ask the payment provider: no locks held meanwhile).
        std::vector<HttpResponse> responses;
        responses.reserve(batch.size());
        for (size_t i = 0; i < batch.size();) {
            if (std::holds_alternative<HoldRequest>(batch[i])) {
                std::vector<HoldRequest> run;
                for (; i < batch.size() && std::holds_alternative<HoldRequest>(batch[i]); ++i)
                    run.push_back(std::get<HoldRequest>(std::move(batch[i])));
                applyHolds(context, request.caller(), std::move(run), responses);
            } else if (const auto *checkin = std::get_if<store::CheckinRequest>(&batch[i])) {
                responses.push_back(checkIn(context, *checkin));
                ++i;
            } else {
                const auto &confirm = std::get<ConfirmRequest>(batch[i]);
                responses.push_back(confirmOrder(context, request.caller(), confirm.orderId, confirm.paymentIntentId));
                ++i;
            }
        }
        QJsonArray results;
        for (const HttpResponse &response : responses)
            results.append(resultJson(response));
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("results"), results}});
    });
}

} // namespace marquee::http
