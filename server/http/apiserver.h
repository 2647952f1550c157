// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/livehub.h"
#include "http/router.h"

#include <QAbstractHttpServer>
#include <QElapsedTimer>
#include <QMutex>
#include <QHttpServerResponder>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>
#include <functional>
#include <list>
#include <memory>
#include <unordered_map>

namespace marquee {
struct ServerContext;
}

namespace marquee::metrics {
class RequestMetrics;
}

namespace marquee::http {

/**
 * @brief One worker thread's HTTP server: routing, size limit, authentication and role checks happen here,
 * once, before any handler runs; handlers only see valid, authorised requests.
 */
class ApiServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    /** @brief @p requestMetrics (may be null) gets every answer's route, status and time. */
    ApiServer(const Router &router, ServerContext &context, LiveFanout &liveFanout, metrics::RequestMetrics *requestMetrics,
              QObject *parent = nullptr);
    ~ApiServer() override;

    /** @brief Route and answer one request (also used by tests without a socket). */
    HttpResponse dispatch(const QHttpServerRequest &request) { return dispatch(request, nullptr); }

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    /** @brief A long poll waiting for its answer (HttpResponse::longPoll). */
    struct Parked {
        QPointer<QTcpSocket> socket; ///< cleared when the client goes away; then the poll is dropped
        QHttpServerResponder responder;
        HttpResponse response; ///< holds the longPoll function and its deadline
        QElapsedTimer received;
        int route = -1;
        QByteArray requestId;
    };
    /** @brief A request whose answer is decided on another thread (HttpResponse::deferred). */
    struct Deferred {
        QPointer<QTcpSocket> socket;
        QHttpServerResponder responder;
        QElapsedTimer received;
        int route = -1;
        QByteArray requestId;
    };
    /**
     * @brief How another thread reaches this server: an answer is posted to it only while it exists (the
     * destructor clears the pointer under the lock), so a late answer after shutdown is dropped, not a crash.
     */
    struct Mailbox {
        QMutex mutex;
        ApiServer *server = nullptr;
    };
    /** @brief As dispatch(); @p route gets the index of the route that matched (Router::indexOf), -1 for none. */
    HttpResponse dispatch(const QHttpServerRequest &request, int *route);
    /** @brief @p response, but 503 unavailable for a 500 while the database is not answering. */
    HttpResponse whileDatabaseSilent(HttpResponse response) const;
    /** @brief Write @p response, note the answer on the connection and count it for GET /metrics. */
    void answer(QTcpSocket *socket, QHttpServerResponder &responder, const HttpResponse &response, const QElapsedTimer &received, int route,
                const QByteArray &requestId);
    void write(QHttpServerResponder &responder, const HttpResponse &response, const QByteArray &requestId);
    void revisitParked();
    void answerDeferred(quint64 id, HttpResponse response);

    const Router &m_router;
    ServerContext &m_context;
    metrics::RequestMetrics *m_requestMetrics;
    LiveHub *m_live; ///< checks this thread's WebSocket upgrades, then hands them to the fan-out (a child)
    std::list<Parked> m_parked;
    std::unordered_map<quint64, Deferred> m_deferred;
    quint64 m_nextDeferred = 0;
    std::shared_ptr<Mailbox> m_mailbox;
    QTimer m_parkedTimer; ///< runs while something is parked
};

} // namespace marquee::http
