// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/database.h"
#include "store/migrations.h"
#include "store/staffrepository.h"
#include "testcluster.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QSqlError>
#include <QSqlQuery>
#include <gtest/gtest.h>

using namespace marquee;

TEST(Migrations, AppliesAllAndIsIdempotent)
{
    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database);
    EXPECT_EQ(migrations.currentVersion(), 0);
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Behind);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.currentVersion(), store::Migrations::latestVersion());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    QSqlQuery query(database.connection());
    // Every file applied once; the numbers need not be contiguous (each helper branch owns its own number).
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT count(*), max(version) FROM schema_migrations")) && query.next());
    EXPECT_EQ(query.value(0).toInt(), QDir(QStringLiteral(":/migrations")).entryList({QStringLiteral("*.sql")}, QDir::Files).size());
    EXPECT_EQ(query.value(1).toInt(), store::Migrations::latestVersion());
    database.closeThreadConnection();
}

TEST(Migrations, RefusesNewerSchema)
{
    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database);
    ASSERT_TRUE(migrations.migrate());
    QSqlQuery query(database.connection());
    ASSERT_TRUE(query.exec(QStringLiteral("INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')")));
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Ahead);
    EXPECT_FALSE(migrations.migrate());
    EXPECT_TRUE(migrations.errorString().contains(QStringLiteral("newer")));
    database.closeThreadConnection();
}

// Migrations are written on parallel branches and may land out of numeric order: one numbered below the highest
// already applied must still be applied, once, and the database is not "current" until it is.
TEST(Migrations, AppliesAMigrationThatLandedBelowTheHighestApplied)
{
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    const auto write = [&](const QString &name, const QByteArray &sql) {
        QFile file(directory.filePath(name));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(sql);
    };
    write(QStringLiteral("001_first.sql"), "CREATE TABLE gap_first (id int);");
    write(QStringLiteral("003_third.sql"), "CREATE TABLE gap_third (id int);");

    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database, directory.path());
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.currentVersion(), 3);
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);

    write(QStringLiteral("002_second.sql"), "CREATE TABLE gap_second (id int);");
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Behind);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString()); // nothing left: no second CREATE

    QSqlQuery query(database.connection());
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations")) && query.next());
    EXPECT_EQ(query.value(0).toString(), QStringLiteral("1,2,3"));
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT to_regclass('gap_second') IS NOT NULL")) && query.next());
    EXPECT_TRUE(query.value(0).toBool());
    database.closeThreadConnection();
}

// Issue 7 4.11 on an external database: a server role that may not create roles runs every migration, 025 leaves
// the audit log with it (append-only by the triggers only), and the check says that the separation is missing.
TEST(Migrations, APlainRoleThatCannotCreateRolesMigratesAndIsToldTheAuditLogIsNotSeparated)
{
    store::DatabaseConfig config = test::TestCluster::instance().createDatabase();
    {
        store::Database superuser(config);
        QSqlQuery admin(superuser.connection());
        ASSERT_TRUE(admin.exec(QStringLiteral("CREATE ROLE mq_plain_owner LOGIN NOSUPERUSER NOCREATEROLE")) || admin.lastError().nativeErrorCode() == QLatin1String("42710"))
            << qPrintable(admin.lastError().text());
        ASSERT_TRUE(admin.exec(QStringLiteral("ALTER DATABASE \"%1\" OWNER TO mq_plain_owner").arg(config.database))) << qPrintable(admin.lastError().text());
        superuser.closeThreadConnection();
    }
    config.user = QStringLiteral("mq_plain_owner");
    store::Database database(config);
    store::Migrations migrations(database);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);
    QSqlQuery query(database.connection());
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'audit_log'::regclass")) && query.next());
    EXPECT_EQ(query.value(0).toString(), QStringLiteral("mq_plain_owner"));
    // Still append-only by the triggers, and the server can write its entries.
    ASSERT_TRUE(query.exec(QStringLiteral("INSERT INTO audit_log (actor, actor_name, actor_role, action) VALUES ('session:1', 'mia', 'manager', 'test.add')")));
    EXPECT_FALSE(query.exec(QStringLiteral("DELETE FROM audit_log")));
    const auto protection = store::StaffRepository(database).auditProtection();
    ASSERT_TRUE(protection.has_value());
    EXPECT_FALSE(protection->inPlace);
    EXPECT_TRUE(protection->reason.contains(QStringLiteral("owns audit_log"))) << qPrintable(protection->reason);
    EXPECT_TRUE(store::AuditProtection::setupSql(protection->role).contains(QStringLiteral("GRANT SELECT, INSERT ON audit_log TO \"mq_plain_owner\"")));
    database.closeThreadConnection();
}
