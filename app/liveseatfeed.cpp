// SPDX-License-Identifier: AGPL-3.0-or-later
#include "liveseatfeed.h"
#include "applogging.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QUrlQuery>

namespace marquee::app {

LiveSeatFeed::LiveSeatFeed(QObject *parent)
    : QObject(parent)
{
    m_reconnect.setSingleShot(true);
    connect(&m_reconnect, &QTimer::timeout, this, [this] { open(true); });
    connect(&m_socket, &QWebSocket::textMessageReceived, this, &LiveSeatFeed::onMessage);
    connect(&m_socket, &QWebSocket::disconnected, this, &LiveSeatFeed::onDisconnected);
    connect(&m_socket, &QWebSocket::pong, this, [this] { m_awaitingPong = false; });
    m_ping.setInterval(5000);
    connect(&m_ping, &QTimer::timeout, this, [this] {
        if (m_socket.state() != QAbstractSocket::ConnectedState)
            return;
        if (m_awaitingPong) {
            qCInfo(lcLive) << "show" << m_showId << "no pong: the link is gone";
            m_aborting = true;
            m_socket.abort();
            m_aborting = false;
            onDisconnected();
            return;
        }
        m_awaitingPong = true;
        m_socket.ping();
    });
}

LiveSeatFeed::~LiveSeatFeed()
{
    m_running = false;
    m_socket.disconnect(this);
    m_socket.abort();
}

void LiveSeatFeed::start(const QUrl &server, const QString &token, qint64 showId)
{
    stop();
    m_server = server;
    m_token = token;
    m_showId = showId;
    m_version = -1;
    m_epoch.clear();
    m_failures = 0;
    m_running = true;
    m_ping.start();
    open(false);
}

void LiveSeatFeed::stop()
{
    m_running = false;
    m_reconnect.stop();
    m_ping.stop();
    setLive(false);
    m_socket.abort();
}

void LiveSeatFeed::resync()
{
    if (!m_running)
        return;
    m_version = -1;
    m_epoch.clear();
    setLive(false);
    open(false);
}

void LiveSeatFeed::open(bool resume)
{
    if (!m_running)
        return;
    m_aborting = true;
    m_socket.abort();
    m_aborting = false;
    QUrl url = m_server;
    url.setScheme(m_server.scheme() == QLatin1String("https") ? QStringLiteral("wss") : QStringLiteral("ws"));
    url.setPath(QStringLiteral("/api/v1/shows/%1/live").arg(m_showId));
    if (resume && m_version >= 0 && !m_epoch.isEmpty()) {
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("since"), QString::number(m_version));
        query.addQueryItem(QStringLiteral("epoch"), m_epoch);
        url.setQuery(query);
    }
    if (const QString refused = m_transport.refusal(url); !refused.isEmpty()) {
        // Not retried: the address will not change by itself. The seat map keeps polling (which says the same).
        qCWarning(lcLive) << "show" << m_showId << refused;
        return;
    }
    if (m_transport.tls && url.scheme() == QLatin1String("wss"))
        m_socket.setSslConfiguration(*m_transport.tls);
    m_awaitingPong = false;
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    ++m_connects;
    m_socket.open(request);
}

void LiveSeatFeed::onMessage(const QString &text)
{
    const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
    const QString type = message.value(QLatin1String("type")).toString();
    if (type == QLatin1String("snapshot")) {
        m_epoch = message.value(QLatin1String("epoch")).toString();
        m_version = message.value(QLatin1String("version")).toInteger();
        m_failures = 0;
        Q_EMIT snapshotReceived(message.value(QLatin1String("statuses")).toString());
        setLive(true);
    } else if (type == QLatin1String("resumed")) {
        m_epoch = message.value(QLatin1String("epoch")).toString();
        m_version = message.value(QLatin1String("from_version")).toInteger();
        m_failures = 0;
        setLive(true); // the missed deltas follow at once
    } else if (type == QLatin1String("delta")) {
        const qint64 version = message.value(QLatin1String("version")).toInteger();
        if (version <= m_version)
            return; // already applied (a replay overlapping what we had)
        if (m_version < 0 || version != m_version + 1) {
            // A gap: something was missed. Ask again from the last version we applied.
            qCInfo(lcLive) << "show" << m_showId << "delta" << version << "after" << m_version << "- resuming";
            setLive(false);
            open(true);
            return;
        }
        m_version = version;
        Q_EMIT deltaReceived(message.value(QLatin1String("changes")).toArray());
    } else if (type == QLatin1String("error")) {
        qCWarning(lcLive) << "show" << m_showId << "live feed refused:" << message.value(QLatin1String("error")).toString()
                          << message.value(QLatin1String("message")).toString();
    }
}

void LiveSeatFeed::onDisconnected()
{
    if (m_aborting)
        return;
    setLive(false);
    if (!m_running)
        return;
    // 4400/4401/4404 will not get better by asking again soon; everything else is a lost link or a busy server.
    const int code = int(m_socket.closeCode());
    if (code == 4400) {
        m_version = -1; // our version was refused: start from a snapshot
        m_epoch.clear();
    }
    ++m_failures;
    reconnectSoon();
}

void LiveSeatFeed::reconnectSoon()
{
    const int delay = m_baseDelayMs * (1 << std::min(m_failures - 1, 4));
    m_reconnect.start(std::max(delay, m_baseDelayMs));
}

void LiveSeatFeed::setLive(bool live)
{
    if (m_live == live)
        return;
    m_live = live;
    qCInfo(lcLive) << "show" << m_showId << (live ? "live" : "not live");
    Q_EMIT liveChanged(live);
}

} // namespace marquee::app
