// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>

namespace marquee::store {

class Database;

/** @brief The background jobs of which one instance of a fleet does the work at a time. */
enum class FleetJob {
    OutboxRelay = 1,     ///< numbers and delivers the outbox (webhooks, notification spool)
    HoldReaper = 2,      ///< sweeps expired holds and old idempotency keys
    OrderReconciler = 3, ///< resolves orders stuck between payment and booking
};

/** @brief The job's name in logs. */
QString toString(FleetJob job);

/**
 * @brief Which instance of a fleet on one database runs a background job: the one whose connection holds the job's
 * PostgreSQL session advisory lock.
 *
 * The lock lives as long as the session that took it: an instance that stops, dies or loses its connection lets
 * it go (PostgreSQL ends a dead peer's session when the socket closes, or after the TCP keepalives for a machine
 * that vanished), and another instance's next holdOrTake() takes it over. Use it from the job's own thread only:
 * it works on that thread's connection, the one the job's statements run on. Needs session-level connections
 * (not a transaction-pooling PgBouncer).
 */
class JobLease
{
public:
    JobLease(const Database &database, FleetJob job);

    /**
     * @brief True when this thread's connection holds the lease now: it is taken when free, and one already held
     * is checked to be still this session's (a reconnect lost it). False when another instance holds it or the
     * database cannot be asked. Logs each change.
     */
    bool holdOrTake();
    /** @brief Whether the last holdOrTake() said so. */
    bool held() const { return m_heldBy != 0; }
    /** @brief Let the lease go now (a clean stop), so another instance need not wait for the session to end. */
    void release();

private:
    const Database &m_database;
    FleetJob m_job;
    int m_heldBy = 0; ///< backend pid of the session that holds it; 0: not held
};

} // namespace marquee::store
