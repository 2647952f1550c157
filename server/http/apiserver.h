// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "livehub.h"
#include "router.h"

#include <QAbstractHttpServer>
#include <QHttpServerResponder>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>
#include <list>

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

    /** @brief Route and answer one request (also used by tests without a socket). */
    HttpResponse dispatch(const QHttpServerRequest &request);

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
    std::list<Parked> m_parked;
    QTimer m_parkedTimer; ///< runs while something is parked
};

} // namespace marquee::http
