// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "loadstats.h"

#include <QString>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace marquee::bench {

/**
 * @brief What one simulated client does: build its next request, look at the answer.
 *
 * The engine keeps exactly one request in flight per session (a closed loop: a client thinks for zero time and
 * asks again), so the offered load is the number of sessions and the measured rate is what the server sustains.
 */
class Session
{
public:
    virtual ~Session() = default;
    /**
     * @brief Write the complete next HTTP/1.1 request (keep-alive) into @p out. Leaving @p out empty means
     * "nothing to send yet" (a client thinking or waiting): the engine asks again a few milliseconds later.
     */
    virtual void request(std::string &out) = 0;
    /** @brief The answer; @p status 0 means the connection failed. @p measured: inside the measuring window. */
    virtual void response(int status, std::string_view head, std::string_view body, bool measured) = 0;
    /** @brief False while the request in flight is not what the run measures (a hold session's release between
     *  its holds): its answer is not counted, timed or looked at as measured. */
    virtual bool measuring() const { return true; }
};

/** @brief How long to run and where to connect. */
struct EngineOptions {
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 8080;
    int threads = 1;          ///< event-loop threads of the generator, each with many connections
    double warmupSeconds = 1; ///< answers completed before this are not measured
    double durationSeconds = 10;
    /** @brief Optional: the run ends early (drains and stops) once this returns true; checked every few ms. */
    std::function<bool()> finished;
};

/**
 * @brief An asynchronous HTTP/1.1 load engine: epoll, non-blocking keep-alive connections, many per thread.
 *
 * Sessions are created up front by the caller; each gets its own connection. After the measuring window the
 * engine stops sending, waits (up to 10 s) for answers still in flight so the caller sees every decision the
 * server made, then closes everything.
 */
class LoadEngine
{
public:
    explicit LoadEngine(EngineOptions options);
    /** @brief Run every session to the end of the window. Returns the merged statistics. */
    Stats run(std::vector<std::unique_ptr<Session>> &sessions);
    QString errorString() const { return m_error; }

private:
    EngineOptions m_options;
    QString m_error;
};

/** @brief One blocking GET (for set-up: the seat list); status 0 on failure. */
int blockingGet(const QString &host, quint16 port, const std::string &path, const std::string &token, std::string *body);
/** @brief One blocking request with an optional JSON body (for set-up); status 0 on failure. */
int blockingRequest(const QString &host, quint16 port, const std::string &method, const std::string &path, const std::string &token,
                    const std::string &jsonBody, std::string *body);

/** @brief Wall-clock milliseconds since the epoch (for comparing with server timestamps). */
qint64 wallMs();

} // namespace marquee::bench
