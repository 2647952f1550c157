// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "devicecredentials.h"

#include <QByteArray>
#include <QObject>
#include <QVariantMap>
#include <QString>
#include <QUrl>
#include <QtQml/qqmlregistration.h>
#include <memory>
#include <optional>

class QQmlEngine;
class QJSEngine;

namespace marquee::sync {
class ApiClient;
}

namespace marquee::app {

/**
 * @brief A kiosk or till pairs itself with the one-time code of `marquee-admin device add --pairing` (QML singleton
 * Pairing: the first-run screen, Pairing/PairingMain.qml; `marquee --pair` runs the same steps without a screen).
 *
 * Trust before the token: with a venue CA fingerprint (printed with the code and by `marquee-admin tls show`), the
 * device first fetches GET /api/v1/venue-ca over a connection it cannot verify yet — nothing secret is sent on it —
 * and keeps the certificate only when its SHA-256 equals the fingerprint. That CA is then the only trust anchor of
 * POST /api/v1/devices/pair (the code goes only to a server the venue CA vouches for) and of every request after.
 * With --ca-file the file is the anchor (a fingerprint, if given, must match it). Without either, https trusts the
 * system's CAs (a server with a public certificate) and plain http is allowed only to loopback or with
 * --allow-insecure-http. On success the credentials are saved (DeviceCredentials) and the token is never exposed
 * to QML.
 */
class DevicePairing : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Pairing)
    QML_SINGLETON
    /** @brief The server address to offer (from --server or the config file); the screen may change it. */
    Q_PROPERTY(QString server READ server CONSTANT)
    /** @brief The fingerprint to offer (--ca-fingerprint). */
    Q_PROPERTY(QString fingerprint READ fingerprint CONSTANT)
    /** @brief The window fills the screen (--fullscreen, the kiosk). */
    Q_PROPERTY(bool fullscreen READ fullscreen CONSTANT)
    /** @brief idle, checking (fetching the venue CA), pairing, paired or failed. */
    Q_PROPERTY(QString state READ state NOTIFY stateChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY stateChanged)
    /**
     * @brief Why the last attempt failed: address, code_format, fingerprint_format, code_unknown, code_used,
     * code_expired, device_exists, locked, unreachable, ca_mismatch, untrusted, no_venue_ca, storage or server.
     */
    Q_PROPERTY(QString errorKind READ errorKind NOTIFY stateChanged)
    /** @brief What went wrong, for the person at the device (translated). */
    Q_PROPERTY(QString errorString READ errorString NOTIFY stateChanged)
    /** @brief A locked pairing (429) ends after this many seconds; 0 otherwise. */
    Q_PROPERTY(int retryAfterSeconds READ retryAfterSeconds NOTIFY stateChanged)
    /** @brief Once paired: the device's name and role (kiosk, till) as the server enrolled it. */
    Q_PROPERTY(QString deviceName READ deviceName NOTIFY stateChanged)
    Q_PROPERTY(QString deviceRole READ deviceRole NOTIFY stateChanged)
    /** @brief Once paired: whether a venue CA was verified and stored (false: http, or the system's CAs). */
    Q_PROPERTY(bool venueCaStored READ venueCaStored NOTIFY stateChanged)
public:
    struct Options {
        QUrl server;                ///< offered on the screen
        QString fingerprint;        ///< offered on the screen
        QString credentialsPath;    ///< where the credentials are saved
        QString caFile;             ///< --ca-file: the trust anchor, instead of a fetched CA
        bool allowInsecureHttp = false;
        bool fullscreen = false;
        int timeoutMs = 8000;

        /** @brief The options @p config asks for (--server, --ca-fingerprint, --credentials, --ca-file, ...). */
        static Options from(const AppConfig &config);
    };
    explicit DevicePairing(Options options, QObject *parent = nullptr);
    ~DevicePairing() override;

    static DevicePairing *create(QQmlEngine *, QJSEngine *engine);
    static void setInstance(DevicePairing *pairing);

    QString server() const { return m_options.server.toString(); }
    QString fingerprint() const { return m_options.fingerprint; }
    bool fullscreen() const { return m_options.fullscreen; }
    QString state() const { return m_state; }
    bool busy() const { return m_state == QLatin1String("checking") || m_state == QLatin1String("pairing"); }
    QString errorKind() const { return m_errorKind; }
    QString errorString() const { return m_errorString; }
    int retryAfterSeconds() const { return m_retryAfterSeconds; }
    QString deviceName() const { return m_credentials ? m_credentials->deviceName : QString(); }
    QString deviceRole() const { return m_credentials ? m_credentials->role : QString(); }
    bool venueCaStored() const { return m_credentials && !m_credentials->caPem.isEmpty(); }
    /** @brief What was saved, once paired. */
    std::optional<DeviceCredentials> credentials() const { return m_credentials; }

    /** @brief Pair with @p code at @p server (no scheme: https://), checking the venue CA against @p fingerprint. */
    Q_INVOKABLE void pair(const QString &server, const QString &code, const QString &fingerprint);
    /**
     * @brief What a scanner typed into the code field, read as the pairing QR of marquee-admin: {code, fingerprint}
     * (fingerprint empty when the QR has none), or an empty object when @p text is no such QR (a typed code).
     */
    Q_INVOKABLE QVariantMap scanned(const QString &text) const;
    /** @brief Leave the screen for the role's screens (after pairing). */
    Q_INVOKABLE void proceed();

    /** @brief @p text as 64 upper-case hex digits (colons, spaces and case ignored), or empty if it is not a SHA-256. */
    static QString normalizedFingerprint(const QString &text);
    /** @brief SHA-256 of the first certificate in @p pem as colon-separated upper-case hex (marquee-admin's form). */
    static QString fingerprintOf(const QByteArray &pem);

Q_SIGNALS:
    void stateChanged();
    /** @brief One attempt ended: paired (credentials saved) or failed (errorKind, errorString). */
    void finished(bool paired);
    /** @brief The screen is done; the app goes on to the role's screens. */
    void proceedRequested();

private:
    void fail(const QString &kind, const QString &message, int retryAfterSeconds = 0);
    void setState(const QString &state);
    void redeem(const QByteArray &caPem);
    QString unreachable(const QString &detail) const;

    Options m_options;
    QString m_state = QStringLiteral("idle");
    QString m_errorKind;
    QString m_errorString;
    int m_retryAfterSeconds = 0;
    std::optional<DeviceCredentials> m_credentials;
    std::unique_ptr<sync::ApiClient> m_client;
    QUrl m_url;
    QString m_code;
    QString m_expectedFingerprint;
    static inline DevicePairing *s_instance = nullptr;
};

/**
 * @brief `marquee --pair --server URL [--ca-fingerprint HEX]`: the code from one line of standard input (a secret:
 * never on the command line), the same steps and credentials file as the screen; one line on stdout (paired) or
 * stderr (why not). Returns the process's exit status: 0 paired, 1 refused or failed, 2 bad usage.
 */
int pairHeadless(const DevicePairing::Options &options);

} // namespace marquee::app
