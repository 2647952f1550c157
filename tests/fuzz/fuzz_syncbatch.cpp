// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/sync/batch: a device's replayed queue into typed actions (http/requestparsers).
#include "fuzzcheck.h"
#include "http/requestparsers.h"

#include <QJsonArray>

using namespace marquee;
using fuzz::checkRefusal;

void marquee::fuzz::fuzzRouteBody(const QJsonObject &body)
{
    store::Principal kiosk;
    kiosk.id = 7;
    constexpr int kMaxSeats = 10;
    const auto parsed = http::parseSyncBatch(body, kMaxSeats, kiosk);
    if (const auto *error = std::get_if<ApiError>(&parsed)) {
        checkRefusal(*error);
        // A refused action is named by its index, which is one of the batch's.
        if (error->extra.contains(QStringLiteral("index"))) {
            const qint64 index = error->extra.value(QStringLiteral("index")).toInteger(-1);
            FUZZ_CHECK(index >= 0 && index < body.value(QStringLiteral("actions")).toArray().size());
            FUZZ_CHECK(error->message.startsWith(QStringLiteral("actions[%1]: ").arg(index)));
        }
        return;
    }
    const std::vector<http::SyncAction> &batch = std::get<std::vector<http::SyncAction>>(parsed);
    const QJsonArray actions = body.value(QStringLiteral("actions")).toArray();
    FUZZ_CHECK(!batch.empty() && batch.size() <= size_t(http::kMaxSyncBatchActions) && qsizetype(batch.size()) == actions.size());
    for (size_t i = 0; i < batch.size(); ++i) {
        // Every action carries its own endpoint's idempotency key: replayed, it is deduplicated as the single request would be.
        const QString key = actions.at(qsizetype(i)).toObject().value(QStringLiteral("idempotency_key")).toString();
        FUZZ_CHECK(!key.isEmpty());
        if (const auto *hold = std::get_if<HoldRequest>(&batch[i])) {
            FUZZ_CHECK(hold->idempotencyKey == key && hold->showId > 0);
            FUZZ_CHECK(!hold->seatIds.isEmpty() && hold->seatIds.size() <= kMaxSeats);
        } else if (const auto *checkin = std::get_if<store::CheckinRequest>(&batch[i])) {
            FUZZ_CHECK(checkin->nonce == key && checkin->device == kiosk.owner());
        } else {
            const auto &confirm = std::get<http::ConfirmRequest>(batch[i]);
            FUZZ_CHECK(confirm.paymentIntentId == key && !confirm.orderId.isEmpty());
        }
    }
}
