// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/serverrole.h"
#include "logging.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

namespace marquee::store::ServerRole {

namespace {
// Serialises the role and grant statements of servers starting at once (concurrent GRANTs on one table fail with
// "tuple concurrently updated"). The migrations use 4242001.
constexpr qint64 kGrantLock = 4242002;

QString identifier(const QString &name)
{
    QString quoted = name;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString literal(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

bool runAll(const Database &owner, const QStringList &statements, const char *what, QString *error)
{
    QSqlDatabase db = owner.connection();
    if (!db.isOpen()) {
        *error = QStringLiteral("cannot connect as the database owner %1: %2").arg(owner.config().user, db.lastError().text());
        return false;
    }
    if (!db.transaction()) {
        *error = db.lastError().text();
        return false;
    }
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kGrantLock))) {
        *error = query.lastError().text();
        db.rollback();
        return false;
    }
    for (const QString &statement : statements) {
        if (!query.exec(statement)) {
            // The statement itself may hold a password: name the step, not the text.
            *error = QStringLiteral("%1 failed: %2").arg(QString::fromLatin1(what), query.lastError().databaseText());
            db.rollback();
            return false;
        }
    }
    if (!db.commit()) {
        *error = db.lastError().text();
        return false;
    }
    return true;
}
} // namespace

bool ensureLoginRole(const Database &owner, const QString &role, const QString &password, QString *error)
{
    const QString attributes = QStringLiteral("LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT");
    return runAll(owner,
                  {QStringLiteral("SET LOCAL password_encryption = 'scram-sha-256'"),
                   QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %1) THEN CREATE ROLE %2; END IF; "
                                  // roles belong to the cluster: another database's server may create it at the same moment
                                  "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$")
                       .arg(literal(role), identifier(role)),
                   QStringLiteral("ALTER ROLE %1 %2 PASSWORD %3").arg(identifier(role), attributes, literal(password))},
                  "creating the server's database role", error);
}

bool grant(const Database &owner, const QString &role, QString *error)
{
    QSqlQuery name(owner.connection());
    if (!name.exec(QStringLiteral("SELECT current_database()")) || !name.next()) {
        *error = QStringLiteral("cannot read the database's name: %1").arg(name.lastError().text());
        return false;
    }
    const QString database = identifier(name.value(0).toString());
    const QString r = identifier(role);
    // Taken away first, then given: a right granted by hand or by an older version does not linger. Every table
    // of the schema, including those of migrations written after this code; the exceptions are named.
    const QStringList statements = {
        QStringLiteral("REVOKE CREATE, TEMPORARY ON DATABASE %1 FROM PUBLIC, %2").arg(database, r),
        QStringLiteral("GRANT CONNECT ON DATABASE %1 TO %2").arg(database, r),
        QStringLiteral("REVOKE CREATE ON SCHEMA public FROM PUBLIC, %1").arg(r),
        QStringLiteral("GRANT USAGE ON SCHEMA public TO %1").arg(r),
        QStringLiteral("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM %1").arg(r),
        QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %1").arg(r),
        // The schema's history is the migrations' business.
        QStringLiteral("REVOKE INSERT, UPDATE, DELETE ON schema_migrations, schema_functions FROM %1").arg(r),
        // The audit log is append-only for the server (its triggers refuse changes too; this refuses them first).
        QStringLiteral("REVOKE UPDATE, DELETE ON audit_log FROM %1").arg(r),
        // Devices and staff accounts are created and removed by marquee-admin as the owner, never by the server.
        QStringLiteral("REVOKE INSERT, DELETE ON devices, staff FROM %1").arg(r),
        // Pairing codes are the owner's (marquee-admin); the server redeems one only through mq_redeem_pairing_code.
        QStringLiteral("REVOKE ALL ON pairing_codes FROM %1").arg(r),
        QStringLiteral("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM %1").arg(r),
        QStringLiteral("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %1").arg(r),
        QStringLiteral("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %1").arg(r),
        QStringLiteral("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %1").arg(r),
        QStringLiteral("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO %1").arg(r),
    };
    return runAll(owner, statements, "granting the server's database role its rights", error);
}

std::optional<QStringList> excessRights(const Database &database, const QString &role, QString *error)
{
    QSqlQuery query(database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls, "
        "       has_database_privilege(r.rolname, current_database(), 'CREATE'), "
        "       has_schema_privilege(r.rolname, 'public', 'CREATE'), "
        "       pg_has_role(r.rolname, 'pg_execute_server_program', 'USAGE'), "
        "       pg_has_role(r.rolname, 'pg_read_server_files', 'USAGE'), "
        "       pg_has_role(r.rolname, 'pg_write_server_files', 'USAGE'), "
        "       has_table_privilege(r.rolname, 'audit_log', 'UPDATE') OR has_table_privilege(r.rolname, 'audit_log', 'DELETE') "
        "           OR has_table_privilege(r.rolname, 'audit_log', 'TRUNCATE'), "
        "       has_table_privilege(r.rolname, 'devices', 'INSERT'), "
        "       EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "                WHERE n.nspname = 'public' AND pg_has_role(r.rolname, c.relowner, 'USAGE')) "
        "  FROM pg_roles r WHERE r.rolname = ?"));
    query.addBindValue(role);
    if (!execQuery(query, "server role rights")) {
        *error = query.lastError().text();
        return std::nullopt;
    }
    if (!query.next()) {
        *error = QStringLiteral("there is no database role %1").arg(role);
        return std::nullopt;
    }
    static const char *const names[] = {"is a superuser", "may create roles", "may create databases", "bypasses row security",
                                        "may create schemas in the database", "may create objects in the schema public",
                                        "may run programs on the database server", "may read files of the database server",
                                        "may write files of the database server", "may change or delete audit log entries",
                                        "may add devices", "owns tables of the schema (may change or drop them)"};
    QStringList found;
    for (int i = 0; i < 12; ++i) {
        if (query.value(i).toBool())
            found << QString::fromLatin1(names[i]);
    }
    return found;
}

} // namespace marquee::store::ServerRole
