// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "kioskapi.h"
#include "sync/apiclient.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QtQml/qqmlregistration.h>
#include <functional>

namespace marquee::app {

/**
 * @brief A staff member signed in on a till or desk: `POST /api/v1/sessions` with name and password, a client
 * that carries the session token, a lock after inactivity (the password again unlocks), and re-authentication
 * before sensitive actions (refunds, overrides, the cash drawer). A 401 from the server (session expired or
 * ended) signs the member out.
 *
 * The server checks the password (sign-in, unlock, re-auth); the app never stores it. One exception keeps a box
 * office selling through an outage: a locked screen unlocks while the server cannot be reached if the password
 * matches a salted PBKDF2 verifier of the password the server last accepted in this session, kept in memory only
 * (never on disk, gone at sign-out or restart). Five wrong offline tries sign the member out.
 */
class StaffSession : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the till or desk controller")
    Q_PROPERTY(bool signedIn READ signedIn NOTIFY signedInChanged)
    /** @brief The member's name as typed at sign-in. */
    Q_PROPERTY(QString name READ name NOTIFY signedInChanged)
    /** @brief cashier, manager or admin. */
    Q_PROPERTY(QString role READ role NOTIFY signedInChanged)
    /// The role in the app's language (the header shows it under the member's name).
    Q_PROPERTY(QString roleLabel READ roleLabel NOTIFY signedInChanged)
    /** @brief The screen is locked (inactivity or by hand) until the password is entered again. */
    Q_PROPERTY(bool locked READ locked NOTIFY lockedChanged)
    /** @brief A sensitive action waits for the password: the prompt shows reauthReason. */
    Q_PROPERTY(bool reauthPending READ reauthPending NOTIFY reauthChanged)
    Q_PROPERTY(QString reauthReason READ reauthReason NOTIFY reauthChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    /** @brief Why sign-in, unlock or re-auth failed, for the person at the screen. */
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    /** @brief Seconds without a key or touch before the lock (0: never). */
    Q_PROPERTY(int lockAfterSeconds READ lockAfterSeconds WRITE setLockAfterSeconds NOTIFY lockAfterSecondsChanged)
public:
    /** @brief A session against @p server; @p allowedRoles may sign in here (others are refused). */
    StaffSession(const QUrl &server, const QStringList &allowedRoles, QObject *parent = nullptr);
    ~StaffSession() override;

    bool signedIn() const { return m_api != nullptr; }
    QString name() const { return m_name; }
    QString role() const { return m_role; }
    QString roleLabel() const;
    bool locked() const { return m_locked; }
    bool reauthPending() const { return bool(m_reauthAction); }
    QString reauthReason() const { return m_reauthReason; }
    bool busy() const { return m_busy; }
    QString errorString() const { return m_errorString; }
    int lockAfterSeconds() const { return m_lockAfterSeconds; }
    void setLockAfterSeconds(int seconds);
    QString token() const { return m_token; }
    QDateTime expiresAt() const { return m_expiresAt; }
    /** @brief The client with this session's token; null while signed out. */
    KioskApi *api() const { return m_api; }
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    /**
     * @brief The enrolled device's own token (`--token`), sent with sign-in so the server binds the session to this
     * till or desk and the audit log names it; empty: sessions without a device.
     */
    void setDeviceToken(const QString &token) { m_anonymousClient.setToken(token); }
    /** @brief A client for @p token (its sync::ApiClient is its child), owned by @p parent. */
    KioskApi *makeClient(const QString &token, QObject *parent);
    /**
     * @brief PATCH or PUT @p path with the session's token (the kiosk's client has neither: kiosks never edit).
     * @p callback runs unless @p context is gone.
     */
    void sendJson(const QByteArray &verb, const QString &path, const QJsonObject &body, QObject *context, KioskApi::Callback callback);

    Q_INVOKABLE void signIn(const QString &name, const QString &password);
    Q_INVOKABLE void signOut();
    Q_INVOKABLE void lock();
    Q_INVOKABLE void unlock(const QString &password);
    /** @brief Run @p action once the member has typed the password again (cancelReauth() drops it). */
    void requireReauth(const QString &reason, std::function<void()> action);
    Q_INVOKABLE void confirmReauth(const QString &password);
    Q_INVOKABLE void cancelReauth();
    /**
     * @brief A manager authorises one action at this till: their name and password open a short session of
     * their own; @p done gets its token (empty and a message when refused). The manager session is ended after use
     * by endOverride().
     */
    void managerOverride(const QString &name, const QString &password, std::function<void(const QString &token, const QString &error)> done);
    void endOverride(const QString &token);
    /** @brief Any key or touch: restarts the inactivity timer. */
    Q_INVOKABLE void activity();
    /** @brief Call with every failed reply: a 401 means the session is gone, so the member is signed out. */
    bool handleUnauthorized(const ApiReply &reply);

Q_SIGNALS:
    void signedInChanged();
    void lockedChanged();
    void reauthChanged();
    void busyChanged();
    void errorStringChanged();
    void lockAfterSecondsChanged();
    /** @brief api() is a new client (a fresh session replaced the old one): models holding the old one reload. */
    void apiChanged();
    /** @brief Sign-out starts: the token still works, so controllers release what they hold now. */
    void aboutToSignOut();
    /** @brief The session ended (sign-out, expiry): controllers drop what they hold. */
    void endedSession();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /**
     * @brief The server checks @p password for the signed-in member; @p done(ok). With @p offlineFallback, a server
     * that cannot be reached leaves the check to the in-memory verifier (unlock only: re-auth elevates on the server).
     */
    void verifyPassword(const QString &password, std::function<void(bool ok)> done, bool offlineFallback = false);
    /** @brief The server accepted @p password: keep its verifier for an unlock while the server cannot be reached. */
    void rememberVerifier(const QString &password);
    void forgetVerifier();
    /** @brief The offline unlock: @p password against the verifier; false (and the reason shown) otherwise. */
    bool matchesVerifier(const QString &password);
    /** @brief POST /sessions/reauth on @p api with @p secret (as a PIN when it looks like one, unless @p asPassword). */
    void reauthenticate(KioskApi *api, const QString &secret, bool asPassword, std::function<void(const ApiReply &)> done);
    void openSession(const QString &name, const QString &password, std::function<void(const ApiReply &)> done);
    void setBusy(bool busy);
    void setErrorString(const QString &error);
    void setLocked(bool locked);
    void adoptToken(const QString &token, const QDateTime &expiresAt);

    QUrl m_server;
    QStringList m_allowedRoles;
    sync::ApiClient m_anonymousClient; // sign-in needs no token
    KioskApi m_anonymous;
    KioskApi *m_api = nullptr;
    sync::ApiClient *m_client = nullptr; // m_api's connection (PATCH and PUT go through it directly)
    QString m_token;
    QDateTime m_expiresAt;
    QString m_name;
    QString m_role;
    bool m_locked = false;
    bool m_busy = false;
    QString m_errorString;
    QString m_reauthReason;
    std::function<void()> m_reauthAction;
    int m_lockAfterSeconds = 300;
    int m_timeoutMs = 8000;
    QByteArray m_verifierSalt;   ///< random, per sign-in
    QByteArray m_verifier;       ///< PBKDF2-HMAC-SHA256 of the password the server last accepted, memory only
    int m_offlineMisses = 0;     ///< wrong passwords at an offline unlock since the last right one
    QTimer m_idle;
};

} // namespace marquee::app
