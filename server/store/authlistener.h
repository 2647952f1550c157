// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QThread>
#include <atomic>

namespace marquee::store {

class AuthRepository;
class Database;

/**
 * @brief Makes a revocation take effect on every instance at once: LISTENs on channel `marquee_auth` (notified by
 * the triggers of sql/functions/mq_notify_auth.sql when a device is revoked, staff disabled or a session ended,
 * whoever did it) and clears this instance's AuthRepository cache on each notification.
 *
 * Runs on its own thread with its own connection. When the connection is lost it reconnects, and clears the cache
 * once listening again (a notification may have been missed meanwhile); until then the cache's own few seconds of
 * lifetime bound how long a revoked token could still be accepted.
 */
class AuthListener : public QThread
{
public:
    AuthListener(const Database &database, AuthRepository &auth);
    ~AuthListener() override;
    void stopAndWait();
    /** @brief True while subscribed (tests wait for it before revoking). */
    bool isListening() const { return m_listening.load(); }
    /** @brief Notifications received so far. */
    qint64 notifications() const { return m_notifications.load(); }

    static constexpr const char *kChannel = "marquee_auth";

protected:
    void run() override;

private:
    bool subscribe();

    const Database &m_database;
    AuthRepository &m_auth;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_listening{false};
    std::atomic<qint64> m_notifications{0};
};

} // namespace marquee::store
