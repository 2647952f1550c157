// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/backuprepository.h"
#include "store/staffrepository.h"

#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>

namespace marquee::store {

BackupRepository::BackupRepository(const Database &database)
    : m_database(database)
{
}

std::optional<QVariant> BackupRepository::scalar(const QString &sql)
{
    QSqlQuery query(m_database.connection());
    if (!prepareQuery(query, sql) || !execQuery(query, "backup inventory") || !query.next())
        return std::nullopt;
    return query.value(0);
}

std::optional<qint64> BackupRepository::userObjectCount()
{
    const auto count = scalar(QStringLiteral(
        "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' "
        "           AND n.nspname NOT LIKE 'pg_temp%') "
        "     + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')) "
        "     + (SELECT count(*) FROM pg_namespace n WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'public') "
        "           AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%')"));
    return count ? std::optional<qint64>(count->toLongLong()) : std::nullopt;
}

std::optional<qint64> BackupRepository::liveSigningKeyCount()
{
    const auto count = scalar(QStringLiteral("SELECT count(*) FROM signing_keys WHERE not_after > now()"));
    return count ? std::optional<qint64>(count->toLongLong()) : std::nullopt;
}

std::optional<QString> BackupRepository::serverVersion()
{
    const auto version = scalar(QStringLiteral("SELECT current_setting('server_version')"));
    return version ? std::optional<QString>(version->toString()) : std::nullopt;
}

bool BackupRepository::ensureDatabase(const Database &maintenance, const QString &name, QString *error)
{
    static const QRegularExpression plain(QStringLiteral("^[a-z_][a-z0-9_]{0,62}$"));
    if (!plain.match(name).hasMatch()) {
        *error = QStringLiteral("'%1' is not a database name this command creates (lower-case letters, digits, underscores)").arg(name);
        return false;
    }
    QSqlQuery exists(maintenance.connection());
    prepareQuery(exists, QStringLiteral("SELECT 1 FROM pg_database WHERE datname = ?"));
    exists.addBindValue(name);
    if (!execQuery(exists, "find database")) {
        *error = QStringLiteral("cannot look for the database %1: %2").arg(name, exists.lastError().text());
        return false;
    }
    if (exists.next())
        return true;
    // CREATE DATABASE takes no bound name; the name was checked above.
    QSqlQuery create(maintenance.connection());
    if (!create.exec(QStringLiteral("CREATE DATABASE \"%1\"").arg(name))) {
        *error = QStringLiteral("cannot create the database %1: %2").arg(name, create.lastError().text());
        return false;
    }
    return true;
}

bool BackupRepository::restoreAuditOwner(QString *error)
{
    const auto superuser = scalar(QStringLiteral("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"));
    const auto role = scalar(QStringLiteral("SELECT current_user"));
    if (!superuser || !role) {
        *error = QStringLiteral("cannot read the restoring role");
        return false;
    }
    if (!superuser->toBool())
        return true;
    // The same statements marquee-admin audit-protection prints; one simple-query batch, no bound values.
    QSqlQuery query(m_database.connection());
    if (!query.exec(AuditProtection::setupSql(role->toString()))) {
        *error = QStringLiteral("cannot give the audit log back to its owner: %1").arg(query.lastError().text());
        return false;
    }
    return true;
}

} // namespace marquee::store
