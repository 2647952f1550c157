// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QHostAddress>
#include <QString>
#include <QThread>
#include <memory>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

class ServerPool;

/**
 * @brief GET /metrics in Prometheus text format, on its own listen address and thread.
 *
 * Apart from the API port so that it can stay on loopback (or a monitoring network) while the API faces the
 * venue, and on its own thread so that a scrape never waits behind requests, nor they behind it. It serves only
 * `GET /metrics`; everything else is 404.
 */
class MetricsEndpoint
{
public:
    MetricsEndpoint(ServerContext &context, const ServerPool &pool);
    ~MetricsEndpoint();

    /** @brief Listen on @p address:@p port (0: a free port, see port()). False with errorString(). */
    bool start(const QHostAddress &address, quint16 port);
    quint16 port() const { return m_port; }
    QString errorString() const { return m_error; }

    /** @brief The whole exposition, as GET /metrics answers it (on the calling thread's database connection). */
    static QByteArray collect(ServerContext &context, const ServerPool &pool);

private:
    ServerContext &m_context;
    const ServerPool &m_pool;
    std::unique_ptr<QThread> m_thread;
    quint16 m_port = 0;
    QString m_error;
};

} // namespace marquee::http
