// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-admin backup and restore: a round trip into a second database served by a real marquee-server, damaged
// backups, targets that are not empty, the files' modes.
#include "olderschema.h"
#include "serverprocess.h"
#include "servertesthelpers.h"
#include "testcluster.h"

#include "core/isotime.h"
#include "core/ticketcodec.h"
#include "store/database.h"
#include "store/embeddedpostgres.h"
#include "store/migrations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <algorithm>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace marquee;
using namespace marquee::test;

namespace {

struct AdminRun {
    int exitCode = -1;
    QString out;
    QString err;
};

/** @brief The real marquee-admin against @p databaseUrl with @p dataDirectory. */
AdminRun admin(const QString &databaseUrl, const QString &dataDirectory, const QStringList &arguments)
{
    QProcess process;
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                  QStringList{QStringLiteral("--database-url"), databaseUrl, QStringLiteral("--data-dir"), dataDirectory} + arguments);
    if (!process.waitForFinished(180000))
        process.kill();
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

/** @brief A cash sale at the till (hold, order, confirm): the confirmed booking. */
QJsonObject sellCash(HttpClient &client, qint64 showId, const QStringList &seats)
{
    const HttpResult held = client.post(holdPath(showId), seatsBody(seats));
    EXPECT_EQ(held.status, 200) << held.body.constData();
    const HttpResult order = client.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))},
                                                                        {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    EXPECT_EQ(order.status, 201) << order.body.constData();
    const QJsonObject created = order.json();
    const HttpResult confirmed = client.post("/api/v1/orders/" + created.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                                             QJsonObject{{QStringLiteral("payment_intent_id"), created.value(QStringLiteral("payment_intent_id"))}});
    EXPECT_EQ(confirmed.status, 200) << confirmed.body.constData();
    return confirmed.json();
}

QString firstQr(const QJsonObject &booking)
{
    return booking.value(QStringLiteral("tickets")).toArray().first()[QStringLiteral("qr")].toString();
}

QJsonObject scan(const QString &qr)
{
    return QJsonObject{{QStringLiteral("qr"), qr},
                       {QStringLiteral("nonce"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
                       {QStringLiteral("scanned_at"), toIsoUtc(QDateTime::currentDateTimeUtc())}};
}

/** @brief The first column of the first row of @p sql on @p database (a fresh connection of this thread). */
QVariant scalarOn(const store::DatabaseConfig &database, const QString &sql)
{
    store::Database connection(database);
    QVariant value;
    {
        QSqlQuery query(connection.connection());
        if (query.exec(sql) && query.next())
            value = query.value(0);
    }
    connection.closeThreadConnection();
    return value;
}

qint64 objectsIn(const store::DatabaseConfig &database)
{
    return scalarOn(database, QStringLiteral("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"))
        .toLongLong();
}

QHash<quint32, QByteArray> publishedKeys(HttpClient &client)
{
    QHash<quint32, QByteArray> keys;
    for (const QJsonValue &key : client.get("/api/v1/keys").jsonArray())
        keys.insert(quint32(key[QStringLiteral("key_id")].toInteger()), QByteArray::fromBase64(key[QStringLiteral("public_key")].toString().toLatin1()));
    return keys;
}

int modeOf(const QString &path)
{
    struct stat info {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 07777) : -1;
}

/** @brief A show starting in an hour: its tickets admit now (doors opened two hours ago). */
qint64 showStartingSoon(TestServer &server)
{
    return server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600), QDateTime::currentDateTimeUtc().addSecs(-60));
}

QStringList preUpgradeDumps(const QString &directory)
{
    return QDir(directory).entryList({QStringLiteral("pre-upgrade-*.dump")}, QDir::Files, QDir::Name);
}

} // namespace

TEST(Backup, RoundTripIntoASecondDatabaseServesOrdersRefundsCheckInsAndTheSameSigningKeys)
{
    TestServer original;
    const qint64 showId = showStartingSoon(original);
    const QString cashierToken = original.elevatedStaffToken(QStringLiteral("cashier"));
    const QString managerToken = original.elevatedStaffToken(QStringLiteral("manager"));
    const QString doorToken = original.deviceToken(QStringLiteral("till"));
    auto cashier = original.client(cashierToken);
    const QJsonObject kept = sellCash(*cashier, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QJsonObject toRefund = sellCash(*cashier, showId, {QStringLiteral("A3")});
    ASSERT_FALSE(firstQr(kept).isEmpty());

    QTemporaryDir work;
    const QString backupDir = work.filePath(QStringLiteral("backup"));
    const AdminRun backup = admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup"), QStringLiteral("--to"), backupDir});
    ASSERT_EQ(backup.exitCode, 0) << backup.err.toStdString();
    EXPECT_TRUE(backup.out.contains(QStringLiteral("backed up"))) << backup.out.toStdString();
    // Sold after the backup: not in it.
    const QJsonObject later = sellCash(*cashier, showId, {QStringLiteral("B1")});

    const store::DatabaseConfig target = TestCluster::instance().createDatabase(QStringLiteral("restored"));
    const QString restoredData = work.filePath(QStringLiteral("restored-data"));
    ASSERT_TRUE(QDir().mkpath(restoredData));
    const AdminRun restore = admin(target.toUrl(true), restoredData,
                                   {QStringLiteral("restore"), QStringLiteral("--from"), backupDir, QStringLiteral("--kek-to"),
                                    restoredData + QStringLiteral("/signing-kek")});
    ASSERT_EQ(restore.exitCode, 0) << restore.err.toStdString();
    EXPECT_TRUE(restore.out.contains(QStringLiteral("1 signing keys open"))) << restore.out.toStdString();
    EXPECT_EQ(modeOf(restoredData + QStringLiteral("/signing-kek")), 0600);
    QFile originalKey(original.dataDirectory() + QStringLiteral("/signing-kek"));
    QFile restoredKey(restoredData + QStringLiteral("/signing-kek"));
    ASSERT_TRUE(originalKey.open(QIODevice::ReadOnly) && restoredKey.open(QIODevice::ReadOnly));
    EXPECT_EQ(originalKey.readAll(), restoredKey.readAll());

    // The real server on the restored database and the restored key-encryption key.
    ServerProcess restored(target.toUrl(true), freePort(), restoredData);
    ASSERT_TRUE(restored.waitReady()) << restored.output().constData();
    HttpClient staff(QStringLiteral("127.0.0.1"), restored.port());
    staff.setToken(cashierToken); // sessions are in the database: the cashier is still signed in

    const HttpResult keptBooking = staff.get("/api/v1/bookings/" + kept.value(QStringLiteral("booking_id")).toString().toUtf8());
    ASSERT_EQ(keptBooking.status, 200) << keptBooking.body.constData();
    EXPECT_EQ(keptBooking.json().value(QStringLiteral("state")).toString(), QStringLiteral("confirmed"));
    EXPECT_EQ(stringList(keptBooking.json().value(QStringLiteral("seats"))), (QStringList{QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_EQ(staff.get("/api/v1/orders/" + kept.value(QStringLiteral("order_id")).toString().toUtf8()).status, 200);
    EXPECT_API_ERROR(staff.get("/api/v1/bookings/" + later.value(QStringLiteral("booking_id")).toString().toUtf8()), 404, "booking_not_found");

    // The show starts within the cancel cutoff: the manager's override, re-authenticated before the backup.
    HttpClient manager(QStringLiteral("127.0.0.1"), restored.port());
    manager.setToken(managerToken);
    const HttpResult refund = manager.post("/api/v1/bookings/" + toRefund.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel",
                                           QJsonObject{{QStringLiteral("reason"), QStringLiteral("restored from a backup")}});
    ASSERT_EQ(refund.status, 200) << refund.body.constData();
    EXPECT_EQ(scalarOn(target, QStringLiteral("SELECT count(*) FROM refunds")).toLongLong(), 1);

    HttpClient door(QStringLiteral("127.0.0.1"), restored.port());
    door.setToken(doorToken);
    const HttpResult admitted = door.post("/api/v1/checkin", scan(firstQr(kept)));
    ASSERT_EQ(admitted.status, 200) << admitted.body.constData();
    EXPECT_EQ(admitted.json().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
    EXPECT_EQ(door.post("/api/v1/checkin", scan(firstQr(toRefund))).json().value(QStringLiteral("result")).toString(), QStringLiteral("revoked"));

    // Every key still verifies what it signed before the backup, and the restored server signs with the same key.
    const QHash<quint32, QByteArray> keys = publishedKeys(staff);
    ASSERT_EQ(keys.size(), 1);
    const TicketVerification before = TicketCodec::verify(firstQr(kept), keys);
    EXPECT_EQ(before.result, TicketCheck::Ok);
    const QJsonObject after = sellCash(staff, showId, {QStringLiteral("B2")});
    const TicketVerification signedAfter = TicketCodec::verify(firstQr(after), keys);
    EXPECT_EQ(signedAfter.result, TicketCheck::Ok);
    EXPECT_EQ(signedAfter.payload.keyId, before.payload.keyId);
    EXPECT_EQ(door.post("/api/v1/checkin", scan(firstQr(after))).json().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
}

TEST(Backup, ADamagedBackupIsRefusedBeforeAnythingChanges)
{
    TestServer original;
    showStartingSoon(original);
    QTemporaryDir work;
    const QString backupDir = work.filePath(QStringLiteral("backup"));
    ASSERT_EQ(admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup"), QStringLiteral("--to"), backupDir}).exitCode, 0);
    const store::DatabaseConfig target = TestCluster::instance().createDatabase(QStringLiteral("damaged"));
    const QString kekTo = work.filePath(QStringLiteral("kek"));

    const auto damaged = [&](const QString &name, const std::function<void(const QString &dir)> &damage, const QString &expected) {
        const QString copy = work.filePath(name);
        ASSERT_TRUE(QDir().mkpath(copy));
        for (const QString &file : QDir(backupDir).entryList(QDir::Files))
            ASSERT_TRUE(QFile::copy(backupDir + QLatin1Char('/') + file, copy + QLatin1Char('/') + file));
        damage(copy);
        const AdminRun run = admin(target.toUrl(true), work.path(), {QStringLiteral("restore"), QStringLiteral("--from"), copy, QStringLiteral("--kek-to"), kekTo});
        EXPECT_EQ(run.exitCode, 1) << name.toStdString();
        EXPECT_TRUE(run.err.contains(expected)) << name.toStdString() << ": " << run.err.toStdString();
        EXPECT_EQ(objectsIn(target), 0) << name.toStdString();
        EXPECT_FALSE(QFileInfo::exists(kekTo)) << name.toStdString();
    };
    const auto edit = [](const QString &path, const std::function<void(QByteArray &)> &change) {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        change(bytes);
        file.resize(0);
        file.seek(0);
        file.write(bytes);
    };
    damaged(QStringLiteral("flipped"), [&](const QString &dir) { edit(dir + QStringLiteral("/database.dump"), [](QByteArray &b) { b[b.size() / 2] = char(b[b.size() / 2] ^ 0x01); }); },
            QStringLiteral("database.dump does not match its SHA-256"));
    damaged(QStringLiteral("truncated"), [&](const QString &dir) { edit(dir + QStringLiteral("/database.dump"), [](QByteArray &b) { b.chop(100); }); },
            QStringLiteral("truncated"));
    damaged(QStringLiteral("other-key"), [&](const QString &dir) { edit(dir + QStringLiteral("/signing-kek"), [](QByteArray &b) { b[0] = char(b[0] ^ 0x80); }); },
            QStringLiteral("signing-kek does not match"));
    damaged(QStringLiteral("manifest-checksum"),
            [&](const QString &dir) {
                edit(dir + QStringLiteral("/manifest.json"), [](QByteArray &b) {
                    QJsonObject manifest = QJsonDocument::fromJson(b).object();
                    QJsonArray files = manifest.value(QStringLiteral("files")).toArray();
                    QJsonObject first = files[0].toObject();
                    first.insert(QStringLiteral("sha256"), QString(64, QLatin1Char('0')));
                    files[0] = first;
                    manifest.insert(QStringLiteral("files"), files);
                    b = QJsonDocument(manifest).toJson();
                });
            },
            QStringLiteral("does not match its SHA-256"));
    damaged(QStringLiteral("manifest-path"),
            [&](const QString &dir) { edit(dir + QStringLiteral("/manifest.json"), [](QByteArray &b) { b.replace("\"database.dump\"", "\"../database.dump\""); }); },
            QStringLiteral("lists a file it should not"));
    damaged(QStringLiteral("manifest-garbage"), [&](const QString &dir) { edit(dir + QStringLiteral("/manifest.json"), [](QByteArray &b) { b.chop(b.size() / 2); }); },
            QStringLiteral("is not a Marquee backup manifest"));
    damaged(QStringLiteral("no-manifest"), [&](const QString &dir) { QFile::remove(dir + QStringLiteral("/manifest.json")); },
            QStringLiteral("manifest.json"));

    // The intact backup restores into the same database afterwards: nothing was left behind.
    const AdminRun intact = admin(target.toUrl(true), work.path(), {QStringLiteral("restore"), QStringLiteral("--from"), backupDir, QStringLiteral("--kek-to"), kekTo});
    EXPECT_EQ(intact.exitCode, 0) << intact.err.toStdString();
    EXPECT_GT(objectsIn(target), 0);
}

TEST(Backup, RestoreRefusesADatabaseThatIsNotEmptyAndAnotherKeyEncryptionKey)
{
    TestServer original;
    const qint64 showId = showStartingSoon(original);
    auto cashier = original.client(original.staffToken());
    sellCash(*cashier, showId, {QStringLiteral("A1")});
    QTemporaryDir work;
    const QString backupDir = work.filePath(QStringLiteral("backup"));
    ASSERT_EQ(admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup"), QStringLiteral("--to"), backupDir}).exitCode, 0);
    sellCash(*cashier, showId, {QStringLiteral("A2")});

    // Into the live database itself: refused, the sale made after the backup is still there.
    const AdminRun live = admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("restore"), QStringLiteral("--from"), backupDir});
    EXPECT_EQ(live.exitCode, 1);
    EXPECT_TRUE(live.err.contains(QStringLiteral("is not empty"))) << live.err.toStdString();
    EXPECT_EQ(original.scalar(QStringLiteral("SELECT count(*) FROM bookings")).toLongLong(), 2);

    // Into a database with one table of someone else's: refused, the table untouched.
    const store::DatabaseConfig used = TestCluster::instance().createDatabase(QStringLiteral("used"));
    scalarOn(used, QStringLiteral("CREATE TABLE notes (id int)"));
    const AdminRun other = admin(used.toUrl(true), work.path(), {QStringLiteral("restore"), QStringLiteral("--from"), backupDir, QStringLiteral("--kek-to"), work.filePath(QStringLiteral("kek"))});
    EXPECT_EQ(other.exitCode, 1);
    EXPECT_TRUE(other.err.contains(QStringLiteral("is not empty"))) << other.err.toStdString();
    EXPECT_EQ(objectsIn(used), 1);

    // An empty database, but another key-encryption key where the restored one would go: refused before restoring.
    const store::DatabaseConfig empty = TestCluster::instance().createDatabase(QStringLiteral("empty"));
    QFile foreign(work.filePath(QStringLiteral("foreign-kek")));
    ASSERT_TRUE(foreign.open(QIODevice::WriteOnly));
    foreign.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    foreign.write(QByteArray(32, 'x'));
    foreign.close();
    const AdminRun foreignKey = admin(empty.toUrl(true), work.path(), {QStringLiteral("restore"), QStringLiteral("--from"), backupDir, QStringLiteral("--kek-to"), foreign.fileName()});
    EXPECT_EQ(foreignKey.exitCode, 1);
    EXPECT_TRUE(foreignKey.err.contains(QStringLiteral("holds another key-encryption key"))) << foreignKey.err.toStdString();
    EXPECT_EQ(objectsIn(empty), 0);
}

TEST(Backup, BackupWritesPrivateFilesAndAManifestAndRefusesANonEmptyDirectory)
{
    TestServer original;
    QTemporaryDir work;
    const QString backupDir = work.filePath(QStringLiteral("nested/backup"));
    const AdminRun run = admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup"), QStringLiteral("--to"), backupDir});
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
    EXPECT_EQ(modeOf(backupDir), 0700);
    for (const char *file : {"database.dump", "signing-kek", "manifest.json"})
        EXPECT_EQ(modeOf(backupDir + QLatin1Char('/') + QLatin1String(file)), 0600) << file;
    QFile manifestFile(backupDir + QStringLiteral("/manifest.json"));
    ASSERT_TRUE(manifestFile.open(QIODevice::ReadOnly));
    const QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
    EXPECT_EQ(manifest.value(QStringLiteral("format")).toString(), QStringLiteral("marquee-backup/1"));
    EXPECT_EQ(manifest.value(QStringLiteral("schema_version")).toInt(), original.scalar(QStringLiteral("SELECT max(version) FROM schema_migrations")).toInt());
    EXPECT_EQ(manifest.value(QStringLiteral("server_version")).toString(), QStringLiteral(MARQUEE_VERSION));
    EXPECT_EQ(manifest.value(QStringLiteral("database")).toString(), original.databaseConfig().database);
    EXPECT_LE(qAbs(fromIso(manifest.value(QStringLiteral("created_at")).toString()).secsTo(QDateTime::currentDateTimeUtc())), 120);
    EXPECT_TRUE(manifest.value(QStringLiteral("created_at")).toString().endsWith(QLatin1Char('Z')));
    const QJsonArray files = manifest.value(QStringLiteral("files")).toArray();
    ASSERT_EQ(files.size(), 2);
    EXPECT_EQ(files[0][QStringLiteral("size")].toInteger(), QFileInfo(backupDir + QStringLiteral("/database.dump")).size());
    EXPECT_EQ(files[1][QStringLiteral("size")].toInteger(), 32);
    EXPECT_EQ(files[1][QStringLiteral("sha256")].toString().size(), 64);

    const AdminRun again = admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup"), QStringLiteral("--to"), backupDir});
    EXPECT_EQ(again.exitCode, 1);
    EXPECT_TRUE(again.err.contains(QStringLiteral("is not empty"))) << again.err.toStdString();
    EXPECT_EQ(admin(original.databaseUrl(), original.dataDirectory(), {QStringLiteral("backup")}).exitCode, 2);
}

TEST(Backup, AServerThatFindsMigrationsPendingDumpsTheDatabaseFirstAndKeepsTheNewestDumps)
{
    QTemporaryDir work;
    int older = 0;
    const store::DatabaseConfig database = olderSchema(work, &older);
    ASSERT_GT(older, 0);
    ASSERT_LT(older, store::Migrations::latestVersion());
    scalarOn(database, QStringLiteral("INSERT INTO cities (name, country, time_zone) VALUES ('Before the upgrade', 'XX', 'UTC') RETURNING 1"));
    const QString backups = work.filePath(QStringLiteral("backups"));
    // Four dumps of earlier upgrades; with three kept, the two oldest of them go.
    ASSERT_TRUE(QDir().mkpath(backups));
    for (const char *name : {"pre-upgrade-1-2-20250101T000000Z.dump", "pre-upgrade-2-3-20250201T000000Z.dump", "pre-upgrade-3-4-20250301T000000Z.dump",
                             "pre-upgrade-4-5-20250401T000000Z.dump"}) {
        QFile file(backups + QLatin1Char('/') + QLatin1String(name));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    }
    TestServer::Options options;
    options.database = database;
    options.configure = [&backups, &work](ServerConfig &config) {
        config.backupDirectory = backups;
        config.signingKeyFile = work.filePath(QStringLiteral("signing-kek")); // the second start below needs the same
        config.preUpgradeBackups = 3;
    };
    {
        TestServer upgraded(options);
        EXPECT_EQ(upgraded.scalar(QStringLiteral("SELECT max(version) FROM schema_migrations")).toInt(), store::Migrations::latestVersion());
    }
    const QStringList dumps = preUpgradeDumps(backups);
    ASSERT_EQ(dumps.size(), 3) << dumps.join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(dumps.contains(QStringLiteral("pre-upgrade-3-4-20250301T000000Z.dump")));
    EXPECT_TRUE(dumps.contains(QStringLiteral("pre-upgrade-4-5-20250401T000000Z.dump")));
    const QStringList made = dumps.filter(QRegularExpression(QStringLiteral("^pre-upgrade-%1-%2-\\d{8}T\\d{6}Z\\.dump$").arg(older).arg(store::Migrations::latestVersion())));
    ASSERT_EQ(made.size(), 1) << dumps.join(QLatin1Char(' ')).toStdString();
    const QString dump = backups + QLatin1Char('/') + made.first();
    EXPECT_EQ(modeOf(dump), 0600);
    EXPECT_EQ(modeOf(backups), 0700);

    // The dump is the schema as it was, with its data: restored into an empty database it is at the old version.
    const store::DatabaseConfig copy = TestCluster::instance().createDatabase(QStringLiteral("predump"));
    QProcess restore;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PGPASSWORD"), copy.password);
    restore.setProcessEnvironment(environment);
    restore.start(store::EmbeddedPostgres::binaryDirectory() + QStringLiteral("/pg_restore"),
                  {QStringLiteral("--no-owner"), QStringLiteral("--exit-on-error"), QStringLiteral("-h"), copy.host, QStringLiteral("-p"), QString::number(copy.port),
                   QStringLiteral("-U"), copy.user, QStringLiteral("-d"), copy.database, dump});
    ASSERT_TRUE(restore.waitForFinished(120000));
    ASSERT_EQ(restore.exitCode(), 0) << restore.readAllStandardError().constData();
    EXPECT_EQ(scalarOn(copy, QStringLiteral("SELECT max(version) FROM schema_migrations")).toInt(), older);
    EXPECT_EQ(scalarOn(copy, QStringLiteral("SELECT count(*) FROM cities WHERE name = 'Before the upgrade'")).toInt(), 1);

    // A start with nothing pending dumps nothing.
    {
        TestServer again(options);
    }
    EXPECT_EQ(preUpgradeDumps(backups).size(), 3);
}

TEST(Backup, NoDumpMeansNoUpgrade)
{
    QTemporaryDir work;
    int older = 0;
    const store::DatabaseConfig database = olderSchema(work, &older);
    // The backup directory cannot be made (a file is in the way): the server refuses to start and migrates nothing.
    QFile blocker(work.filePath(QStringLiteral("not-a-directory")));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.databaseUrl = database.toUrl(true);
    config.dataDirectory = work.filePath(QStringLiteral("data"));
    config.backupDirectory = blocker.fileName() + QStringLiteral("/backups");
    MarqueeServer server(config);
    EXPECT_FALSE(server.start());
    EXPECT_TRUE(server.errorString().contains(QStringLiteral("nothing was migrated"))) << server.errorString().toStdString();
    EXPECT_EQ(scalarOn(database, QStringLiteral("SELECT max(version) FROM schema_migrations")).toInt(), older);
    // Told to migrate without a dump, it does.
    config.preUpgradeBackups = 0;
    MarqueeServer without(config);
    EXPECT_TRUE(without.start()) << without.errorString().toStdString();
    without.stop();
    EXPECT_EQ(scalarOn(database, QStringLiteral("SELECT max(version) FROM schema_migrations")).toInt(), store::Migrations::latestVersion());
}
