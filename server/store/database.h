// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/databaseconfig.h"
#include "store/seatfreeing.h"
#include "store/seatwrites.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>

#include <functional>

namespace marquee::store {

class DatabaseWatchdog;

/**
 * @brief Hands out the calling thread's own PostgreSQL connection.
 *
 * Qt SQL connections must never cross threads, so each thread gets one connection, named after the thread,
 * opened on first use and reopened after the server dropped it. Repositories take a Database and ask it for
 * the connection on every call.
 */
class Database
{
public:
    explicit Database(DatabaseConfig config);

    /** @brief The calling thread's open connection, or an invalid one with lastError() set. */
    QSqlDatabase connection() const;
    const DatabaseConfig &config() const { return m_config; }
    /** @brief True when a trivial query succeeds on this thread's connection. */
    bool ping() const;
    /**
     * @brief True when this thread's connection is known broken without asking the server (libpq saw it close, e.g.
     * after pg_terminate_backend): free to call often, unlike ping().
     */
    bool connectionBroken() const;
    /** @brief Database sessions of this process now (every thread's connection), from pg_stat_activity; -1 on error. */
    int sessionsOfThisProcess() const;
    /** @brief Close and forget this thread's connection (call before a thread ends). */
    void closeThreadConnection() const;
    /**
     * @brief Run @p count steps in one transaction on this thread's connection, each behind its own savepoint,
     * so that they share one commit (one WAL flush) instead of paying one each.
     *
     * A step returns whether its statements succeeded; one that failed (a deadlock, say) is rolled back alone and
     * the others go on. Once the transaction itself is broken the remaining steps are not run. Returns true when
     * the transaction committed: then every step that returned true is applied; on false none of them is.
     */
    bool commitEachBehindSavepoint(size_t count, const std::function<bool(size_t step)> &step) const;
    /**
     * @brief This thread's prepared statement for @p sql, prepared once per connection and then reused.
     *
     * Qt's PostgreSQL driver turns prepare() into a PREPARE round trip and a QSqlQuery's destruction into a
     * DEALLOCATE round trip; reusing the statement makes a hot query cost one round trip. Bind with
     * addBindValue() or bindValue() and exec(); a null pointer when the connection cannot be opened or the
     * statement does not prepare. Valid until closeThreadConnection() or a reconnect.
     */
    QSqlQuery *prepared(const QString &sql) const;
    /** @brief Drop this thread's connection after a connection-level error so the next call reconnects. */
    void resetAfterError(const QSqlError &error) const;
    /** @brief The seat-freeing writes of this process (see SeatFreeing); shared by every repository. */
    SeatFreeing &seatFreeing() const { return m_seatFreeing; }
    /** @brief Where repositories report committed sales and frees for the live seat feed (see SeatWrites). */
    SeatWrites &seatWrites() const { return m_seatWrites; }
    /**
     * @brief Register every connection opened from now on with @p watchdog, which shuts them down when the database
     * stops answering (see DatabaseWatchdog). Call before any thread uses the database; nullptr: none.
     */
    void setWatchdog(DatabaseWatchdog *watchdog) { m_watchdog = watchdog; }
    DatabaseWatchdog *watchdog() const { return m_watchdog; }
    /**
     * @brief This Database's random id, set as `marquee.instance` on each of its connections: the seat notifications
     * name their writer by it (sql/functions/mq_notify_seats.sql).
     */
    QString instanceId() const { return m_instanceId; }

private:
    QString connectionName() const;
    /** @brief Close this thread's connection @p db (named @p name) and tell the watchdog. */
    void closeConnection(QSqlDatabase &db, const QString &name) const;
    DatabaseWatchdog *m_watchdog = nullptr;
    DatabaseConfig m_config;
    QString m_instanceId; ///< hex, [0-9a-f] only: safe inside a SET literal
    QString m_prefix;
    mutable SeatFreeing m_seatFreeing;
    mutable SeatWrites m_seatWrites;
};

/**
 * @brief A transaction on one connection that rolls back unless commit() succeeded.
 */
class Transaction
{
public:
    explicit Transaction(QSqlDatabase db);
    ~Transaction();
    bool isActive() const { return m_active; }
    bool commit();
    QString errorString() const { return m_db.lastError().text(); }
    /**
     * @brief Mark a point inside the transaction that rollbackToSavepoint() returns to, so one failed statement
     * undoes only what followed the mark. False when the transaction is no longer usable.
     */
    bool savepoint();
    /** @brief Keep what followed the mark (forget the mark). */
    bool releaseSavepoint();
    /** @brief Undo what followed the mark; the transaction goes on. False when it is no longer usable. */
    bool rollbackToSavepoint();

private:
    QSqlDatabase m_db;
    bool m_active = false;
};

/**
 * @brief @p text, or an empty string when it is null: Qt binds a null QString as SQL NULL, and the optional text
 * columns of the schema are NOT NULL DEFAULT ''.
 */
inline QString nonNull(const QString &text)
{
    return text.isNull() ? QStringLiteral("") : text;
}

/** @brief Prepare @p sql on @p db; logs and returns false on failure. */
bool prepareQuery(QSqlQuery &query, const QString &sql);
/** @brief Execute a prepared query; logs the error with @p what on failure. */
bool execQuery(QSqlQuery &query, const char *what);

/** @brief A Postgres array literal for a text[] parameter, quoting every element. */
QString toPgTextArray(const QStringList &items);
/** @brief Parse a Postgres text[] literal as returned by the driver. */
QStringList fromPgTextArray(const QString &literal);

} // namespace marquee::store
