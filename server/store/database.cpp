// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/database.h"
#include "logging.h"

#include "store/databasewatchdog.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSqlDriver>
#include <QThread>
#include <QUuid>
#include <libpq-fe.h>
#include <memory>
#include <poll.h>


namespace marquee::store {

namespace {
// Prepared statements of this thread, per connection name. Destroyed before their connection is removed.
thread_local QHash<QString, QHash<QString, std::shared_ptr<QSqlQuery>>> t_statements;

/** libpq's connection under Qt's, or nullptr. */
PGconn *linkOf(const QSqlDatabase &db)
{
    const QVariant handle = db.driver()->handle();
    // Qt names the type by libpq's struct (pg_conn*); older Qt versions by its typedef (PGconn*).
    if (qstrcmp(handle.typeName(), "pg_conn*") != 0 && qstrcmp(handle.typeName(), "PGconn*") != 0)
        return nullptr;
    return *static_cast<PGconn *const *>(handle.constData());
}

/**
 * True when PostgreSQL has ended this open, idle connection (a restart, a failover, pg_terminate_backend, an idle
 * timeout) without Qt noticing yet. Qt learns of it only when a statement fails, and a worker's first request after
 * that would answer 503 although nothing was wrong any more. A server that ends a backend sends an error and closes
 * the socket, so an idle connection with bytes waiting is one to test before use; the usual case costs one poll().
 * Only outside a transaction: reconnecting inside one would let its later statements run without the earlier ones.
 */
bool endedByServer(const QSqlDatabase &db)
{
    PGconn *link = linkOf(db);
    if (!link)
        return false;
    if (PQstatus(link) == CONNECTION_BAD)
        return true;
    // Qt reads a listening connection's socket itself (notifications); leave those to their own error handling.
    if (PQtransactionStatus(link) != PQTRANS_IDLE || !db.driver()->subscribedToNotifications().isEmpty())
        return false;
    pollfd socket{PQsocket(link), POLLIN, 0};
    if (socket.fd < 0)
        return true;
    if (::poll(&socket, 1, 0) == 0)
        return false;
    // Something arrived between statements: on a live link a stray notice at most. One round trip decides.
    QSqlQuery probe(db);
    return !probe.exec(QStringLiteral("SELECT 1"));
}
} // namespace

Database::Database(DatabaseConfig config)
    : m_config(std::move(config))
    , m_instanceId(QUuid::createUuid().toString(QUuid::Id128).left(16))
    , m_prefix(QStringLiteral("marquee-%1-").arg(m_instanceId.left(8)))
{
}

QString Database::connectionName() const
{
    QThread *thread = QThread::currentThread();
    const QString threadName = thread->objectName().isEmpty() ? QStringLiteral("thread") : thread->objectName();
    return m_prefix + threadName + QLatin1Char('-') + QString::number(reinterpret_cast<quintptr>(thread), 16);
}

QSqlDatabase Database::connection() const
{
    const QString name = connectionName();
    QSqlDatabase db = QSqlDatabase::contains(name) ? QSqlDatabase::database(name, false) : QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
    if (db.isOpen()) {
        if (!endedByServer(db))
            return db;
        qCInfo(lcStore) << "the database ended connection" << name << "while it was idle; reconnecting";
        closeConnection(db, name);
    }
    // Statements of a lost connection are gone on the server too; kept alive here until the next loss, because a caller
    // may still hold one it prepared before this reconnect (a statement that the watchdog ended under it).
    thread_local QHash<QString, std::shared_ptr<QSqlQuery>> t_lostStatements;
    t_lostStatements = t_statements.take(name);
    if (m_watchdog && !m_watchdog->mayConnect())
        return db; // closed: the caller answers "unavailable" now instead of after the connect timeout
    db.setHostName(m_config.host);
    db.setPort(m_config.port);
    db.setDatabaseName(m_config.database);
    db.setUserName(m_config.user);
    db.setPassword(m_config.password);
    // application_name names the instance (its process id) and the thread, so that pg_stat_activity and pg_locks
    // tell which server holds which connection and which job lease (JobLease).
    QString thread = QThread::currentThread()->objectName();
    thread.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]")), QStringLiteral("_"));
    // A database that does not answer must not hold a thread for long: opening gives up after the connect timeout,
    // and TCP keepalives end a connection whose peer vanished (a machine gone, a cable pulled). A database that is
    // there but silent (stalled) is the watchdog's (DatabaseWatchdog).
    QString options = QStringLiteral("connect_timeout=%1;application_name=marquee-%2-%3")
                          .arg(qMax(2, m_config.connectTimeoutSeconds))
                          .arg(QCoreApplication::applicationPid())
                          .arg(thread.isEmpty() ? QStringLiteral("thread") : thread.left(32));
    if (m_config.keepaliveIdleSeconds > 0)
        options += QStringLiteral(";keepalives=1;keepalives_idle=%1;keepalives_interval=%2;keepalives_count=3")
                       .arg(m_config.keepaliveIdleSeconds)
                       .arg(qMax(1, m_config.keepaliveIdleSeconds / 3));
    db.setConnectOptions(options);
    if (!db.open()) {
        qCWarning(lcStore) << "cannot open database" << m_config.toUrl() << db.lastError().text();
        return db;
    }
    if (m_watchdog) {
        PGconn *link = linkOf(db);
        m_watchdog->track(name, link ? PQsocket(link) : -1);
    }
    QSqlQuery setup(db);
    // Enforced by PostgreSQL on every statement of this connection: a statement that runs too long (a lock wait, a
    // runaway plan) is cancelled there and its request answers 503.
    if (m_config.statementTimeoutMs > 0)
        setup.exec(QStringLiteral("SET statement_timeout = %1").arg(m_config.statementTimeoutMs));
    // UTC everywhere: timestamps go on the wire as ISO 8601 UTC.
    setup.exec(QStringLiteral("SET TIME ZONE 'UTC'"));
    setup.exec(QStringLiteral("SET client_min_messages = warning"));
    // Names the writer in the seat notifications (sql/functions/mq_notify_seats.sql), so an instance tells its own
    // writes, which reached its seat maps already, from everybody else's.
    setup.exec(QStringLiteral("SET marquee.instance = '%1'").arg(m_instanceId));
    // No JIT: the reports' plans look expensive to the planner (a lateral per shift, a year of rollup rows) and
    // crossed jit_above_cost, and compiling them took 1-2 s of a 2-core machine for queries that run in tens of
    // milliseconds (docs/perf/journal.md, "sales, occupancy and shifts over a year with 1,000,000 tickets"); the short
    // OLTP statements never gain from it.
    setup.exec(QStringLiteral("SET jit = off"));
    return db;
}

int Database::sessionsOfThisProcess() const
{
    // Every connection of this process is named marquee-<pid>-<thread> (see connection()).
    QSqlQuery query(connection());
    query.prepare(QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?"));
    query.addBindValue(QStringLiteral("marquee-%1-%").arg(QCoreApplication::applicationPid()));
    if (!query.exec() || !query.next())
        return -1;
    return query.value(0).toInt();
}

bool Database::connectionBroken() const
{
    const QString name = connectionName();
    if (!QSqlDatabase::contains(name))
        return false;
    const QSqlDatabase db = QSqlDatabase::database(name, false);
    PGconn *link = db.isOpen() ? linkOf(db) : nullptr;
    return link && PQstatus(link) == CONNECTION_BAD;
}

bool Database::ping() const
{
    QSqlDatabase db = connection();
    if (!db.isOpen())
        return false;
    QSqlQuery query(db);
    if (query.exec(QStringLiteral("SELECT 1")))
        return true;
    // The server may have dropped the connection (restart, idle timeout): reopen once.
    closeConnection(db, connectionName());
    db = connection();
    return db.isOpen() && QSqlQuery(db).exec(QStringLiteral("SELECT 1"));
}

QSqlQuery *Database::prepared(const QString &sql) const
{
    QSqlDatabase db = connection();
    if (!db.isOpen())
        return nullptr;
    auto &statements = t_statements[connectionName()];
    auto it = statements.find(sql);
    if (it == statements.end()) {
        auto query = std::make_shared<QSqlQuery>(db);
        if (!prepareQuery(*query, sql))
            return nullptr;
        it = statements.insert(sql, query);
    }
    return it->get();
}

void Database::resetAfterError(const QSqlError &error) const
{
    if (error.type() != QSqlError::ConnectionError && connection().isOpen()) {
        // A statement error leaves the connection usable; only a broken link needs a reconnect.
        QSqlQuery probe(connection());
        if (probe.exec(QStringLiteral("SELECT 1")))
            return;
    }
    const QString name = connectionName();
    t_statements.remove(name);
    if (QSqlDatabase::contains(name)) {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        closeConnection(db, name);
    }
}

void Database::closeConnection(QSqlDatabase &db, const QString &name) const
{
    if (m_watchdog)
        m_watchdog->forget(name);
    db.close();
}

void Database::closeThreadConnection() const
{
    const QString name = connectionName();
    t_statements.remove(name);
    if (!QSqlDatabase::contains(name))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        closeConnection(db, name);
    }
    QSqlDatabase::removeDatabase(name);
}

Transaction::Transaction(QSqlDatabase db)
    : m_db(std::move(db))
{
    m_active = m_db.isOpen() && m_db.transaction();
    if (!m_active)
        qCWarning(lcStore) << "cannot begin a transaction:" << m_db.lastError().text();
}

Transaction::~Transaction()
{
    if (m_active)
        m_db.rollback();
}

bool Transaction::commit()
{
    if (!m_active)
        return false;
    m_active = false;
    if (!m_db.commit()) {
        qCWarning(lcStore) << "commit failed:" << m_db.lastError().text();
        m_db.rollback();
        return false;
    }
    return true;
}

namespace {
bool runInTransaction(QSqlDatabase &db, bool active, const QString &sql)
{
    if (!active || !db.isOpen())
        return false;
    QSqlQuery query(db);
    if (!query.exec(sql)) {
        qCWarning(lcStore) << sql << "failed:" << query.lastError().text();
        return false;
    }
    return true;
}
} // namespace

bool Transaction::savepoint()
{
    return runInTransaction(m_db, m_active, QStringLiteral("SAVEPOINT mq_step"));
}

bool Transaction::releaseSavepoint()
{
    return runInTransaction(m_db, m_active, QStringLiteral("RELEASE SAVEPOINT mq_step"));
}

bool Transaction::rollbackToSavepoint()
{
    return runInTransaction(m_db, m_active, QStringLiteral("ROLLBACK TO SAVEPOINT mq_step"));
}

bool Database::commitEachBehindSavepoint(size_t count, const std::function<bool(size_t step)> &step) const
{
    Transaction transaction(connection());
    bool usable = transaction.isActive();
    for (size_t i = 0; i < count && usable; ++i) {
        if (!transaction.savepoint()) {
            usable = false;
            break;
        }
        // A failed statement leaves the transaction aborted until it returns to the savepoint.
        usable = step(i) ? transaction.releaseSavepoint() : transaction.rollbackToSavepoint();
    }
    return usable && transaction.commit();
}

bool prepareQuery(QSqlQuery &query, const QString &sql)
{
    if (query.prepare(sql))
        return true;
    qCWarning(lcStore) << "prepare failed:" << query.lastError().text() << sql.left(200);
    return false;
}

bool execQuery(QSqlQuery &query, const char *what)
{
    if (query.exec())
        return true;
    qCWarning(lcStore) << what << "failed:" << query.lastError().text();
    return false;
}

QString toPgTextArray(const QStringList &items)
{
    QString out = QStringLiteral("{");
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i)
            out += QLatin1Char(',');
        QString item = items[i];
        item.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
        out += QLatin1Char('"') + item + QLatin1Char('"');
    }
    out += QLatin1Char('}');
    return out;
}

QStringList fromPgTextArray(const QString &literal)
{
    QStringList items;
    if (literal.size() < 2 || literal.front() != QLatin1Char('{') || literal.back() != QLatin1Char('}'))
        return items;
    QString current;
    bool quoted = false;
    bool inQuotes = false;
    for (qsizetype i = 1; i < literal.size() - 1; ++i) {
        const QChar c = literal[i];
        if (inQuotes) {
            if (c == QLatin1Char('\\') && i + 1 < literal.size() - 1) {
                current += literal[++i];
            } else if (c == QLatin1Char('"')) {
                inQuotes = false;
            } else {
                current += c;
            }
        } else if (c == QLatin1Char('"')) {
            inQuotes = true;
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            items.append(current);
            current.clear();
            quoted = false;
        } else {
            current += c;
        }
    }
    if (!current.isEmpty() || quoted)
        items.append(current);
    return items;
}

} // namespace marquee::store
