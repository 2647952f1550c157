// SPDX-License-Identifier: AGPL-3.0-or-later
#include "livehub.h"

#include "core/role.h"
#include "servercontext.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QUrlQuery>

Q_DECLARE_LOGGING_CATEGORY(lcHttp)

namespace marquee::http {

LiveHub::LiveHub(ServerContext &context, QObject *parent)
    : QObject(parent)
    , m_context(context)
{
    // Called by the feed with its lock held (see SeatFeed::publish), so once removeListener() has returned no
    // new call is posted; calls posted before are dropped by Qt together with this object.
    m_listener = m_context.seatMaps.feed().addListener([this](qint64 showId, qint64 version, const QByteArray &message) {
        QMetaObject::invokeMethod(this, [this, showId, version, message] { deliver(showId, version, message); }, Qt::QueuedConnection);
    });
}

LiveHub::~LiveHub()
{
    m_context.seatMaps.feed().removeListener(m_listener);
    const auto sockets = m_subscribers.keys();
    for (QWebSocket *socket : sockets) {
        socket->disconnect(this);
        socket->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("server stopping"));
        delete socket;
    }
}

void LiveHub::refuse(QWebSocket *socket, quint16 code, const QString &error, const QString &message)
{
    // The reason travels twice: as a JSON message a client can parse, and in the close frame for simple clients.
    socket->sendTextMessage(QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("type"), QStringLiteral("error")},
                                                                          {QStringLiteral("error"), error},
                                                                          {QStringLiteral("message"), message}})
                                                  .toJson(QJsonDocument::Compact)));
    socket->close(QWebSocketProtocol::CloseCode(code), error);
    connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
}

void LiveHub::accept(std::unique_ptr<QWebSocket> owned)
{
    QWebSocket *socket = owned.release();
    socket->setParent(this);
    static const QRegularExpression livePath(QStringLiteral("^/api/v1/shows/([^/]+)/live$"));
    const QUrl url = socket->requestUrl();
    const QRegularExpressionMatch match = livePath.match(url.path());
    if (!match.hasMatch())
        return refuse(socket, NotFound, QStringLiteral("not_found"), QStringLiteral("WebSockets are served only at /api/v1/shows/{show_id}/live."));

    const int limit = m_context.config.maxLiveSubscribers;
    if (limit > 0 && m_context.seatMaps.feed().subscriberCount() >= limit)
        return refuse(socket, TooMany, QStringLiteral("too_many_subscribers"),
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
        return refuse(socket, Unauthorized, QStringLiteral("unauthorized"),
                      QStringLiteral("This call needs an 'Authorization: Bearer <token>' header or an access_token parameter."));
    const std::optional<store::Principal> caller = m_context.auth.authenticate(QString::fromLatin1(token));
    if (!caller)
        return refuse(socket, Unauthorized, QStringLiteral("unauthorized"), QStringLiteral("The token is unknown, revoked or expired."));
    if (!(kAllRoles & roleBit(caller->role)))
        return refuse(socket, Forbidden, QStringLiteral("forbidden"), QStringLiteral("This role may not follow seat maps."));

    bool ok = false;
    const qint64 showId = match.captured(1).toLongLong(&ok);
    if (!ok || showId <= 0)
        return refuse(socket, BadRequest, QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer."));
    qint64 since = -1;
    if (query.hasQueryItem(QStringLiteral("since"))) {
        since = query.queryItemValue(QStringLiteral("since")).toLongLong(&ok);
        if (!ok || since < 0)
            return refuse(socket, BadRequest, QStringLiteral("invalid_version"), QStringLiteral("'since' must be a version number (an integer >= 0)."));
    }
    const QByteArray epoch = query.queryItemValue(QStringLiteral("epoch")).toLatin1();

    switch (m_context.seatMaps.ensureLive(showId)) {
    case SeatMapService::Outcome::NotFound:
        return refuse(socket, NotFound, QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id."));
    case SeatMapService::Outcome::Error:
        return refuse(socket, QWebSocketProtocol::CloseCodeBadOperation, QStringLiteral("unavailable"),
                      QStringLiteral("The booking database is not answering; reconnect shortly."));
    case SeatMapService::Outcome::Ok:
        break;
    }

    const SeatFeed::Start start = m_context.seatMaps.feed().subscribe(m_listener, showId, since, epoch);
    if (start.kind == SeatFeed::Start::Kind::Unknown)
        return refuse(socket, NotFound, QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id."));
    if (start.kind == SeatFeed::Start::Kind::FutureVersion)
        return refuse(socket, BadRequest, QStringLiteral("invalid_version"),
                      QStringLiteral("Version %1 of this feed does not exist yet (the current one is %2).").arg(since).arg(start.version));

    m_subscribers.insert(socket, Subscriber{showId, start.version});
    m_byShow.insert(showId, socket);
    for (const QByteArray &message : start.messages)
        socket->sendTextMessage(QString::fromUtf8(message));
    connect(socket, &QWebSocket::disconnected, this, [this, socket] { drop(socket); });
    // The protocol is server → client only; anything a client sends is ignored (pings are answered by Qt).
}

void LiveHub::deliver(qint64 showId, qint64 version, const QByteArray &message)
{
    QString text; // converted once for every subscriber of this thread
    const auto sockets = m_byShow.values(showId);
    for (QWebSocket *socket : sockets) {
        Subscriber &subscriber = m_subscribers[socket];
        if (version <= subscriber.version)
            continue; // already in its first messages
        if (socket->bytesToWrite() > kMaxBufferedBytes) {
            // A client that does not read would make the server buffer without end; it can resume from its version.
            socket->close(QWebSocketProtocol::CloseCode(kTryAgainLater),
                          QStringLiteral("too slow; reconnect with since"));
            drop(socket);
            continue;
        }
        if (text.isEmpty())
            text = QString::fromUtf8(message);
        subscriber.version = version;
        socket->sendTextMessage(text);
    }
}

void LiveHub::drop(QWebSocket *socket)
{
    const auto it = m_subscribers.constFind(socket);
    if (it == m_subscribers.constEnd())
        return;
    m_context.seatMaps.feed().unsubscribe(m_listener, it->showId);
    m_byShow.remove(it->showId, socket);
    m_subscribers.erase(it);
    socket->deleteLater();
}

} // namespace marquee::http
