// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/router.h"

#include <QHostAddress>
#include <QString>
#include <QThread>
#include <memory>
#include <vector>

namespace marquee {
class LiveFanout;
struct ServerContext;
} // namespace marquee

namespace marquee::metrics {
class RequestMetrics;
}

namespace marquee::http {

/**
 * @brief N worker threads, each with its own event loop, HTTP server and database connection, all accepting on
 * one port through SO_REUSEPORT listeners (the kernel spreads connections across them). Live seat-map
 * subscribers move on to the LiveFanout threads once their request has been checked.
 *
 * SO_REUSEPORT would also let a second marquee-server of the same user join the port silently (the kernel would
 * split the connections between two processes). So the port is claimed first, atomically and for the pool's life,
 * by binding an abstract Unix socket named after it (`@marquee-server-port-<port>`): a bind either owns the name
 * or fails, with no window between a check and the bind, and the kernel lets go of it when the process ends, however
 * it ends. A plain bind without SO_REUSEPORT then proves that no other program holds the port.
 */
class ServerPool
{
public:
    ServerPool(const Router &router, ServerContext &context);
    ~ServerPool();

    /** @brief Bind and start; port 0 picks a free port (see port()). False with errorString(). */
    bool start(const QHostAddress &address, quint16 port, int threads);
    void stop();
    quint16 port() const { return m_port; }
    QString errorString() const { return m_error; }
    /** @brief Every answer of every worker, by route and status (GET /metrics). */
    const metrics::RequestMetrics &requestMetrics() const { return *m_requestMetrics; }
    /** @brief The live seat-map fan-out; null before start(). */
    const LiveFanout *liveFanout() const { return m_liveFanout.get(); }

private:
    const Router &m_router;
    ServerContext &m_context;
    std::unique_ptr<metrics::RequestMetrics> m_requestMetrics; ///< outlives the workers, which record into it
    std::unique_ptr<LiveFanout> m_liveFanout; ///< outlives the workers: they hand it their WebSocket subscribers
    std::vector<std::unique_ptr<QThread>> m_threads;
    quint16 m_port = 0;
    int m_portClaim = -1; ///< the abstract Unix socket that claims m_port for this process
    QString m_error;
};

} // namespace marquee::http
