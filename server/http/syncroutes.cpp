// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/sync/batch: a kiosk's offline queue replayed many actions per request.
#include "http/routes.h"
#include "http/syncactions.h"
#include "runtime/servercontext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <variant>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {

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
        auto parsed = parseSyncBatch(body, context.config.maxSeatsPerHold, request.caller());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        std::vector<SyncAction> &batch = std::get<std::vector<SyncAction>>(parsed);

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
