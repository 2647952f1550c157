// SPDX-License-Identifier: AGPL-3.0-or-later
#include "migrations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <map>
#include <set>

Q_DECLARE_LOGGING_CATEGORY(lcStore)

static void initMigrationResources()
{
    Q_INIT_RESOURCE(migrations);
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
} // namespace

Migrations::Migrations(const Database &database, QString directory)
    : m_database(database)
    , m_directory(std::move(directory))
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

int Migrations::currentVersion()
{
    const auto applied = appliedVersions();
    if (!applied)
        return -1;
    return applied->empty() ? 0 : *applied->rbegin();
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
                                   "version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"))) {
        m_error = query.lastError().text();
        return false;
    }
    const auto applied = appliedVersions();
    if (!applied)
        return false;
    const auto files = migrationFiles(m_directory);
    const int latest = files.empty() ? 0 : files.rbegin()->first;
    const int current = applied->empty() ? 0 : *applied->rbegin();
    if (current > latest) {
        m_error = QStringLiteral("the database schema is at version %1, newer than this binary's %2; refusing to run").arg(current).arg(latest);
        return false;
    }
    // Every migration not yet recorded is applied, in version order — also one numbered below the highest
    // applied, because migrations written in parallel can land in any order.
    for (const auto &[version, path] : files) {
        if (applied->count(version))
            continue;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            m_error = QStringLiteral("cannot read migration %1").arg(path);
            return false;
        }
        const QString sql = QString::fromUtf8(file.readAll());
        Transaction transaction(db);
        QSqlQuery apply(db);
        // The whole file is one simple-protocol batch (functions contain semicolons, so no splitting).
        if (!apply.exec(sql)) {
            m_error = QStringLiteral("migration %1 failed: %2").arg(QFileInfo(path).fileName(), apply.lastError().text());
            return false;
        }
        QSqlQuery record(db);
        record.prepare(QStringLiteral("INSERT INTO schema_migrations (version, name) VALUES (?, ?)"));
        record.addBindValue(version);
        record.addBindValue(QFileInfo(path).fileName());
        if (!record.exec() || !transaction.commit()) {
            m_error = QStringLiteral("cannot record migration %1: %2").arg(version).arg(record.lastError().text());
            return false;
        }
        qCInfo(lcStore) << "applied migration" << QFileInfo(path).fileName();
    }
    return true;
}

} // namespace marquee::store
