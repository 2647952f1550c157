// SPDX-License-Identifier: AGPL-3.0-or-later
#include "staffsession.h"
#include "applogging.h"

#include <QCoreApplication>
#include <QEvent>
#include <QJsonObject>
#include <QNetworkReply>
#include <QPasswordDigestor>
#include <QPointer>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace marquee::app {

StaffSession::StaffSession(const QUrl &server, const QStringList &allowedRoles, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_allowedRoles(allowedRoles)
    , m_anonymousClient(server)
    , m_anonymous(m_anonymousClient)
{
    m_idle.setSingleShot(true);
    m_idle.setInterval(m_lockAfterSeconds * 1000);
    connect(&m_idle, &QTimer::timeout, this, &StaffSession::lock);
    if (QCoreApplication::instance())
        QCoreApplication::instance()->installEventFilter(this);
}

StaffSession::~StaffSession()
{
    if (QCoreApplication::instance())
        QCoreApplication::instance()->removeEventFilter(this);
}

void StaffSession::setLockAfterSeconds(int seconds)
{
    if (seconds == m_lockAfterSeconds || seconds < 0)
        return;
    m_lockAfterSeconds = seconds;
    m_idle.setInterval(seconds * 1000);
    if (signedIn() && !m_locked && seconds > 0)
        m_idle.start();
    else if (seconds == 0)
        m_idle.stop();
    Q_EMIT lockAfterSecondsChanged();
}

bool StaffSession::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::KeyPress:
    case QEvent::MouseButtonPress:
    case QEvent::TouchBegin:
    case QEvent::Wheel:
        activity();
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

void StaffSession::activity()
{
    if (signedIn() && !m_locked && m_lockAfterSeconds > 0)
        m_idle.start();
}

void StaffSession::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    Q_EMIT busyChanged();
}

void StaffSession::setErrorString(const QString &error)
{
    if (m_errorString == error)
        return;
    m_errorString = error;
    Q_EMIT errorStringChanged();
}

void StaffSession::setLocked(bool locked)
{
    if (m_locked == locked)
        return;
    m_locked = locked;
    if (locked)
        m_idle.stop();
    else
        activity();
    Q_EMIT lockedChanged();
}

void StaffSession::openSession(const QString &name, const QString &password, std::function<void(const ApiReply &)> done)
{
    m_anonymousClient.setTimeoutMs(m_timeoutMs);
    m_anonymous.post(QStringLiteral("/api/v1/sessions"), QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("password"), password}}, this,
                     std::move(done));
}

namespace {
QString signInError(const ApiReply &reply)
{
    if (reply.kind == ApiErrorKind::Offline || reply.kind == ApiErrorKind::Server)
        return StaffSession::tr("The server cannot be reached. Check the network and try again.");
    if (reply.status == 401)
        return StaffSession::tr("That name and password do not match.");
    if (reply.code == QLatin1String("missing_field"))
        return StaffSession::tr("Enter your name and password.");
    return StaffSession::tr("Sign-in failed: %1").arg(reply.message.isEmpty() ? reply.code : reply.message);
}
} // namespace

void StaffSession::adoptToken(const QString &token, const QDateTime &expiresAt)
{
    m_token = token;
    m_expiresAt = expiresAt;
    m_api = makeClient(token, this);
    m_client = m_api->findChild<sync::ApiClient *>();
    Q_EMIT apiChanged();
}

void StaffSession::signIn(const QString &name, const QString &password)
{
    if (m_busy)
        return;
    if (name.trimmed().isEmpty() || password.isEmpty()) {
        setErrorString(tr("Enter your name and password."));
        return;
    }
    setBusy(true);
    setErrorString({});
    const QString trimmed = name.trimmed();
    openSession(trimmed, password, [this, trimmed, password](const ApiReply &reply) {
        setBusy(false);
        if (!reply.ok()) {
            setErrorString(signInError(reply));
            return;
        }
        const QJsonObject object = reply.object();
        const QString role = object.value(QStringLiteral("role")).toString();
        const QString token = object.value(QStringLiteral("token")).toString();
        if (!m_allowedRoles.contains(role)) {
            // The session exists on the server; end it at once rather than leave it lying around.
            KioskApi *temporary = makeClient(token, this);
            temporary->del(QStringLiteral("/api/v1/sessions/current"), this, [temporary](const ApiReply &) { temporary->deleteLater(); });
            setErrorString(tr("A %1 cannot sign in here (this screen is for: %2).").arg(role, m_allowedRoles.join(QStringLiteral(", "))));
            return;
        }
        m_name = trimmed;
        m_role = role;
        rememberVerifier(password);
        adoptToken(token, QDateTime::fromString(object.value(QStringLiteral("expires_at")).toString(), Qt::ISODateWithMs));
        qCInfo(lcStaff) << "signed in" << m_name << "as" << m_role;
        Q_EMIT signedInChanged();
        setLocked(false);
        activity();
    });
}

void StaffSession::signOut()
{
    if (!m_api)
        return;
    Q_EMIT aboutToSignOut();
    KioskApi *api = m_api;
    m_api = nullptr;
    // End the session on the server too; the client goes away once the answer (or a timeout) is in.
    api->del(QStringLiteral("/api/v1/sessions/current"), api, [api](const ApiReply &) { api->deleteLater(); });
    m_token.clear();
    m_name.clear();
    m_role.clear();
    forgetVerifier();
    m_reauthAction = nullptr;
    m_reauthReason.clear();
    m_idle.stop();
    setErrorString({});
    setLocked(false);
    Q_EMIT reauthChanged();
    Q_EMIT signedInChanged();
    Q_EMIT endedSession();
}

void StaffSession::lock()
{
    if (signedIn())
        setLocked(true);
}

namespace {
/** @brief The body of POST /sessions/reauth: a short all-digit secret is a PIN, anything else a password. */
QJsonObject reauthBody(const QString &secret, bool asPassword)
{
    static const QRegularExpression pin(QStringLiteral("^[0-9]{4,8}$"));
    if (!asPassword && pin.match(secret).hasMatch())
        return {{QStringLiteral("pin"), secret}};
    return {{QStringLiteral("password"), secret}};
}
} // namespace

void StaffSession::reauthenticate(KioskApi *api, const QString &secret, bool asPassword, std::function<void(const ApiReply &)> done)
{
    api->post(QStringLiteral("/api/v1/sessions/reauth"), reauthBody(secret, asPassword), this,
              [this, api, secret, asPassword, done = std::move(done)](const ApiReply &reply) {
                  // No PIN set for this member: the digits were their password.
                  if (!asPassword && reply.code == QLatin1String("no_pin")) {
                      reauthenticate(api, secret, true, done);
                      return;
                  }
                  done(reply);
              });
}

void StaffSession::verifyPassword(const QString &password, std::function<void(bool ok)> done, bool offlineFallback)
{
    if (password.isEmpty()) {
        setErrorString(tr("Enter your password."));
        done(false);
        return;
    }
    setBusy(true);
    setErrorString({});
    // The server is the only judge: POST /sessions/reauth unlocks the session and elevates it for refunds,
    // overrides and drawer operations. A server without that route proves the password with a fresh session
    // instead (which replaces the old one).
    reauthenticate(m_api, password, false, [this, password, done, offlineFallback](const ApiReply &reply) {
        if (reply.ok()) {
            setBusy(false);
            rememberVerifier(password);
            done(true);
            return;
        }
        if (offlineFallback && reply.kind == ApiErrorKind::Offline && !m_verifier.isEmpty()) {
            setBusy(false);
            done(matchesVerifier(password));
            return;
        }
        if (reply.code == QLatin1String("session_ended")) {
            setBusy(false);
            signOut();
            setErrorString(tr("Too many wrong attempts: sign in again."));
            done(false);
            return;
        }
        if (reply.status != 404 || reply.code != QLatin1String("not_found")) {
            setBusy(false);
            const int left = reply.object().value(QStringLiteral("attempts_left")).toInt(-1);
            setErrorString(reply.status == 401 ? (left >= 0 ? tr("That password is not right (%n attempt(s) left).", nullptr, left) : tr("That password is not right."))
                                               : signInError(reply));
            done(false);
            return;
        }
        openSession(m_name, password, [this, done, password](const ApiReply &fresh) {
            setBusy(false);
            if (!fresh.ok()) {
                setErrorString(fresh.status == 401 ? tr("That password is not right.") : signInError(fresh));
                done(false);
                return;
            }
            const QJsonObject object = fresh.object();
            KioskApi *old = m_api;
            adoptToken(object.value(QStringLiteral("token")).toString(),
                       QDateTime::fromString(object.value(QStringLiteral("expires_at")).toString(), Qt::ISODateWithMs));
            if (old) {
                old->setParent(nullptr);
                old->del(QStringLiteral("/api/v1/sessions/current"), old, [old](const ApiReply &) { old->deleteLater(); });
            }
            rememberVerifier(password);
            done(true);
        });
    });
}

void StaffSession::unlock(const QString &password)
{
    if (!m_locked || m_busy)
        return;
    verifyPassword(
        password,
        [this](bool ok) {
            if (ok)
                setLocked(false);
        },
        true);
}

void StaffSession::requireReauth(const QString &reason, std::function<void()> action)
{
    m_reauthReason = reason;
    m_reauthAction = std::move(action);
    setErrorString({});
    Q_EMIT reauthChanged();
}

void StaffSession::confirmReauth(const QString &password)
{
    if (!m_reauthAction || m_busy)
        return;
    verifyPassword(password, [this](bool ok) {
        if (!ok)
            return;
        std::function<void()> action = std::move(m_reauthAction);
        m_reauthAction = nullptr;
        m_reauthReason.clear();
        Q_EMIT reauthChanged();
        qCInfo(lcStaff) << m_name << "re-authenticated";
        action();
    });
}

void StaffSession::cancelReauth()
{
    if (!m_reauthAction)
        return;
    m_reauthAction = nullptr;
    m_reauthReason.clear();
    setErrorString({});
    Q_EMIT reauthChanged();
}

void StaffSession::managerOverride(const QString &name, const QString &password,
                                   std::function<void(const QString &token, const QString &error)> done)
{
    if (name.trimmed().isEmpty() || password.isEmpty()) {
        done({}, tr("A manager must enter their name and password."));
        return;
    }
    setBusy(true);
    openSession(name.trimmed(), password, [this, password, done = std::move(done)](const ApiReply &reply) {
        setBusy(false);
        if (!reply.ok()) {
            done({}, reply.status == 401 ? tr("That manager name and password do not match.") : signInError(reply));
            return;
        }
        const QJsonObject object = reply.object();
        const QString token = object.value(QStringLiteral("token")).toString();
        const QString role = object.value(QStringLiteral("role")).toString();
        if (role != QLatin1String("manager") && role != QLatin1String("admin")) {
            endOverride(token);
            done({}, tr("Only a manager can authorise this."));
            return;
        }
        // An override moves money: the manager's fresh session is elevated with the same password (servers
        // without POST /sessions/reauth answer 404, and then the sign-in alone is the proof).
        KioskApi *managerApi = makeClient(token, this);
        managerApi->post(QStringLiteral("/api/v1/sessions/reauth"), QJsonObject{{QStringLiteral("password"), password}}, this,
                         [this, managerApi, token, done](const ApiReply &elevated) {
                             managerApi->deleteLater();
                             if (!elevated.ok() && elevated.status != 404) {
                                 endOverride(token);
                                 done({}, signInError(elevated));
                                 return;
                             }
                             done(token, {});
                         });
    });
}

void StaffSession::endOverride(const QString &token)
{
    if (token.isEmpty())
        return;
    KioskApi *api = makeClient(token, this);
    api->del(QStringLiteral("/api/v1/sessions/current"), api, [api](const ApiReply &) { api->deleteLater(); });
}

KioskApi *StaffSession::makeClient(const QString &token, QObject *parent)
{
    auto *client = new sync::ApiClient(m_server);
    client->setToken(token);
    client->setTimeoutMs(m_timeoutMs);
    auto *api = new KioskApi(*client, parent);
    client->setParent(api); // the connection lives exactly as long as its client
    return api;
}

void StaffSession::sendJson(const QByteArray &verb, const QString &path, const QJsonObject &body, QObject *context, KioskApi::Callback callback)
{
    if (!m_client)
        return;
    QPointer<QObject> guard(context);
    m_client->request(QString::fromLatin1(verb), path, body, QString(), [guard, callback = std::move(callback)](const sync::ApiResult &result) {
        if (guard)
            callback(KioskApi::classify(result));
    });
}

bool StaffSession::handleUnauthorized(const ApiReply &reply)
{
    if (reply.status != 401 || !signedIn())
        return false;
    if (reply.code == QLatin1String("session_locked")) {
        // The server locked the session after inactivity: the same lock screen, the password unlocks both.
        setLocked(true);
        return true;
    }
    signOut();
    setErrorString(tr("Your session has ended. Please sign in again."));
    return true;
}

QString StaffSession::roleLabel() const
{
    if (m_role == QLatin1String("cashier"))
        return tr("Cashier");
    if (m_role == QLatin1String("manager"))
        return tr("Manager");
    if (m_role == QLatin1String("admin"))
        return tr("Administrator");
    return m_role; // a role this app does not know yet: its code rather than nothing
}

namespace {
// PBKDF2 with enough rounds that the in-memory verifier is no cheap oracle, few enough for an unlock to feel instant.
constexpr int kVerifierRounds = 60000;
constexpr int kVerifierBytes = 32;
constexpr int kOfflineMissesBeforeSignOut = 5;

QByteArray deriveVerifier(const QString &password, const QByteArray &salt)
{
    return QPasswordDigestor::deriveKeyPbkdf2(QCryptographicHash::Sha256, password.toUtf8(), salt, kVerifierRounds, kVerifierBytes);
}

bool sameBytes(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0; // every byte compared: the time says nothing about where they differ
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}
} // namespace

void StaffSession::rememberVerifier(const QString &password)
{
    forgetVerifier();
    m_verifierSalt.resize(16);
    QRandomGenerator::system()->generate(m_verifierSalt.begin(), m_verifierSalt.end());
    m_verifier = deriveVerifier(password, m_verifierSalt);
    m_offlineMisses = 0;
}

void StaffSession::forgetVerifier()
{
    m_verifier.fill('\0');
    m_verifier.clear();
    m_verifierSalt.clear();
    m_offlineMisses = 0;
}

bool StaffSession::matchesVerifier(const QString &password)
{
    if (sameBytes(deriveVerifier(password, m_verifierSalt), m_verifier)) {
        m_offlineMisses = 0;
        qCInfo(lcStaff) << m_name << "unlocked while the server cannot be reached (password checked on this till)";
        return true;
    }
    ++m_offlineMisses;
    qCWarning(lcStaff) << "wrong password at an offline unlock for" << m_name << "(" << m_offlineMisses << "of" << kOfflineMissesBeforeSignOut << ")";
    if (m_offlineMisses >= kOfflineMissesBeforeSignOut) {
        signOut();
        setErrorString(tr("Too many wrong attempts: sign in again."));
        return false;
    }
    setErrorString(tr("That password is not right (the server cannot be reached; checked on this till, %n attempt(s) left).", nullptr,
                      kOfflineMissesBeforeSignOut - m_offlineMisses));
    return false;
}

} // namespace marquee::app
