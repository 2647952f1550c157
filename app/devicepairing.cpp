// SPDX-License-Identifier: AGPL-3.0-or-later
#include "devicepairing.h"
#include "applogging.h"
#include "core/pairingscan.h"

#include "sync/apiclient.h"
#include "sync/transportsecurity.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJSEngine>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QTextStream>

namespace marquee::app {

namespace {
const QString kVenueCaPath = QStringLiteral("/api/v1/venue-ca");
const QString kPairPath = QStringLiteral("/api/v1/devices/pair");

/** @brief What the person typed as an address: no scheme means https, and only the origin counts. */
QUrl serverUrl(const QString &typed)
{
    QString text = typed.trimmed();
    if (!text.contains(QStringLiteral("://")))
        text.prepend(QStringLiteral("https://"));
    QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return {};
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("https") && scheme != QLatin1String("http"))
        return {};
    url.setPath(QString());
    url.setQuery(QString());
    url.setFragment(QString());
    return url.adjusted(QUrl::StripTrailingSlash);
}

/** @brief The code without dashes and spaces: 8 letters and digits, or empty (the server checks the alphabet). */
QString codeShape(const QString &typed)
{
    QString code = typed;
    code.remove(QRegularExpression(QStringLiteral("[\\s-]")));
    static const QRegularExpression shape(QStringLiteral("^[0-9A-Za-z]{8}$"));
    return shape.match(code).hasMatch() ? code.toUpper() : QString();
}
} // namespace

DevicePairing::Options DevicePairing::Options::from(const AppConfig &config)
{
    Options options;
    options.server = config.server;
    options.fingerprint = config.caFingerprint;
    options.credentialsPath = app::credentialsPath(config);
    options.caFile = config.caFile;
    options.allowInsecureHttp = config.allowInsecureHttp;
    options.fullscreen = config.fullscreen;
    options.timeoutMs = config.requestTimeoutMs;
    return options;
}

DevicePairing::DevicePairing(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
}

DevicePairing::~DevicePairing()
{
    if (s_instance == this)
        s_instance = nullptr;
}

DevicePairing *DevicePairing::create(QQmlEngine *, QJSEngine *)
{
    if (!s_instance) {
        // QML component tests load the screen without the app: a pairing that saves nowhere useful.
        Options options;
        options.credentialsPath = QDir::tempPath() + QStringLiteral("/marquee-qmltest-device.json");
        s_instance = new DevicePairing(options);
        return s_instance; // owned by the engine
    }
    QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
    return s_instance;
}

void DevicePairing::setInstance(DevicePairing *pairing)
{
    s_instance = pairing;
}

QString DevicePairing::normalizedFingerprint(const QString &text)
{
    QString hex = text.trimmed().toUpper();
    hex.remove(QRegularExpression(QStringLiteral("[\\s:]")));
    static const QRegularExpression sha256(QStringLiteral("^[0-9A-F]{64}$"));
    return sha256.match(hex).hasMatch() ? hex : QString();
}

QString DevicePairing::fingerprintOf(const QByteArray &pem)
{
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(pem, QSsl::Pem);
    if (certificates.isEmpty())
        return {};
    return QString::fromLatin1(certificates.first().digest(QCryptographicHash::Sha256).toHex(':').toUpper());
}

void DevicePairing::setState(const QString &state)
{
    m_state = state;
    Q_EMIT stateChanged();
}

void DevicePairing::fail(const QString &kind, const QString &message, int retryAfterSeconds)
{
    m_errorKind = kind;
    m_errorString = message;
    m_retryAfterSeconds = retryAfterSeconds;
    m_client.reset();
    qCInfo(lcPairing) << "pairing failed:" << kind << message;
    setState(QStringLiteral("failed"));
    Q_EMIT finished(false);
}

QString DevicePairing::unreachable(const QString &detail) const
{
    return tr("The server at %1 cannot be reached (%2). Check the address and the network, then try again.").arg(m_url.toDisplayString(), detail);
}

QVariantMap DevicePairing::scanned(const QString &text) const
{
    const std::optional<PairingScan> scan = parsePairingScan(text);
    if (!scan)
        return {};
    return QVariantMap{{QStringLiteral("code"), scan->code}, {QStringLiteral("fingerprint"), scan->fingerprint}};
}

void DevicePairing::pair(const QString &server, const QString &codeOrScan, const QString &typedFingerprint)
{
    if (busy())
        return;
    m_errorKind.clear();
    m_errorString.clear();
    m_retryAfterSeconds = 0;
    m_credentials.reset();
    // The pairing QR (scanned into the code field, or piped to --pair) brings the fingerprint along; one typed as
    // well must be the same.
    QString code = codeOrScan;
    QString fingerprint = typedFingerprint;
    if (const std::optional<PairingScan> scan = parsePairingScan(codeOrScan)) {
        code = scan->code;
        if (fingerprint.trimmed().isEmpty())
            fingerprint = scan->fingerprint;
        else if (!scan->fingerprint.isEmpty() && normalizedFingerprint(fingerprint) != normalizedFingerprint(scan->fingerprint)) {
            fail(QStringLiteral("fingerprint_format"), tr("The fingerprint typed is not the one in the scanned pairing code: check which is the venue's."));
            return;
        }
    }
    m_url = serverUrl(server);
    if (m_url.isEmpty()) {
        fail(QStringLiteral("address"), tr("“%1” is not a server address. Type it like https://tickets.venue.example.").arg(server.trimmed()));
        return;
    }
    const sync::TransportPolicy plain{m_options.allowInsecureHttp, std::nullopt};
    if (sync::TransportPolicy::isInsecure(m_url) && !m_options.allowInsecureHttp) {
        fail(QStringLiteral("address"), tr("Plain http:// to another machine is refused: anyone on the network could read the code and the "
                                           "token. Use https:// and the venue certificate fingerprint."));
        return;
    }
    m_code = codeShape(code);
    if (m_code.isEmpty()) {
        fail(QStringLiteral("code_format"), tr("A pairing code is 8 letters and digits, like 7K3M-Q9TZ."));
        return;
    }
    m_expectedFingerprint.clear();
    if (!fingerprint.trimmed().isEmpty()) {
        m_expectedFingerprint = normalizedFingerprint(fingerprint);
        if (m_expectedFingerprint.isEmpty()) {
            fail(QStringLiteral("fingerprint_format"), tr("A certificate fingerprint is 64 hexadecimal digits (SHA-256), pairs may be "
                                                          "separated by colons, as marquee-admin prints it."));
            return;
        }
    }

    // --ca-file: the operator gave the anchor; a fingerprint, if typed, must be its own.
    if (!m_options.caFile.isEmpty()) {
        QFile file(m_options.caFile);
        const QByteArray pem = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        if (fingerprintOf(pem).isEmpty()) {
            fail(QStringLiteral("storage"), tr("The venue CA file %1 cannot be read or holds no certificate.").arg(m_options.caFile));
            return;
        }
        if (!m_expectedFingerprint.isEmpty() && normalizedFingerprint(fingerprintOf(pem)) != m_expectedFingerprint) {
            fail(QStringLiteral("ca_mismatch"), tr("The venue CA file %1 does not have the fingerprint you typed. Do not pair: check both with "
                                                   "the manager (marquee-admin tls show).").arg(m_options.caFile));
            return;
        }
        redeem(pem);
        return;
    }
    if (m_expectedFingerprint.isEmpty()) {
        // No anchor of the venue's own: https trusts the system's CAs, http is loopback or allowed.
        redeem({});
        return;
    }

    // The CA is fetched over a connection nothing vouches for yet: only a certificate with the fingerprint the
    // operator gave is kept, and nothing secret goes over this connection.
    setState(QStringLiteral("checking"));
    sync::TransportPolicy unverified = plain;
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    tls.setProtocol(QSsl::TlsV1_2OrLater);
    unverified.tls = tls;
    m_client = std::make_unique<sync::ApiClient>(m_url);
    m_client->setTransport(unverified);
    m_client->setTimeoutMs(m_options.timeoutMs);
    m_client->request(QStringLiteral("GET"), kVenueCaPath, {}, {}, [this](const sync::ApiResult &result) {
        if (result.kind == sync::ApiResult::Kind::NetworkError) {
            fail(QStringLiteral("unreachable"), unreachable(result.networkError));
            return;
        }
        if (result.status == 404 && result.error.code == QLatin1String("venue_ca_not_configured")) {
            fail(QStringLiteral("no_venue_ca"), tr("This server has no venue certificate to check the fingerprint against (marquee-server "
                                                   "--venue-ca-file). Ask the manager."));
            return;
        }
        if (!result.ok()) {
            fail(QStringLiteral("server"), tr("The server did not send its venue certificate (%1). Check the address.").arg(result.describe()));
            return;
        }
        const QList<QSslCertificate> certificates = QSslCertificate::fromData(result.body, QSsl::Pem);
        const QByteArray pem = certificates.isEmpty() ? QByteArray() : certificates.first().toPem();
        if (normalizedFingerprint(fingerprintOf(pem)) != m_expectedFingerprint) {
            fail(QStringLiteral("ca_mismatch"), tr("The server's venue certificate does not have the fingerprint you typed. Do not pair: check "
                                                   "the fingerprint with the manager (marquee-admin tls show) and the server address."));
            return;
        }
        redeem(pem);
    });
}

void DevicePairing::redeem(const QByteArray &caPem)
{
    setState(QStringLiteral("pairing"));
    sync::TransportPolicy policy{m_options.allowInsecureHttp, std::nullopt};
    if (!caPem.isEmpty()) {
        QString error;
        policy.tls = sync::TransportPolicy::venueTlsFromPem(caPem, &error);
        if (!policy.tls) {
            fail(QStringLiteral("ca_mismatch"), error);
            return;
        }
    }
    // A fresh client: the unverified connection of the CA fetch is never reused for the code.
    m_client = std::make_unique<sync::ApiClient>(m_url);
    m_client->setTransport(policy);
    m_client->setTimeoutMs(m_options.timeoutMs);
    m_client->request(QStringLiteral("POST"), kPairPath, QJsonObject{{QStringLiteral("code"), m_code}}, {}, [this, caPem](const sync::ApiResult &result) {
        if (result.kind == sync::ApiResult::Kind::NetworkError) {
            if (result.tlsFailed)
                fail(QStringLiteral("untrusted"),
                     caPem.isEmpty() ? tr("The server's certificate is not trusted by this device. Type the venue certificate fingerprint "
                                          "(printed with the code, and by marquee-admin tls show) and try again.")
                                     : tr("The server at %1 does not prove that it belongs to the venue certificate (its certificate is "
                                          "not signed by it, or not for this address). Check the address with the manager.")
                                           .arg(m_url.host()));
            else
                fail(QStringLiteral("unreachable"), unreachable(result.networkError));
            return;
        }
        if (!result.ok()) {
            const QString code = result.error.code;
            if (code == QLatin1String("pairing_code_not_found"))
                fail(QStringLiteral("code_unknown"), tr("This pairing code is not known. Check it (letters and digits as printed) or ask for a new one."));
            else if (code == QLatin1String("pairing_code_used"))
                fail(QStringLiteral("code_used"), tr("This pairing code was used already. Ask the manager for a new code."));
            else if (code == QLatin1String("pairing_code_expired"))
                fail(QStringLiteral("code_expired"), tr("This pairing code has expired (codes are valid for 15 minutes). Ask the manager for a new code."));
            else if (code == QLatin1String("device_exists"))
                fail(QStringLiteral("device_exists"), tr("A device of this code's name was enrolled meanwhile. Ask the manager for a new code."));
            else if (code == QLatin1String("invalid_pairing_code"))
                fail(QStringLiteral("code_format"), tr("A pairing code is 8 letters and digits, like 7K3M-Q9TZ."));
            else if (result.status == 429) {
                const int seconds = qMax(1, result.error.extra.value(QStringLiteral("retry_after_s")).toInt(60));
                const int minutes = (seconds + 59) / 60;
                fail(QStringLiteral("locked"),
                     tr("Too many wrong pairing codes lately: pairing is locked for %n more minute(s). Wait, then try again.", "", minutes), seconds);
            } else
                fail(QStringLiteral("server"), tr("The server could not pair this device now (%1). Try again with the same code.").arg(result.describe()));
            return;
        }
        const QJsonObject answer = result.json();
        DeviceCredentials credentials;
        credentials.server = m_url;
        credentials.token = answer.value(QStringLiteral("token")).toString();
        credentials.deviceId = answer.value(QStringLiteral("device_id")).toInteger();
        credentials.deviceName = answer.value(QStringLiteral("name")).toString();
        credentials.role = answer.value(QStringLiteral("role")).toString();
        credentials.caPem = caPem;
        if (credentials.token.isEmpty() || (credentials.role != QLatin1String("kiosk") && credentials.role != QLatin1String("till"))) {
            fail(QStringLiteral("server"), tr("The server paired a device this app cannot be (role “%1”). Ask the manager.").arg(credentials.role));
            return;
        }
        QString error;
        if (!credentials.save(m_options.credentialsPath, &error)) {
            fail(QStringLiteral("storage"), tr("Paired, but the credentials could not be saved (%1). Ask the manager for a new code.").arg(error));
            return;
        }
        qCInfo(lcPairing) << "paired as" << credentials.deviceName << credentials.role << "with" << m_url.toDisplayString();
        m_client.reset();
        m_credentials = credentials;
        setState(QStringLiteral("paired"));
        Q_EMIT finished(true);
    });
}

void DevicePairing::proceed()
{
    if (m_credentials)
        Q_EMIT proceedRequested();
}

int pairHeadless(const DevicePairing::Options &options)
{
    QTextStream err(stderr);
    if (options.server.isEmpty()) {
        err << "marquee --pair: --server URL is required (the address the venue's server is reached at)" << Qt::endl;
        return 2;
    }
    // The code is a secret: from standard input, never from the command line (ps, shell history).
    QTextStream in(stdin);
    const QString code = in.readLine().trimmed();
    if (code.isEmpty()) {
        err << "marquee --pair: no pairing code on standard input (echo CODE | marquee --pair --server URL)" << Qt::endl;
        return 2;
    }
    // One line of its own, not the app's log lines too (QT_LOGGING_RULES can still turn them on).
    QLoggingCategory::setFilterRules(QStringLiteral("marquee.app.pairing.info=false"));
    DevicePairing pairing(options);
    QEventLoop loop;
    QObject::connect(&pairing, &DevicePairing::finished, &loop, &QEventLoop::quit);
    pairing.pair(options.server.toString(), code, options.fingerprint);
    if (pairing.busy())
        loop.exec();
    if (pairing.state() != QLatin1String("paired")) {
        err << "marquee --pair: not paired (" << pairing.errorKind() << "): " << pairing.errorString() << Qt::endl;
        return 1;
    }
    const auto credentials = *pairing.credentials();
    QTextStream(stdout) << "paired as " << credentials.role << " '" << credentials.deviceName << "' with " << credentials.server.toDisplayString()
                        << (credentials.caPem.isEmpty() ? QStringLiteral(" (no venue CA stored)") : QStringLiteral(" (venue CA verified)"))
                        << "; credentials in " << options.credentialsPath << Qt::endl;
    return 0;
}

} // namespace marquee::app
