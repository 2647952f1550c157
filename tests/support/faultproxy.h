// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <memory>

class QThread;

namespace marquee::test {

class FaultProxyWorker;

/**
 * @brief A fault-injecting TCP proxy on 127.0.0.1 between a client and a real server, running in its own
 * thread. It passes bytes through, or cuts a connection mid-request (part of the request reaches the server)
 * or mid-response (the server has answered, the client sees half of it), resets new connections, refuses them
 * for a while (the listening socket is closed), or blackholes them (accepts and never answers).
 *
 * Thread-safe: tests call it from their own thread while the client and server run elsewhere.
 */
class FaultProxy
{
public:
    enum class Mode {
        Pass,        ///< forward both ways
        CutRequest,  ///< forward half of the next request chunk, then abort both sides
        CutResponse, ///< forward the request, half of the response chunk, then abort both sides
        Reset,       ///< accept and reset at once (RST)
        Blackhole,   ///< accept, read, never forward or answer; existing connections go silent too
    };

    explicit FaultProxy(quint16 upstreamPort);
    ~FaultProxy();
    FaultProxy(const FaultProxy &) = delete;
    FaultProxy &operator=(const FaultProxy &) = delete;

    /** @brief The proxy's loopback port (stable across dropFor()). */
    quint16 port() const;
    /**
     * @brief Inject @p mode; after @p count injected faults the proxy returns to Pass (-1: until changed).
     * Pass and Blackhole ignore the count.
     */
    void setMode(Mode mode, int count = -1);
    Mode mode() const;
    /** @brief Refuse connections and reset the open ones for @p ms milliseconds, then pass again. */
    void dropFor(int ms);
    /** @brief Refuse (listening socket closed, open connections reset) until setRefusing(false). */
    void setRefusing(bool refusing);
    /** @brief Faults injected so far (cuts, resets, blackholed connections). */
    int faultsInjected() const;
    /** @brief Connections accepted so far. */
    int connectionsAccepted() const;

private:
    std::unique_ptr<QThread> m_thread;
    FaultProxyWorker *m_worker = nullptr;
    quint16 m_port = 0;
};

} // namespace marquee::test
