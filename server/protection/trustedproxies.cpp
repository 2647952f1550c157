// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/trustedproxies.h"

#include <QHttpServerRequest>
#include <QStringList>

namespace marquee::protection {

QHostAddress plainAddress(const QHostAddress &address)
{
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    return isV4 ? QHostAddress(v4) : address;
}

std::optional<TrustedProxies> TrustedProxies::parse(const QString &text, QString *error)
{
    TrustedProxies proxies;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString entry = part.trimmed();
        QPair<QHostAddress, int> subnet;
        if (entry.contains(QLatin1Char('/'))) {
            subnet = QHostAddress::parseSubnet(entry);
        } else if (subnet.first.setAddress(entry)) {
            subnet.first = plainAddress(subnet.first);
            subnet.second = subnet.first.protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
        }
        if (subnet.first.isNull() || subnet.second < 0) {
            *error = QStringLiteral("--trusted-proxy expects IP addresses or subnets (ADDR[/BITS]) separated by commas, got %1").arg(entry);
            return std::nullopt;
        }
        proxies.m_subnets << subnet;
    }
    return proxies;
}

bool TrustedProxies::contains(const QHostAddress &peer) const
{
    const QHostAddress address = plainAddress(peer);
    for (const auto &subnet : m_subnets) {
        if (address.isInSubnet(subnet))
            return true;
    }
    return false;
}

QHostAddress TrustedProxies::clientAddress(const QHostAddress &peer, const QList<QByteArray> &forwardedFor) const
{
    QHostAddress client = plainAddress(peer);
    if (forwardedFor.isEmpty() || !contains(client))
        return client;
    // Several headers are one comma-separated list in their order (RFC 9110, 5.3).
    QList<QByteArray> hops;
    for (const QByteArray &value : forwardedFor)
        hops += value.split(',');
    for (qsizetype i = hops.size() - 1; i >= 0; --i) {
        QHostAddress hop;
        if (!hop.setAddress(QString::fromLatin1(hops[i].trimmed())))
            return client; // not what a proxy writes: believe nothing further left
        client = plainAddress(hop);
        if (!contains(client))
            return client;
    }
    return client;
}

QHostAddress TrustedProxies::clientAddress(const QHttpServerRequest &request) const
{
    QList<QByteArray> forwardedFor;
    if (!isEmpty()) {
        for (const auto &[name, value] : request.headers()) {
            if (name.compare("X-Forwarded-For", Qt::CaseInsensitive) == 0)
                forwardedFor << value;
        }
    }
    return clientAddress(request.remoteAddress(), forwardedFor);
}

QString TrustedProxies::toString() const
{
    QStringList parts;
    for (const auto &subnet : m_subnets)
        parts << QStringLiteral("%1/%2").arg(subnet.first.toString()).arg(subnet.second);
    return parts.join(QLatin1Char(','));
}

} // namespace marquee::protection
