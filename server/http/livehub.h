// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QHash>
#include <QObject>
#include <QWebSocket>
#include <memory>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/**
 * @brief The WebSocket subscribers of one worker thread: `GET /api/v1/shows/{show_id}/live` (protocol in
 * docs/api.md). Checks the path, the token and the resume position, sends the first messages from the SeatFeed,
 * then forwards every delta of the show. Lives on the worker thread; the feed reaches it through queued calls.
 */
class LiveHub : public QObject
{
    Q_OBJECT
public:
    /** @brief WebSocket close codes sent after an `error` message (4000–4999 are the application's own). */
    enum CloseCode : quint16 {
        BadRequest = 4400,  ///< malformed show id, version or path
        Unauthorized = 4401,
        Forbidden = 4403,
        NotFound = 4404,    ///< unknown show or path
        TooMany = 4429,     ///< subscriber limit reached; retry later
        kTryAgainLater = 1013, ///< RFC 6455 registry: the client was too slow to read; resume
    };
    /** @brief A subscriber with more than this many unsent bytes is closed (1013); it resumes on reconnect. */
    static constexpr qint64 kMaxBufferedBytes = 8 * 1024 * 1024;

    LiveHub(ServerContext &context, QObject *parent = nullptr);
    ~LiveHub() override;

    /** @brief Take over a socket whose WebSocket handshake has completed. */
    void accept(std::unique_ptr<QWebSocket> socket);

private:
    struct Subscriber {
        qint64 showId = 0;
        qint64 version = 0; ///< the last version this client was sent
    };
    void refuse(QWebSocket *socket, quint16 code, const QString &error, const QString &message);
    void deliver(qint64 showId, qint64 version, const QByteArray &message);
    void drop(QWebSocket *socket);

    ServerContext &m_context;
    int m_listener = 0;
    QHash<QWebSocket *, Subscriber> m_subscribers;
    QMultiHash<qint64, QWebSocket *> m_byShow;
};

} // namespace marquee::http
