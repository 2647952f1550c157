// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>

namespace marquee::store {

class Database;

/**
 * @brief What other instances (and marquee-admin, and plain SQL) changed, told to this instance at once: one
 * connection of its own, on its own thread, LISTENs on every channel registered with listen() — `marquee_auth`
 * (revocations, sql/functions/mq_notify_auth.sql), `marquee_seats` (seat writes) and `marquee_shows` (prices,
 * waiting rooms; both sql/functions/mq_notify_seats.sql) — and hands each notification's payload to its handler.
 *
 * When the connection is lost it reconnects; once listening again it tells every channel's owner so,
 * because a notification may have been missed meanwhile: what a channel's owner keeps in memory must then be
 * re-read from the database. The order matters: listen first, re-read after, so no change falls between the two.
 * Handlers run on the listener's thread: they must be quick and must not query the database (wake a thread that
 * does, or mark something stale).
 */
class ChangeListener : public QThread
{
public:
    /** @brief Told the payload of one notification. */
    using Handler = std::function<void(const QString &payload)>;
    explicit ChangeListener(const Database &database);
    ~ChangeListener() override;
    /**
     * @brief Listen on @p channel too; call before start(). @p listening is told true each time listening (re)starts
     * (re-read what is kept: notifications may have been missed) and false when the connection is found lost.
     */
    void listen(const QString &channel, Handler handler, std::function<void(bool listening)> listening);
    void stopAndWait();
    /** @brief True while subscribed to every channel (tests wait for it). */
    bool isListening() const { return m_listening.load(); }
    /** @brief Notifications handled so far, over every channel (counted once its handler returned). */
    qint64 notifications() const { return m_notifications.load(); }
    /** @brief How often listening has (re)started: 1 after the first subscription, one more per reconnect. */
    qint64 subscriptions() const { return m_subscriptions.load(); }
    /** @brief The PostgreSQL backend of the listening connection (0 while not listening); tests end it. */
    qint64 backendPid() const { return m_backendPid.load(); }

protected:
    void run() override;

private:
    struct Channel {
        QString name;
        Handler handler;
        std::function<void(bool)> listening;
    };
    bool subscribe();
    bool subscribedToAll() const;

    const Database &m_database;
    QList<Channel> m_channels;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_listening{false};
    std::atomic<qint64> m_notifications{0};
    std::atomic<qint64> m_subscriptions{0};
    std::atomic<qint64> m_backendPid{0};
};

} // namespace marquee::store
