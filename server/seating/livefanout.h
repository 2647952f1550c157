// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <vector>

class QWebSocket;

namespace marquee {

class SeatFeed;

/**
 * @brief Sends the live seat-map stream (`/api/v1/shows/{show_id}/live`, docs/api.md) to WebSocket subscribers on
 * dedicated threads, so that a delta never waits for an HTTP worker that is busy in a database call, and 1,000
 * subscribers cost one pass over their sockets per delta on one thread instead of a queued call to every worker.
 *
 * The HTTP worker that completed a handshake checks the request (LiveHub) and hands the socket over with
 * adopt(); from then on the socket lives on one fan-out thread, which subscribes it to the SeatFeed, sends the
 * first messages and every later delta. The feed batches changes (SeatFeed::setBatching): a change after a quiet
 * spell goes out at once; changes within kBatchWindowMs behind a delta wait for a flush at the window's end
 * (scheduled on fan-out thread 0) and go out together as one delta. A delta is framed once per thread and the same
 * bytes are written to every socket of that thread, with one flush each.
 *
 * A subscriber whose unsent data exceeds the bound is cut off at once (its buffer freed); it reconnects with
 * `since` and gets what it missed, so one slow reader never holds back the others nor the server's memory.
 */
class LiveFanout
{
public:
    /** @brief At most one delta per show per this many milliseconds, except a change after a quiet spell. */
    static constexpr int kBatchWindowMs = 5;

    /** @brief WebSocket close codes sent after an `error` message (4000–4999 are the application's own). */
    enum CloseCode : quint16 {
        BadRequest = 4400,  ///< malformed show id, version or path
        Unauthorized = 4401,
        Forbidden = 4403,
        NotFound = 4404,    ///< unknown show or path
        TooMany = 4429,     ///< subscriber limit reached; retry later
    };

    /** @brief Start @p threads fan-out threads for @p feed and switch the feed to batching. */
    LiveFanout(SeatFeed &feed, int threads, qint64 maxBufferedBytes);
    /** @brief Closes every subscriber (going away) and stops the threads; the feed sends deltas unbatched again. */
    ~LiveFanout();

    /**
     * @brief Take over @p socket (no parent, on the calling thread) whose request has been checked: it moves to a
     * fan-out thread, which subscribes it to @p showId from @p sinceVersion / @p epoch (see SeatFeed::subscribe)
     * or refuses it when that version does not exist.
     */
    void adopt(QWebSocket *socket, qint64 showId, qint64 sinceVersion, const QByteArray &epoch);

    /** @brief Send an `error` message and close with @p code; the socket deletes itself once closed. */
    static void refuse(QWebSocket *socket, quint16 code, const QString &error, const QString &message);

private:
    class Worker;
    SeatFeed &m_feed;
    std::vector<std::unique_ptr<QThread>> m_threads;
    std::vector<Worker *> m_workers; ///< one per thread, living on it
    std::atomic<unsigned> m_next{0};  ///< round robin over the workers
};

} // namespace marquee
