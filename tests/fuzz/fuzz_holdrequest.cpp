// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/shows/{show_id}/hold: the body into a HoldRequest (http/requestparsers).
#include "fuzzcheck.h"
#include "http/requestparsers.h"

#include <QJsonArray>

using namespace marquee;
using fuzz::checkRefusal;

void marquee::fuzz::fuzzRouteBody(const QJsonObject &input)
{
    QJsonObject body = input;
    constexpr int kMaxSeats = 10;
    const auto parsed = http::parseHoldRequest(kMaxSeats, 42, QStringLiteral("key-1"), body, "admission");
    if (const auto *error = std::get_if<ApiError>(&parsed)) {
        checkRefusal(*error);
        return;
    }
    const HoldRequest &hold = std::get<HoldRequest>(parsed);
    FUZZ_CHECK(hold.showId == 42 && hold.idempotencyKey == QLatin1String("key-1") && hold.admissionToken == "admission");
    FUZZ_CHECK(!hold.seatIds.isEmpty() && hold.seatIds.size() <= kMaxSeats);
    FUZZ_CHECK(hold.fingerprint.size() == 64);
    // The fingerprint is what the request means: the same seats in another order are the same request, another
    // show is another one.
    QJsonArray reversed;
    for (auto it = hold.seatIds.crbegin(); it != hold.seatIds.crend(); ++it)
        reversed.append(*it);
    body.insert(QStringLiteral("seat_ids"), reversed);
    const auto again = http::parseHoldRequest(kMaxSeats, 42, QString(), body, {});
    FUZZ_CHECK(!isError(again) && std::get<HoldRequest>(again).fingerprint == hold.fingerprint);
    const auto otherShow = http::parseHoldRequest(kMaxSeats, 43, QString(), body, {});
    FUZZ_CHECK(!isError(otherShow) && std::get<HoldRequest>(otherShow).fingerprint != hold.fingerprint);
}
