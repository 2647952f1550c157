// SPDX-License-Identifier: AGPL-3.0-or-later
// A database as an upgrade finds it: every migration but some, for the tests of what an upgrade does to the data an
// older server left (tst_backup's pre-upgrade dumps, the stored answers of tst_orderwire and tst_holdwire).
#pragma once

#include "testcluster.h"

#include "store/authrepository.h"
#include "store/database.h"
#include "store/migrations.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QStringList>
#include <QTemporaryDir>
#include <algorithm>
#include <gtest/gtest.h>

namespace marquee::test {

/**
 * @brief A new database in the test cluster with every migration but @p leftOut (file names, "043_x.sql") applied
 * from folders under @p work; @p version is set to the version it records.
 */
inline store::DatabaseConfig schemaWithout(
    const QTemporaryDir &work, const QStringList &leftOut, int *version = nullptr)
{
    const QString folder = work.filePath(QStringLiteral("older-migrations"));
    QDir().mkpath(folder);
    const QStringList files
        = QDir(QStringLiteral(":/migrations")).entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name);
    QStringList newTables;
    const QRegularExpression createTable(QStringLiteral("CREATE TABLE (?:IF NOT EXISTS )?(\\w+)"));
    for (const QString &file : files) {
        if (!leftOut.contains(file)) {
            QFile::copy(QStringLiteral(":/migrations/") + file, folder + QLatin1Char('/') + file);
            continue;
        }
        QFile left(QStringLiteral(":/migrations/") + file);
        EXPECT_TRUE(left.open(QIODevice::ReadOnly)) << file.toStdString();
        for (auto match = createTable.globalMatch(QString::fromUtf8(left.readAll())); match.hasNext();)
            newTables << match.next().captured(1);
    }
    // Today's functions, but not those that name a table only a left-out migration creates: a %ROWTYPE of it is
    // resolved when the function is created. (A real older database has its own older functions; these stand in.)
    const QString functionsFolder = work.filePath(QStringLiteral("older-functions"));
    QDir().mkpath(functionsFolder);
    for (const QString &file :
        QDir(QStringLiteral(":/functions")).entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name)) {
        QFile function(QStringLiteral(":/functions/") + file);
        EXPECT_TRUE(function.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(function.readAll());
        const bool namesANewTable = std::any_of(newTables.cbegin(), newTables.cend(), [&](const QString &table) {
            return text.contains(QRegularExpression(QStringLiteral("\\b%1\\b").arg(table)));
        });
        if (!namesANewTable)
            QFile::copy(function.fileName(), functionsFolder + QLatin1Char('/') + file);
    }
    const store::DatabaseConfig config = TestCluster::instance().createDatabase(QStringLiteral("older"));
    store::Database database(config);
    store::Migrations older(database, folder, functionsFolder);
    EXPECT_TRUE(older.migrate()) << older.errorString().toStdString();
    if (version)
        *version = older.currentVersion();
    database.closeThreadConnection();
    return config;
}

/** @brief A database at the schema before the newest migration (@p version is set to it). */
inline store::DatabaseConfig olderSchema(const QTemporaryDir &work, int *version)
{
    const QStringList files
        = QDir(QStringLiteral(":/migrations")).entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name);
    return schemaWithout(work, {files.last()}, version);
}

/** @brief A kiosk enrolled in a database no server serves yet: its token, and the owner string its holds carry. */
struct EnrolledKiosk {
    QString token;
    QString owner; ///< "device:<id>"
};
inline EnrolledKiosk enrolKiosk(const store::Database &database, const QString &name)
{
    EnrolledKiosk kiosk;
    QString error;
    kiosk.token = store::AuthRepository(database).addDevice(name, Role::Kiosk, &error).value_or(QString());
    EXPECT_FALSE(kiosk.token.isEmpty()) << qPrintable(error);
    QSqlQuery device(database.connection());
    device.prepare(QStringLiteral("SELECT device_id FROM devices WHERE name = ?"));
    device.addBindValue(name);
    EXPECT_TRUE(device.exec() && device.next()) << name.toStdString();
    kiosk.owner = QStringLiteral("device:") + device.value(0).toString();
    return kiosk;
}

} // namespace marquee::test
