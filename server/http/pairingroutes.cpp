// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/devices/pair: a device trades the one-time code marquee-admin device add --pairing printed for its
// token. Public (the device has no token yet), so throttled like sign-in, per address and fleet-wide.
#include "core/jsonbody.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "runtime/venuetls.h"
#include "store/pairingrepository.h"
#include "store/signinthrottle.h"

#include <QFile>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
// The sign-in throttle's table, under keys of their own: a name no staff member can have (names are checked on
// sign-in by the staff table, never by this key) counts wrong codes from anywhere.
const QString kFleetKey = QStringLiteral("#device-pairing");

ApiError pairingLocked(const store::SignInLock &lock)
{
    const qint64 seconds = qMax<qint64>(1, QDateTime::currentDateTimeUtc().secsTo(lock.until) + 1);
    return ApiError{429, QStringLiteral("pairing_locked"),
                    lock.scope == QLatin1String("name") ? QStringLiteral("Too many wrong pairing codes lately: pairing is locked for a while.")
                                                        : QStringLiteral("Too many wrong pairing codes from this address: pairing is locked for a while."),
                    QJsonObject{{QStringLiteral("retry_after_s"), seconds}}};
}

ApiError refusal(store::Pairing::Decision decision)
{
    using Decision = store::Pairing::Decision;
    switch (decision) {
    case Decision::CodeUsed:
        return ApiError{409, QStringLiteral("pairing_code_used"), QStringLiteral("This pairing code was used already; ask for a new one."), {}};
    case Decision::CodeExpired:
        return ApiError{410, QStringLiteral("pairing_code_expired"), QStringLiteral("This pairing code has expired; ask for a new one."), {}};
    case Decision::NameTaken:
        return ApiError{409, QStringLiteral("device_exists"), QStringLiteral("A device of this code's name was enrolled meanwhile; ask for a new code."), {}};
    case Decision::Paired:
    case Decision::UnknownCode:
        break;
    }
    return ApiError{404, QStringLiteral("pairing_code_not_found"), QStringLiteral("No such pairing code; check it and try again."), {}};
}
} // namespace

void registerPairingRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/devices/pair"), Access::anyone(), [&context](RequestContext &request, const QJsonObject &body) {
        const auto code = requiredString(body, QStringLiteral("code"), 32);
        if (isError(code))
            return HttpResponse::error(std::get<ApiError>(code));
        if (store::PairingRepository::normalize(std::get<QString>(code)).isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_pairing_code"),
                                                            QStringLiteral("A pairing code is 8 letters and digits, like 7K3M-Q9TZ.")));
        const QString address = context.config.trustedProxies.clientAddress(request.request).toString();
        const QString addressKey = QStringLiteral("pair:") + address;
        store::SignInThrottle throttle(context.database, {context.config.pairingFailuresFleetWide, context.config.pairingFailuresPerAddress,
                                                          context.config.signInLockoutSeconds});
        const ApiError down = ApiError::unavailable(QStringLiteral("The booking database is not answering; the device is not paired. Try again."));
        const auto lock = throttle.lockout(kFleetKey, addressKey);
        if (!lock)
            return HttpResponse::error(down);
        if (lock->locked)
            return HttpResponse::error(pairingLocked(*lock));
        const auto pairing = store::PairingRepository(context.database).redeem(std::get<QString>(code), address);
        if (!pairing)
            return HttpResponse::error(down);
        if (pairing->decision != store::Pairing::Decision::Paired) {
            const auto started = throttle.recordFailure(kFleetKey, addressKey);
            return HttpResponse::error(started && started->locked ? pairingLocked(*started) : refusal(pairing->decision));
        }
        QJsonObject answer{{QStringLiteral("device_id"), pairing->deviceId},
                           {QStringLiteral("name"), pairing->name},
                           {QStringLiteral("role"), pairing->role},
                           {QStringLiteral("token"), pairing->token}};
        QFile ca(context.config.venueCaFile);
        if (!context.config.venueCaFile.isEmpty() && ca.open(QIODevice::ReadOnly))
            answer.insert(QStringLiteral("venue_ca_fingerprint"), VenueTls::fingerprint(ca.readAll()));
        return HttpResponse::json(201, answer);
    });
}

} // namespace marquee::http
