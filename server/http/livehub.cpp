// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/livehub.h"
#include "logging.h"

#include "core/role.h"
#include "runtime/servercontext.h"

#include <QLoggingCategory>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QPointer>
#include <QUrlQuery>


namespace marquee::http {

LiveHub::LiveHub(ServerContext &context, LiveFanout &fanout, QObject *parent)
    : QObject(parent)
    , m_context(context)
    , m_fanout(fanout)
{
}

void LiveHub::accept(std::unique_ptr<QWebSocket> owned)
{
    QWebSocket *socket = owned.release();
    socket->setParent(this);
    static const QRegularExpression livePath(QStringLiteral("^/api/v1/shows/([^/]+)/live$"));
    const QUrl url = socket->requestUrl();
    const QRegularExpressionMatch match = livePath.match(url.path());
    if (!match.hasMatch())
        return LiveFanout::refuse(socket, LiveFanout::NotFound, QStringLiteral("not_found"), QStringLiteral("WebSockets are served only at /api/v1/shows/{show_id}/live."));

    const int limit = m_context.config.maxLiveSubscribers;
    if (limit > 0 && m_context.seatMaps.feed().subscriberCount() >= limit)
        return LiveFanout::refuse(socket, LiveFanout::TooMany, QStringLiteral("too_many_subscribers"),
                      QStringLiteral("This server follows as many live seat maps as it may; retry in a few seconds."));

    // Authentication as for every /api/v1 call: a bearer token in the Authorization header, or (for clients that
    // cannot set headers on a WebSocket) in the access_token query parameter.
    const QUrlQuery query(url);
    QByteArray token;
    const QByteArray authorization = socket->request().rawHeader("Authorization");
    if (authorization.startsWith("Bearer ") && authorization.size() > 7)
        token = authorization.mid(7).trimmed();
    else
        token = query.queryItemValue(QStringLiteral("access_token"), QUrl::FullyDecoded).toLatin1();
    if (token.isEmpty())
        return LiveFanout::refuse(socket, LiveFanout::Unauthorized, QStringLiteral("unauthorized"),
                      QStringLiteral("This call needs an 'Authorization: Bearer <token>' header or an access_token parameter."));
    bool databaseDown = false;
    const std::optional<store::Principal> caller = m_context.auth.authenticate(QString::fromLatin1(token), &databaseDown);
    if (!caller && databaseDown)
        return LiveFanout::refuse(socket, QWebSocketProtocol::CloseCodeBadOperation, QStringLiteral("unavailable"),
                                  QStringLiteral("The booking database is not answering, so the token could not be checked; reconnect shortly."));
    if (!caller)
        return LiveFanout::refuse(socket, LiveFanout::Unauthorized, QStringLiteral("unauthorized"), QStringLiteral("The token is unknown, revoked or expired."));
    if (!(kAllRoles & roleBit(caller->role)))
        return LiveFanout::refuse(socket, LiveFanout::Forbidden, QStringLiteral("forbidden"), QStringLiteral("This role may not follow seat maps."));

    bool ok = false;
    const qint64 showId = match.captured(1).toLongLong(&ok);
    if (!ok || showId <= 0)
        return LiveFanout::refuse(socket, LiveFanout::BadRequest, QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer."));
    qint64 since = -1;
    if (query.hasQueryItem(QStringLiteral("since"))) {
        since = query.queryItemValue(QStringLiteral("since")).toLongLong(&ok);
        if (!ok || since < 0)
            return LiveFanout::refuse(socket, LiveFanout::BadRequest, QStringLiteral("invalid_version"), QStringLiteral("'since' must be a version number (an integer >= 0)."));
    }
    const QByteArray epoch = query.queryItemValue(QStringLiteral("epoch")).toLatin1();

    switch (m_context.seatMaps.ensureLive(showId)) {
    case SeatMapService::Outcome::NotFound:
        return LiveFanout::refuse(socket, LiveFanout::NotFound, QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id."));
    case SeatMapService::Outcome::Error:
        return LiveFanout::refuse(socket, QWebSocketProtocol::CloseCodeBadOperation, QStringLiteral("unavailable"),
                      QStringLiteral("The booking database is not answering; reconnect shortly."));
    case SeatMapService::Outcome::Ok:
        break;
    }

    // The socket leaves this thread: from here on a fan-out thread subscribes it and sends the stream. Qt 6.4's
    // QWebSocket does not own the TCP socket under it (that stays a child of this worker's QTcpServer), so the
    // TCP socket is found by its addresses and made the WebSocket's child first, and both move together.
    QTcpSocket *tcp = nullptr;
    const auto candidates = parent()->findChildren<QTcpSocket *>();
    for (QTcpSocket *candidate : candidates) {
        if (candidate->peerPort() == socket->peerPort() && candidate->localPort() == socket->localPort()
            && candidate->peerAddress() == socket->peerAddress())
            tcp = candidate;
    }
    if (!tcp)
        return LiveFanout::refuse(socket, QWebSocketProtocol::CloseCodeBadOperation, QStringLiteral("unavailable"),
                                  QStringLiteral("The server could not take over this connection; reconnect."));
    // Qt's QWebSocketServer (inside QAbstractHttpServer, on this thread) stays connected to the TCP socket's
    // disconnected() and answers it with tcp->deleteLater(). Once the socket lives on a fan-out thread that call
    // is queued here and runs later, on a socket the fan-out thread may already have deleted with its WebSocket:
    // a use-after-free that crashed the fan-out thread when many subscribers left at once (the test
    // Live.ManySubscribers… under load). From here on the WebSocket alone owns the TCP socket; QWebSocket itself
    // follows it through stateChanged() and destroyed(), not disconnected().
    QObject::disconnect(tcp, &QAbstractSocket::disconnected, nullptr, nullptr);
    socket->setParent(nullptr);
    tcp->setParent(socket);
    // Qt's handshake code may still have a queued call for the TCP socket in this thread's event queue (it reads
    // the socket); moving the socket before that ran would let it read a socket of another thread. So the move
    // waits behind everything queued so far.
    QPointer<QWebSocket> guarded(socket);
    QMetaObject::invokeMethod(this, [this, guarded, showId, since, epoch] {
        if (guarded)
            m_fanout.adopt(guarded, showId, since, epoch);
    }, Qt::QueuedConnection);
}

} // namespace marquee::http
