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
    // Every function file recorded once with its checksum, and the functions the server calls exist.
    ASSERT_TRUE(query.exec(QStringLiteral("SELECT count(*), count(DISTINCT checksum) FROM schema_functions")) && query.next());
    EXPECT_EQ(query.value(0).toInt(), QDir(QStringLiteral(":/functions")).entryList({QStringLiteral("*.sql")}, QDir::Files).size());
    EXPECT_EQ(query.value(1).toInt(), query.value(0).toInt());
    for (const char *function : {"mq_place_hold", "mq_place_holds", "mq_release_hold", "mq_reap_expired_holds", "mq_publish_feed",
                                 "mq_waiting_room_tick", "mq_sales_rollup_rebuild", "mq_layout_report_seats_rebuild"}) {
        ASSERT_TRUE(query.exec(QStringLiteral("SELECT count(*) FROM pg_proc WHERE proname = '%1'").arg(QLatin1String(function))) && query.next());
        EXPECT_EQ(query.value(0).toInt(), 1) << function;
    }
    database.closeThreadConnection();
}

namespace {
struct SqlFolders {
    QTemporaryDir root;
    QString migrations() const { return root.filePath(QStringLiteral("migrations")); }
    QString functions() const { return root.filePath(QStringLiteral("functions")); }
    SqlFolders()
    {
        QDir(root.path()).mkpath(QStringLiteral("migrations"));
        QDir(root.path()).mkpath(QStringLiteral("functions"));
    }
    void write(const QString &folder, const QString &name, const QByteArray &sql) const
    {
        QFile file(QDir(folder).filePath(name));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(sql);
    }
};

QVariant scalar(QSqlDatabase db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QVariant(query.lastError().text());
    return query.value(0);
}
} // namespace

// Functions, triggers and views live once each in a function file. A changed file is applied again (and the
// database is not current until it is); an unchanged one is left alone.
TEST(Migrations, AFunctionFileIsAppliedAgainWhenItChangesAndOnlyThen)
{
    SqlFolders sql;
    sql.write(sql.migrations(), QStringLiteral("001_table.sql"), "CREATE TABLE answers (n int);");
    sql.write(sql.functions(), QStringLiteral("answer.sql"), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;");

    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database, sql.migrations(), sql.functions());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Behind);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);
    QSqlDatabase db = database.connection();
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT answer()")).toInt(), 1);
    const QString firstApplied = scalar(db, QStringLiteral("SELECT applied_at::text FROM schema_functions WHERE name = 'answer.sql'")).toString();

    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString()); // unchanged: not applied again
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT applied_at::text FROM schema_functions WHERE name = 'answer.sql'")).toString(), firstApplied);

    sql.write(sql.functions(), QStringLiteral("answer.sql"), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;");
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Behind);
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Current);
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT answer()")).toInt(), 2);
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT count(*) FROM schema_functions")).toInt(), 1);
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT checksum FROM schema_functions")).toString().size(), 64); // SHA-256, hex
    database.closeThreadConnection();
}

// A migration's backfill that calls a function goes after the marker: it runs once the function files are in.
// A migration may drop a function whose file did not change: after any migration every file is applied again.
TEST(Migrations, AMigrationsPartAfterTheMarkerRunsOnceTheFunctionsExist)
{
    SqlFolders sql;
    sql.write(sql.migrations(), QStringLiteral("001_table.sql"),
              "CREATE TABLE answers (n int);\n\n-- marquee:after-functions\nINSERT INTO answers SELECT answer();\n");
    sql.write(sql.functions(), QStringLiteral("answer.sql"), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 42 $$;");

    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database, sql.migrations(), sql.functions());
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    QSqlDatabase db = database.connection();
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT string_agg(n::text, ',') FROM answers")).toString(), QStringLiteral("42"));

    sql.write(sql.migrations(), QStringLiteral("002_drop.sql"), "DROP FUNCTION answer();");
    ASSERT_TRUE(migrations.migrate()) << qPrintable(migrations.errorString());
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT answer()")).toInt(), 42);
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT count(*) FROM answers")).toInt(), 1); // the backfill ran once
    database.closeThreadConnection();
}

// One run is one transaction: a function file that fails leaves the migrations before it unapplied too.
TEST(Migrations, AFailingFunctionFileLeavesTheDatabaseAsItWas)
{
    SqlFolders sql;
    sql.write(sql.migrations(), QStringLiteral("001_table.sql"), "CREATE TABLE answers (n int);");
    sql.write(sql.functions(), QStringLiteral("answer.sql"), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT n FROM no_such_table $$;");

    store::Database database(test::TestCluster::instance().createDatabase());
    store::Migrations migrations(database, sql.migrations(), sql.functions());
    EXPECT_FALSE(migrations.migrate());
    EXPECT_TRUE(migrations.errorString().contains(QStringLiteral("answer.sql"))) << qPrintable(migrations.errorString());
    QSqlDatabase db = database.connection();
    EXPECT_FALSE(scalar(db, QStringLiteral("SELECT to_regclass('answers') IS NOT NULL")).toBool());
    EXPECT_EQ(scalar(db, QStringLiteral("SELECT count(*) FROM schema_migrations")).toInt(), 0);
    EXPECT_EQ(migrations.status(), store::Migrations::Status::Behind);
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
    store::Migrations migrations(database, directory.path(), directory.filePath(QStringLiteral("no-functions")));
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

// The append-only audit log on an external database: a server role that may not create roles runs every
// migration, 025 leaves the audit log with it (append-only by the triggers only), and the check says that the
// separation is missing.
TEST(Migrations, APlainRoleThatCannotCreateRolesMigratesAndIsToldTheAuditLogIsNotSeparated)
{
    store::DatabaseConfig config = test::TestCluster::instance().createDatabase();
    {
        store::Database superuser(config);
        QSqlQuery admin(superuser.connection());
        ASSERT_TRUE(admin.exec(QStringLiteral("CREATE ROLE mq_plain_owner LOGIN NOSUPERUSER NOCREATEROLE")) || admin.lastError().nativeErrorCode() == QLatin1String("42710"))
            << qPrintable(admin.lastError().text());
        // The test cluster asks every role for its password.
        ASSERT_TRUE(admin.exec(QStringLiteral("ALTER ROLE mq_plain_owner PASSWORD 'mq-plain-owner'"))) << qPrintable(admin.lastError().text());
        ASSERT_TRUE(admin.exec(QStringLiteral("ALTER DATABASE \"%1\" OWNER TO mq_plain_owner").arg(config.database))) << qPrintable(admin.lastError().text());
        superuser.closeThreadConnection();
    }
    config.user = QStringLiteral("mq_plain_owner");
    config.password = QStringLiteral("mq-plain-owner");
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
