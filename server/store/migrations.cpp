// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/migrations.h"
#include "logging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSqlDriver>
#include <libpq-fe.h>
#include <map>
#include <set>

static void initMigrationResources()
{
    Q_INIT_RESOURCE(migrations);
    Q_INIT_RESOURCE(functions);
}

namespace marquee::store {

namespace {
std::map<int, QString> migrationFiles(const QString &directory)
{
    initMigrationResources();
    std::map<int, QString> files;
    static const QRegularExpression pattern(QStringLiteral("^(\\d+)_.*\\.sql$"));
    const QDir dir(directory);
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
        const auto match = pattern.match(name);
        if (match.hasMatch())
            files[match.captured(1).toInt()] = dir.filePath(name);
    }
    return files;
}

/** Function files by name, in name order: the order they are applied in. */
std::map<QString, QString> functionFiles(const QString &directory)
{
    initMigrationResources();
    std::map<QString, QString> files;
    if (directory.isEmpty())
        return files;
    const QDir dir(directory);
    for (const QString &name : dir.entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name))
        files[name] = dir.filePath(name);
    return files;
}

std::optional<QByteArray> readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return file.readAll();
}

QByteArray checksum(const QByteArray &content)
{
    return QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex();
}

const QByteArray kAfterFunctionsMarker = "\n-- marquee:after-functions\n";

/**
 * Run @p script (several statements; function bodies hold semicolons) on @p db inside its open transaction and stop at
 * the first statement that fails: false with that statement's error. Through libpq, not QSqlQuery: Qt's driver reports
 * only the first statement's result of such a batch, so a later statement that failed went unnoticed until the next
 * one (which then failed with a misleading error, the real one lost).
 */
bool runScript(const QSqlDatabase &db, const QByteArray &script, QString *error)
{
    const QVariant handle = db.driver()->handle();
    // Qt names the type by libpq's struct (pg_conn*); older Qt versions by its typedef (PGconn*).
    PGconn *link = qstrcmp(handle.typeName(), "pg_conn*") == 0 || qstrcmp(handle.typeName(), "PGconn*") == 0
        ? *static_cast<PGconn *const *>(handle.constData())
        : nullptr;
    if (!link) {
        *error = QStringLiteral("no open PostgreSQL connection");
        return false;
    }
    PGresult *result = PQexec(link, script.constData()); // the first error, or the last statement's result
    const ExecStatusType status = PQresultStatus(result);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY;
    if (!ok)
        *error = QString::fromUtf8(result ? PQresultErrorMessage(result) : PQerrorMessage(link)).trimmed();
    PQclear(result);
    return ok;
}
} // namespace

Migrations::Migrations(const Database &database, QString directory, QString functionsDirectory)
    : m_database(database)
    , m_directory(std::move(directory))
    , m_functionsDirectory(std::move(functionsDirectory))
{
}

int Migrations::latestVersion()
{
    const auto files = migrationFiles(QStringLiteral(":/migrations"));
    return files.empty() ? 0 : files.rbegin()->first;
}

std::optional<std::set<int>> Migrations::appliedVersions()
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT to_regclass('schema_migrations') IS NOT NULL")) || !query.next()) {
        m_error = query.lastError().text();
        return std::nullopt;
    }
    std::set<int> versions;
    if (!query.value(0).toBool())
        return versions;
    if (!query.exec(QStringLiteral("SELECT version FROM schema_migrations"))) {
        m_error = query.lastError().text();
        return std::nullopt;
    }
    while (query.next())
        versions.insert(query.value(0).toInt());
    return versions;
}

std::optional<std::map<QString, QByteArray>> Migrations::appliedFunctions()
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT to_regclass('schema_functions') IS NOT NULL")) || !query.next()) {
        m_error = query.lastError().text();
        return std::nullopt;
    }
    std::map<QString, QByteArray> applied;
    if (!query.value(0).toBool())
        return applied;
    if (!query.exec(QStringLiteral("SELECT name, checksum FROM schema_functions"))) {
        m_error = query.lastError().text();
        return std::nullopt;
    }
    while (query.next())
        applied[query.value(0).toString()] = query.value(1).toByteArray();
    return applied;
}

int Migrations::currentVersion()
{
    const auto applied = appliedVersions();
    if (!applied)
        return -1;
    return applied->empty() ? 0 : *applied->rbegin();
}

std::optional<std::vector<int>> Migrations::pendingMigrations()
{
    const auto applied = appliedVersions();
    if (!applied)
        return std::nullopt;
    std::vector<int> pending;
    for (const auto &file : migrationFiles(m_directory)) {
        if (!applied->count(file.first))
            pending.push_back(file.first);
    }
    return pending;
}

Migrations::Status Migrations::status()
{
    const auto applied = appliedVersions();
    if (!applied)
        return Status::Error;
    const auto files = migrationFiles(m_directory);
    const int latest = files.empty() ? 0 : files.rbegin()->first;
    if (!applied->empty() && *applied->rbegin() > latest)
        return Status::Ahead;
    for (const auto &file : files) {
        if (!applied->count(file.first))
            return Status::Behind;
    }
    const auto functions = appliedFunctions();
    if (!functions)
        return Status::Error;
    for (const auto &[name, path] : functionFiles(m_functionsDirectory)) {
        const auto content = readFile(path);
        const auto recorded = functions->find(name);
        if (!content || recorded == functions->end() || recorded->second != checksum(*content))
            return Status::Behind;
    }
    return Status::Current;
}

bool Migrations::migrate()
{
    QSqlDatabase db = m_database.connection();
    if (!db.isOpen()) {
        m_error = QStringLiteral("cannot connect to the database: %1").arg(db.lastError().text());
        return false;
    }
    QSqlQuery query(db);
    // Serialise concurrent migrators (several servers starting at once) on one advisory lock.
    if (!query.exec(QStringLiteral("SELECT pg_advisory_lock(4242001)"))) {
        m_error = query.lastError().text();
        return false;
    }
    struct Unlock {
        QSqlDatabase db;
        ~Unlock() { QSqlQuery(db).exec(QStringLiteral("SELECT pg_advisory_unlock(4242001)")); }
    } unlock{db};

    if (!query.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_migrations ("
                                   "version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"))
        || !query.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_functions ("
                                      "name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"))) {
        m_error = query.lastError().text();
        return false;
    }
    const auto applied = appliedVersions();
    const auto appliedFunctionSums = appliedFunctions();
    if (!applied || !appliedFunctionSums)
        return false;
    const auto files = migrationFiles(m_directory);
    const int latest = files.empty() ? 0 : files.rbegin()->first;
    const int current = applied->empty() ? 0 : *applied->rbegin();
    if (current > latest) {
        m_error = QStringLiteral("the database schema is at version %1, newer than this binary's %2; refusing to run").arg(current).arg(latest);
        return false;
    }

    // Everything in one transaction: a schema is either wholly this binary's or left as it was.
    Transaction transaction(db);
    // A migration that fails is named; so is a function file (its statements run as one batch, no splitting:
    // function bodies contain semicolons).
    const auto run = [&](const QByteArray &sql, const QString &what) {
        QString error;
        if (!runScript(db, sql, &error)) {
            m_error = QStringLiteral("%1 failed: %2").arg(what, error);
            return false;
        }
        return true;
    };
    // Every migration not yet recorded is applied, in version order — also one numbered below the highest
    // applied, because migrations written in parallel can land in any order.
    QList<QPair<QString, QByteArray>> afterFunctions;
    bool migrated = false;
    for (const auto &[version, path] : files) {
        if (applied->count(version))
            continue;
        const QString name = QFileInfo(path).fileName();
        const auto content = readFile(path);
        if (!content) {
            m_error = QStringLiteral("cannot read migration %1").arg(path);
            return false;
        }
        const qsizetype marker = content->indexOf(kAfterFunctionsMarker);
        if (!run(marker < 0 ? *content : content->left(marker), QStringLiteral("migration %1").arg(name)))
            return false;
        if (marker >= 0)
            afterFunctions.append({name, content->mid(marker)});
        QSqlQuery record(db);
        record.prepare(QStringLiteral("INSERT INTO schema_migrations (version, name) VALUES (?, ?)"));
        record.addBindValue(version);
        record.addBindValue(name);
        if (!record.exec()) {
            m_error = QStringLiteral("cannot record migration %1: %2").arg(version).arg(record.lastError().text());
            return false;
        }
        migrated = true;
        qCInfo(lcStore) << "applied migration" << name;
    }
    // A migration may have dropped a function whose file did not change: after any migration, every file again.
    for (const auto &[name, path] : functionFiles(m_functionsDirectory)) {
        const auto content = readFile(path);
        if (!content) {
            m_error = QStringLiteral("cannot read function file %1").arg(path);
            return false;
        }
        const QByteArray sum = checksum(*content);
        const auto recorded = appliedFunctionSums->find(name);
        if (!migrated && recorded != appliedFunctionSums->end() && recorded->second == sum)
            continue;
        if (!run(*content, QStringLiteral("function file %1").arg(name)))
            return false;
        QSqlQuery record(db);
        record.prepare(QStringLiteral("INSERT INTO schema_functions (name, checksum) VALUES (?, ?) "
                                      "ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()"));
        record.addBindValue(name);
        record.addBindValue(QString::fromLatin1(sum));
        if (!record.exec()) {
            m_error = QStringLiteral("cannot record function file %1: %2").arg(name, record.lastError().text());
            return false;
        }
        qCInfo(lcStore) << "applied function file" << name;
    }
    for (const auto &[name, sql] : afterFunctions) {
        if (!run(sql, QStringLiteral("migration %1 (after the functions)").arg(name)))
            return false;
    }
    if (!transaction.commit()) {
        m_error = QStringLiteral("cannot commit the migrations: %1").arg(db.lastError().text());
        return false;
    }
    return true;
}

} // namespace marquee::store
