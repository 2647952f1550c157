// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QObject>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>

#include "sync/transportsecurity.h"

namespace marquee::app {

/**
 * @brief The server's pushed seat statuses of one show (WebSocket GET /api/v1/shows/{id}/live, docs/api.md):
 * a snapshot, then versioned deltas. A gap in the versions or a dropped socket reconnects with `since` and
 * `epoch`, so the server replays the missed deltas (or sends a fresh snapshot when it cannot). While the
 * socket is down live() is false and the seat map falls back to polling.
 */
class LiveSeatFeed : public QObject
{
    Q_OBJECT
public:
    explicit LiveSeatFeed(QObject *parent = nullptr);
    ~LiveSeatFeed() override;

    /** @brief Subscribe to @p showId on @p server (http/https base URL) with the device @p token. */
    void start(const QUrl &server, const QString &token, qint64 showId);
    /** @brief Close the socket and stop reconnecting. */
    void stop();
    /** @brief Drop what we have and ask for a fresh snapshot (the seat layout was reloaded). */
    void resync();
    /** @brief Connected and in step with the server's versions. */
    bool live() const { return m_live; }
    qint64 version() const { return m_version; }
    QString epoch() const { return m_epoch; }
    /** @brief Sockets opened so far (the first, then every reconnect). */
    int connects() const { return m_connects; }
    /** @brief The first reconnect waits this long, doubling up to 16 times that. */
    void setReconnectDelayMs(int ms) { m_baseDelayMs = ms; }
    /** @brief Which URLs may be used and which CAs WSS trusts (default: sync::TransportPolicy::current() when made). */
    void setTransport(const sync::TransportPolicy &policy) { m_transport = policy; }
    /** @brief Ping the server this often; no pong by the next ping means the link is gone. */
    void setPingIntervalMs(int ms) { m_ping.setInterval(ms); }

Q_SIGNALS:
    void liveChanged(bool live);
    /** @brief Every seat's status, one letter per seat (a/h/b) in the order of the seat map's seats. */
    void snapshotReceived(const QString &statuses);
    /** @brief Seats whose status changed: [{seat_id, status}]. */
    void deltaReceived(const QJsonArray &changes);

private:
    void open(bool resume);
    void onMessage(const QString &text);
    void onDisconnected();
    void setLive(bool live);
    void reconnectSoon();

    QWebSocket m_socket;
    QTimer m_reconnect;
    QTimer m_ping;           ///< a silent link (blackholed) is only found by asking
    bool m_awaitingPong = false;
    QUrl m_server;
    sync::TransportPolicy m_transport = sync::TransportPolicy::current();
    QString m_token;
    qint64 m_showId = 0;
    qint64 m_version = -1;
    QString m_epoch;
    bool m_live = false;
    bool m_running = false;
    bool m_aborting = false; ///< our own abort() before reopening: not a lost link
    int m_failures = 0;
    int m_connects = 0;
    int m_baseDelayMs = 500;
};

} // namespace marquee::app
