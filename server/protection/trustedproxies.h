// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QString>
#include <optional>

class QHttpServerRequest;

namespace marquee::protection {

/**
 * @brief The reverse proxies (HAProxy terminating TLS) whose X-Forwarded-For the server believes.
 *
 * Behind a proxy every request comes from the proxy's address, so per-address limits, the sign-in throttle and
 * the access log would all see one client. The proxy appends the address it saw to X-Forwarded-For; a client can
 * put anything before it. So the header is read only when the TCP peer is a trusted proxy, from the right: the
 * last entry is the one that proxy added, and entries added by further trusted proxies in front of it are
 * skipped. From any other peer the header is ignored and the peer's own address is the client's.
 */
class TrustedProxies
{
public:
    /** @brief "ADDR[/BITS][,ADDR[/BITS]...]" (IPv4 or IPv6); std::nullopt and @p error on anything else. */
    static std::optional<TrustedProxies> parse(const QString &text, QString *error);

    bool isEmpty() const { return m_subnets.isEmpty(); }
    /** @brief Whether @p peer is one of the trusted proxies. */
    bool contains(const QHostAddress &peer) const;
    /** @brief The client's address of a request from @p peer carrying these X-Forwarded-For header values. */
    QHostAddress clientAddress(const QHostAddress &peer, const QList<QByteArray> &forwardedFor) const;
    /** @brief The same for a parsed request: its remote address and its X-Forwarded-For headers. */
    QHostAddress clientAddress(const QHttpServerRequest &request) const;
    /** @brief As parse() takes it. */
    QString toString() const;

private:
    QList<QPair<QHostAddress, int>> m_subnets;
};

/** @brief @p address with an IPv4 client of a dual-stack socket (::ffff:a.b.c.d) as the IPv4 address. */
QHostAddress plainAddress(const QHostAddress &address);

} // namespace marquee::protection
