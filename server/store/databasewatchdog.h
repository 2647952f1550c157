// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QHash>
#include <QMutex>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

namespace marquee::store {

class Database;

/**
 * @brief Notices a database that stopped answering and makes this process fail fast instead of waiting with it.
 *
 * PostgreSQL's own statement_timeout is enforced by the backend: a database that is stalled (stopped, swapping, its
 * host frozen, the network silently dropping packets) enforces nothing, and the kernel keeps acknowledging the
 * bytes, so neither TCP keepalives nor libpq notice. So one thread asks the database a trivial question every
 * quarter of a second on a connection of its own, and another watches the answers:
 *
 * - when a question has waited a second (the silence, --database-silence) for its answer, the database counts as
 *   not answering (answering() is false): requests are refused at once with 503 and /readyz says so, without
 *   touching the database. Only a question the database has been asked counts: on a starved machine the probe
 *   thread itself may not run for a second, and that says nothing about the database (it used to trip here);
 * - when none has come for the statement timeout, every connection of this process opened before the last answer
 *   is shut down under its statement (shutdown(2) on a duplicate of its socket), so that whatever waits on it
 *   gets a connection error now — a request answers 503 instead of hanging until the database wakes up. Each thread
 *   reconnects on its next use (Database::connection()); whatever the shut-down statement would have written is
 *   rolled back by PostgreSQL, or, for a commit already sent, decided there: the client's retry with its
 *   idempotency key finds the stored answer either way.
 *
 * The probe also reads the schema's state every few seconds, which /readyz reports.
 */
class DatabaseWatchdog
{
public:
    /** @brief Watches @p database (whose connections register with it, see Database::setWatchdog()); a question
     *  unanswered for @p silenceMs makes it not answering. */
    DatabaseWatchdog(Database &database, int statementTimeoutMs, int silenceMs = kDefaultSilenceMs);
    ~DatabaseWatchdog();
    void start();
    void stopAndWait();

    /** @brief How long the probe's question has waited for its answer (since the first of a row of failed ones),
     *  in milliseconds; 0 while the last one was answered and the next is not asked yet. */
    qint64 unansweredForMs() const;
    /** @brief False once a question of the probe has waited the silence for its answer (true when not started). */
    bool answering() const;
    bool running() const { return m_running.load(); }
    /**
     * @brief Whether the calling thread should try to open a connection now: not while the database is silent
     * (opening would wait for the connect timeout), except the probe, which finds out when it answers again.
     */
    bool mayConnect() const;
    /** @brief The schema was at this server's version at the last check (every few seconds). */
    bool schemaCurrent() const { return m_schemaCurrent.load(); }
    /** @brief Connections shut down under their statement so far. */
    qint64 connectionsEnded() const { return m_ended.load(); }

    /** @brief A question unanswered for this long, by default: the database is not answering. */
    static constexpr int kDefaultSilenceMs = 1000;
    int silenceMs() const { return m_silenceMs; }
    /** @brief How often the probe asks. */
    static constexpr int kProbeIntervalMs = 250;

    /** @brief Database::connection(): the socket of connection @p name is @p socket (a new connection). */
    void track(const QString &name, int socket);
    /** @brief Database: connection @p name is closed or closing. */
    void forget(const QString &name);

private:
    void probe();
    void watch();
    static qint64 nowMs();

    struct Tracked {
        int socket = -1; ///< our own duplicate, so that a closed and reused descriptor number is never shut down
        qint64 openedMs = 0;
        bool ended = false;
    };

    Database &m_database;
    const int m_statementTimeoutMs;
    const int m_silenceMs;
    std::unique_ptr<QThread> m_prober;
    std::unique_ptr<QThread> m_watcher;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_running{false};
    std::atomic<qint64> m_lastAnswerMs{0};
    /** @brief When the oldest question not answered yet was asked; -1: the last one was answered. */
    std::atomic<qint64> m_askedSinceMs{-1};
    std::atomic<bool> m_schemaCurrent{false};
    std::atomic<qint64> m_ended{0};
    QMutex m_mutex;
    QHash<QString, Tracked> m_tracked;
};

} // namespace marquee::store
