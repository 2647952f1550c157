// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "protection/requestframer.h"
#include "protection/trustedproxies.h"

#include <QHash>
#include <QHostAddress>
#include <QMutex>
#include <QTcpServer>

namespace marquee::protection {

/**
 * @brief Counts open connections per process and per client address, shared by every worker thread. A connection
 * over a limit is answered with a fixed 503 and closed before any HTTP parsing (see LimitedTcpServer).
 */
class ConnectionLimiter
{
public:
    /** @brief Connections from @p exempt (the trusted proxies, which carry many clients) count only towards
     *  @p maxConnections. */
    ConnectionLimiter(int maxConnections, int maxPerAddress, const TrustedProxies &exempt = {});

    /** @brief Count a new connection from @p address; false (and nothing counted) when over a limit. */
    bool tryOpen(const QHostAddress &address);
    void close(const QHostAddress &address);
    int open() const;

private:
    const int m_max;
    const int m_maxPerAddress;
    const TrustedProxies m_exempt;
    mutable QMutex m_mutex;
    int m_open = 0;
    QHash<QHostAddress, int> m_perAddress;
};

/**
 * @brief A QTcpServer that admits a connection only under the ConnectionLimiter's limits, as a FramingSocket
 * (strict framing, size limits and timeouts before Qt's parser).
 */
class LimitedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    LimitedTcpServer(ConnectionLimiter &limiter, const FramingLimits &framing, QObject *parent = nullptr);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    ConnectionLimiter &m_limiter;
    FramingLimits m_framing;
};

} // namespace marquee::protection
