// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "http/paymentcalls.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/sessiondevicerepository.h"
#include "store/signinthrottle.h"
#include "store/staffrepository.h"

#include <QHostAddress>
#include <QRegularExpression>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
store::SignInThrottle::Limits throttleLimits(const ServerConfig &config)
{
    return {config.signInFailuresPerName, config.signInFailuresPerAddress, config.signInLockoutSeconds};
}

ApiError signInLocked(const store::SignInLock &lock)
{
    const qint64 seconds = qMax<qint64>(1, QDateTime::currentDateTimeUtc().secsTo(lock.until) + 1);
    return ApiError{429, QStringLiteral("sign_in_locked"),
                    lock.scope == QLatin1String("name") ? QStringLiteral("Too many wrong passwords for this name: signing in is locked for a while.")
                                                        : QStringLiteral("Too many wrong passwords from this address: signing in is locked for a while."),
                    QJsonObject{{QStringLiteral("retry_after_s"), seconds}}};
}

// Sign-out, re-authentication and PIN changes are staff actions: AuthRepository appends their audit row in the
// session write's own transaction, so neither commits without the other.
store::AuditEntry sessionAction(const store::Principal &actor, const QString &action)
{
    return {action, actor.owner(), QString(), {}};
}
} // namespace

void registerSessionRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/sessions"), Access::anyone(), [&context](RequestContext &request, const QJsonObject &body) {
        const auto name = requiredString(body, QStringLiteral("name"), 100);
        if (isError(name))
            return HttpResponse::error(std::get<ApiError>(name));
        const auto password = requiredString(body, QStringLiteral("password"), 200);
        if (isError(password))
            return HttpResponse::error(std::get<ApiError>(password));
        // Signing in on an enrolled till or desk: its device token comes along, so the session (and every audit row
        // of what is done in it) says from which device. Any other token is refused rather than ignored.
        qint64 deviceId = 0;
        const QByteArray authorization = request.header("Authorization");
        if (!authorization.isEmpty()) {
            bool databaseDown = false;
            const auto device = authorization.startsWith("Bearer ") && authorization.size() > 7
                ? context.auth.authenticate(QString::fromLatin1(authorization.mid(7).trimmed()), &databaseDown)
                : std::nullopt;
            if (!device && databaseDown)
                return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; you are not signed in.")));
            if (!device || device->kind != store::Principal::Kind::Device)
                return HttpResponse::error(ApiError::unauthorized(
                    QStringLiteral("Sign-in takes no token, or the token of the device signed in on; this one is not a device's, or it is revoked.")));
            deviceId = device->id;
        }
        // Throttled per name and per address before any hashing: a locked-out guesser costs one indexed read.
        const QString address = context.config.trustedProxies.clientAddress(request.request).toString();
        store::SignInThrottle throttle(context.database, throttleLimits(context.config));
        const auto lock = throttle.lockout(std::get<QString>(name), address);
        if (!lock)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; you are not signed in.")));
        if (lock->locked)
            return HttpResponse::error(signInLocked(*lock));
        // PBKDF2 is slow on purpose: it runs on the password threads, never on this worker, so a flood of sign-ins
        // (no token needed) waits there while every other request keeps its pace.
        return answerOnThreads(context.passwordHashing, [&context, name = std::get<QString>(name), password = std::get<QString>(password),
                                                         deviceId, address]() -> HttpResponse {
            store::SignInThrottle throttle(context.database, throttleLimits(context.config));
            const auto session = context.auth.createSession(name, password, context.config.sessionTtlSeconds);
            if (!session) {
                const auto started = throttle.recordFailure(name, address);
                if (started && started->locked)
                    return HttpResponse::error(signInLocked(*started));
                return HttpResponse::error(ApiError{401, QStringLiteral("invalid_credentials"), QStringLiteral("The name or password is wrong."), {}});
            }
            throttle.recordSuccess(name);
            store::Principal signedIn;
            signedIn.kind = store::Principal::Kind::Session;
            signedIn.id = session->sessionId;
            signedIn.staffId = session->staffId;
            signedIn.name = name;
            signedIn.role = session->role;
            // Its token has not been shown to anyone yet: a session that could not be bound to its device, or whose
            // sign-in could not be audited (after the bind, so the row names the device), is ended, not handed out.
            // A single failed sign-in is not audited: anyone may try one without a token, and the append-only log
            // can never be pruned; a lockout is (SignInThrottle).
            store::SessionDeviceRepository devices(context.database);
            if ((deviceId > 0 && !devices.bind(session->token, deviceId))
                || !store::StaffRepository(context.database).appendAudit(signedIn, {QStringLiteral("session.sign_in"), signedIn.owner(), QString(), {}})) {
                devices.discard(session->token);
                return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; you are not signed in.")));
            }
            return HttpResponse::json(201, QJsonObject{{QStringLiteral("token"), session->token},
                                                       {QStringLiteral("role"), toString(session->role)},
                                                       {QStringLiteral("expires_at"), toIsoUtc(session->expiresAt)}});
        });
    });
    router.add(Method::Delete, QStringLiteral("/api/v1/sessions/current"), Access::lockedSessionToo(kStaffRoles), [&context](RequestContext &request) {
        const store::Principal &caller = request.caller();
        if (!context.auth.endSession(caller, sessionAction(caller, QStringLiteral("session.sign_out"))))
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not answering; you are still signed in. Try again.")));
        return HttpResponse::noBody(204);
    });

    // The one call a locked session may make besides signing out: entering the password or PIN again unlocks it
    // and elevates it for the re-authentication window (refunds, overrides, drawer operations).
    router.addJson(Method::Post, QStringLiteral("/api/v1/sessions/reauth"), Access::lockedSessionToo(kStaffRoles), [&context](RequestContext &request, const QJsonObject &body) {
        const auto password = optionalString(body, QStringLiteral("password"), 200);
        const auto pin = optionalString(body, QStringLiteral("pin"), 8);
        if (const ApiError *error = firstError(password, pin))
            return HttpResponse::error(*error);
        if (std::get<QString>(password).isEmpty() == std::get<QString>(pin).isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("Give exactly one of 'password' or 'pin'.")));
        // Wrong answers are audited too: at most kMaxFailedReauths per session, and only a signed-in session can give them.
        const store::Principal &caller = request.caller();
        const QString method = std::get<QString>(pin).isEmpty() ? QStringLiteral("password") : QStringLiteral("pin");
        const auto auditOf = [&caller, &method](const store::Reauth &decided) {
            const bool right = decided.kind == store::Reauth::Kind::Elevated;
            QJsonObject details{{QStringLiteral("method"), method}};
            if (!right)
                details.insert(QStringLiteral("attempts_left"), decided.attemptsLeft);
            if (decided.kind == store::Reauth::Kind::SessionEnded)
                details.insert(QStringLiteral("session_ended"), true);
            return store::AuditEntry{right ? QStringLiteral("session.reauth") : QStringLiteral("session.reauth_failed"), caller.owner(), QString(), details};
        };
        const store::Reauth result = context.auth.reauthenticate(caller, std::get<QString>(password), std::get<QString>(pin),
                                                                 context.config.reauthSeconds, auditOf);
        switch (result.kind) {
        case store::Reauth::Kind::Elevated:
            return HttpResponse::json(200, QJsonObject{{QStringLiteral("elevated_until"), toIsoUtc(result.elevatedUntil)}});
        case store::Reauth::Kind::WrongSecret:
            return HttpResponse::error(ApiError{401, QStringLiteral("invalid_credentials"), QStringLiteral("The password or PIN is wrong."),
                                                QJsonObject{{QStringLiteral("attempts_left"), result.attemptsLeft}}});
        case store::Reauth::Kind::NoPin:
            return HttpResponse::error(ApiError::unprocessable(QStringLiteral("no_pin"), QStringLiteral("No PIN is set for you; use the password.")));
        case store::Reauth::Kind::SessionEnded:
            return HttpResponse::error(ApiError{401, QStringLiteral("session_ended"),
                                                QStringLiteral("Too many wrong attempts: the session has ended. Sign in again."), {}});
        case store::Reauth::Kind::Error:
            break;
        }
        return HttpResponse::error(ApiError::unavailable(QStringLiteral("The database is not answering; try again shortly.")));
    });

    router.addJson(Method::Put, QStringLiteral("/api/v1/sessions/current/pin"), Access::roles_(kStaffRoles), [&context](RequestContext &request, const QJsonObject &body) {
        const auto password = requiredString(body, QStringLiteral("password"), 200);
        const auto pin = requiredString(body, QStringLiteral("pin"), 8);
        if (const ApiError *error = firstError(password, pin))
            return HttpResponse::error(*error);
        static const QRegularExpression digits(QStringLiteral("^[0-9]{4,8}$"));
        if (!digits.match(std::get<QString>(pin)).hasMatch())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_pin"), QStringLiteral("A PIN is 4 to 8 digits.")));
        QString why;
        bool wrongPassword = false;
        if (!context.auth.setPin(request.caller(), std::get<QString>(password), std::get<QString>(pin), &why, &wrongPassword,
                                 sessionAction(request.caller(), QStringLiteral("session.pin_change")))) {
            if (wrongPassword)
                return HttpResponse::error(ApiError{401, QStringLiteral("invalid_credentials"), why, {}});
            return HttpResponse::error(ApiError::unavailable(why));
        }
        return HttpResponse::noBody(204);
    });
}

} // namespace marquee::http
