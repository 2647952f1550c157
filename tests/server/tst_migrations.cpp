// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/database.h"
#include "store/migrations.h"
#include "testcluster.h"

#include <QDir>
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
