// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/connectionlimiter.h"

#include "protection/framingsocket.h"

#include "protection/requestid.h"

#include <QTcpSocket>

namespace marquee::protection {

ConnectionLimiter::ConnectionLimiter(int maxConnections, int maxPerAddress, const TrustedProxies &exempt)
    : m_max(maxConnections)
    , m_maxPerAddress(maxPerAddress)
    , m_exempt(exempt)
{
}

bool ConnectionLimiter::tryOpen(const QHostAddress &address)
{
    QMutexLocker lock(&m_mutex);
    if (m_max > 0 && m_open >= m_max)
        return false;
    if (m_exempt.contains(address)) {
        ++m_open;
        return true;
    }
    int &fromAddress = m_perAddress[address];
    if (m_maxPerAddress > 0 && fromAddress >= m_maxPerAddress) {
        if (fromAddress == 0)
            m_perAddress.remove(address);
        return false;
    }
    ++fromAddress;
    ++m_open;
    return true;
}

void ConnectionLimiter::close(const QHostAddress &address)
{
    QMutexLocker lock(&m_mutex);
    --m_open;
    const auto it = m_perAddress.find(address);
    if (it != m_perAddress.end() && --*it <= 0)
        m_perAddress.erase(it);
}

int ConnectionLimiter::open() const
{
    QMutexLocker lock(&m_mutex);
    return m_open;
}

LimitedTcpServer::LimitedTcpServer(ConnectionLimiter &limiter, const FramingLimits &framing, QObject *parent)
    : QTcpServer(parent)
    , m_limiter(limiter)
    , m_framing(framing)
{
}

void LimitedTcpServer::incomingConnection(qintptr descriptor)
{
    auto *socket = new FramingSocket(m_framing, this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    const QHostAddress peer = socket->peerAddress();
    if (!m_limiter.tryOpen(peer)) {
        socket->disconnect(); // no framing checks or deadlines for an answer that is already decided
        // Cheap and clear: a fixed answer, no parsing, no database; the client may retry later.
        static const QByteArray head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                                       "Connection: close\r\nContent-Length: 87\r\nX-Request-Id: ";
        static const QByteArray body = "\r\n\r\n{\"error\":\"too_many_connections\",\"message\":\"Too many open connections; try again soon.\"}";
        socket->write(head + newRequestId() + body);
        socket->disconnectFromHost();
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        return;
    }
    // QAbstractHttpServer (or the WebSocket that takes the socket over) deletes it when the connection ends.
    ConnectionLimiter *limiter = &m_limiter;
    connect(socket, &QObject::destroyed, [limiter, peer] { limiter->close(peer); });
    addPendingConnection(socket);
}

} // namespace marquee::protection
