// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "livehub.h"
#include "router.h"

#include <QAbstractHttpServer>
#include <QHttpServerResponder>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>
#include <functional>
#include <list>
#include <memory>

namespace marquee {
struct ServerContext;
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
    ApiServer(const Router &router, ServerContext &context, LiveFanout &liveFanout, QObject *parent = nullptr);

    ~ApiServer() override;

    /** @brief Route and answer one request (also used by tests without a socket). */
    HttpResponse dispatch(const QHttpServerRequest &request);

    /**
     * @brief For a handler that parks its request (HttpResponse::longPoll) while another thread works on it: a
     * function, callable from any thread, that makes this worker look at its parked requests at once instead of at
     * its next tick. Empty when the caller is not inside a worker's request (dispatch() called directly).
     */
    static std::function<void()> wakeOfCurrentRequest();

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    /** @brief A long poll waiting for its answer (HttpResponse::longPoll). */
    struct Parked {
        QPointer<QTcpSocket> socket; ///< cleared when the client goes away; then the poll is dropped
        QHttpServerResponder responder;
        HttpResponse response; ///< holds the longPoll function and its deadline
    };
    void write(QHttpServerResponder &responder, const HttpResponse &response);
    void revisitParked();

    const Router &m_router;
    ServerContext &m_context;
    LiveHub *m_live; ///< checks this thread's WebSocket upgrades, then hands them to the fan-out (a child)
    struct Wake; ///< shared with the threads that may wake this worker; cleared when the worker goes
    std::shared_ptr<Wake> m_wake;
    std::list<Parked> m_parked;
    QTimer m_parkedTimer; ///< runs while something is parked
};

} // namespace marquee::http
