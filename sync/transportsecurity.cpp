// SPDX-License-Identifier: AGPL-3.0-or-later
#include "transportsecurity.h"

#include <QFile>
#include <QHostAddress>
#include <QSslCertificate>
#include <QSslSocket>

namespace marquee::sync {

namespace {
TransportPolicy &processPolicy()
{
    static TransportPolicy policy;
    return policy;
}
} // namespace

bool TransportPolicy::isLoopback(const QUrl &url)
{
    const QString host = url.host();
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

bool TransportPolicy::isInsecure(const QUrl &url)
{
    const QString scheme = url.scheme().toLower();
    return (scheme == QLatin1String("http") || scheme == QLatin1String("ws")) && !isLoopback(url);
}

QString TransportPolicy::refusal(const QUrl &url) const
{
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https") && scheme != QLatin1String("ws") && scheme != QLatin1String("wss"))
        return QStringLiteral("%1 is not an http(s) or ws(s) address").arg(url.toDisplayString());
    if (isInsecure(url) && !allowInsecureHttp)
        return QStringLiteral("refusing plain %1:// to %2: anyone on the network could read and change it. Use https:// with the venue CA "
                              "(--ca-file), or start with --allow-insecure-http on a network you trust")
            .arg(scheme, url.host());
    return {};
}

std::optional<QSslConfiguration> TransportPolicy::venueTls(const QString &caFile, QString *error)
{
    QFile file(caFile);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read the CA file %1: %2").arg(caFile, file.errorString());
        return std::nullopt;
    }
    const auto tls = venueTlsFromPem(file.readAll(), error);
    if (!tls)
        *error = QStringLiteral("%1 holds no PEM certificate (marquee-admin tls init writes the venue CA as ca.crt)").arg(caFile);
    return tls;
}

std::optional<QSslConfiguration> TransportPolicy::venueTlsFromPem(const QByteArray &pem, QString *error)
{
    const QList<QSslCertificate> authorities = QSslCertificate::fromData(pem, QSsl::Pem);
    if (authorities.isEmpty()) {
        *error = QStringLiteral("no PEM certificate in the venue CA");
        return std::nullopt;
    }
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    // Only the venue CA: setting the list also stops Qt from loading the system's roots on demand.
    tls.setCaCertificates(authorities);
    tls.setPeerVerifyMode(QSslSocket::VerifyPeer);
    tls.setProtocol(QSsl::TlsV1_2OrLater);
    return tls;
}

const TransportPolicy &TransportPolicy::current()
{
    return processPolicy();
}

void TransportPolicy::install(const TransportPolicy &policy)
{
    processPolicy() = policy;
}

} // namespace marquee::sync
