// SPDX-License-Identifier: AGPL-3.0-or-later
// The entry point of every request-body target: the bytes through the same gates as ApiServer and Router::addJson.
#include "core/jsonbody.h"
#include "core/textcheck.h"
#include "fuzzcheck.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body = marquee::fuzz::input(data, size);
    if (!marquee::isCleanJsonText(body))
        return 0;
    const auto parsed = marquee::parseJsonObject(body);
    if (!marquee::isError(parsed))
        marquee::fuzz::fuzzRouteBody(std::get<QJsonObject>(parsed));
    return 0;
}
