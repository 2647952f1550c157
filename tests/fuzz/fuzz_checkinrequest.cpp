// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/checkin: the body into a CheckinRequest (http/requestparsers), from a device and a staff session.
#include "fuzzcheck.h"
#include "http/requestparsers.h"

#include <QDateTime>

using namespace marquee;
using fuzz::checkRefusal;

void marquee::fuzz::fuzzRouteBody(const QJsonObject &body)
{
    store::Principal device;
    device.id = 3;
    store::Principal session;
    session.kind = store::Principal::Kind::Session;
    session.id = 12;
    session.role = Role::Cashier;
    for (const store::Principal &caller : {device, session}) {
        const auto parsed = http::parseCheckinRequest(body, caller);
        if (const auto *error = std::get_if<ApiError>(&parsed)) {
            checkRefusal(*error);
            continue;
        }
        const store::CheckinRequest &checkin = std::get<store::CheckinRequest>(parsed);
        FUZZ_CHECK(!checkin.qr.isEmpty() && checkin.qr.size() <= 512);
        FUZZ_CHECK(!checkin.nonce.isEmpty() && checkin.nonce.size() <= 128);
        FUZZ_CHECK(checkin.scannedAt.isValid() && checkin.scannedAt.timeSpec() == Qt::UTC);
        FUZZ_CHECK(checkin.scannedAt <= QDateTime::currentDateTimeUtc().addSecs(301));
        FUZZ_CHECK(!checkin.doorShowId || *checkin.doorShowId > 0);
        FUZZ_CHECK(checkin.device == caller.owner());
        FUZZ_CHECK(checkin.staff.has_value() == (caller.kind == store::Principal::Kind::Session));
    }
}
