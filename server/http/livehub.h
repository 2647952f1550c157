// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "seating/livefanout.h"

#include <QObject>
#include <QWebSocket>
#include <memory>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/**
 * @brief The gate of one HTTP worker thread for WebSocket subscribers of `GET /api/v1/shows/{show_id}/live`
 * (protocol in docs/api.md): checks the path, the subscriber limit, the token, the show and the resume position,
 * makes sure the feed follows the show (a database read, here on the worker), then hands the socket to the
 * LiveFanout threads that send the stream. Refused sockets are closed with an error here.
 */
class LiveHub : public QObject
{
    Q_OBJECT
public:
    LiveHub(ServerContext &context, LiveFanout &fanout, QObject *parent = nullptr);

    /** @brief Take over a socket whose WebSocket handshake has completed. */
    void accept(std::unique_ptr<QWebSocket> socket);

private:
    ServerContext &m_context;
    LiveFanout &m_fanout;
};

} // namespace marquee::http
