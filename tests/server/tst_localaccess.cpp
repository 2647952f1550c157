// SPDX-License-Identifier: AGPL-3.0-or-later
// What a local OS user who is not the server can reach: the embedded cluster's socket, its passwords, the
// key-encryption key, and what the server's own database role may do (docs/security.md, "The database and the
// keys"). Real clusters, a real server in this process and the real marquee-server binary; the unprivileged user
// is the system's `nobody` through runuser (those checks need root, which CI has).
#include "httpclient.h"
#include "serverprocess.h"

#include "runtime/serverconfig.h"
#include "startup/marqueeserver.h"
#include "runtime/servercontext.h"
#include "store/authrepository.h"
#include "store/database.h"
#include "store/embeddedpostgres.h"
#include "store/pairingrepository.h"
#include "store/serverrole.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <gtest/gtest.h>
#include <memory>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace marquee;
using namespace marquee::test;

namespace {

bool asRoot()
{
    return ::geteuid() == 0 && ::getpwnam("nobody") && QFileInfo::exists(QStringLiteral("/usr/sbin/runuser"));
}

struct Mode {
    uid_t owner = 0;
    unsigned mode = 0;
};

Mode modeOf(const QString &path)
{
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return {uid_t(-1), 0};
    return {info.st_uid, unsigned(info.st_mode & 07777)};
}

/** @brief Run @p arguments as the unprivileged user nobody, with @p environment added; exit code and output. */
std::pair<int, QString> asNobody(const QStringList &arguments, const QStringList &environment = {})
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("runuser"), QStringList{QStringLiteral("-u"), QStringLiteral("nobody"), QStringLiteral("--"), QStringLiteral("env")}
                                                 + environment + arguments);
    process.waitForFinished(30000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromLocal8Bit(process.readAll())};
}

QString psqlProgram()
{
    const QString bundled = store::EmbeddedPostgres::binaryDirectory() + QStringLiteral("/psql");
    return QFileInfo::exists(bundled) ? bundled : QStringLiteral("psql");
}

/** @brief A statement's SQLSTATE on @p db ("" when it succeeded). */
QString sqlState(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (query.exec(sql))
        return {};
    const QString code = query.lastError().nativeErrorCode();
    return code.isEmpty() ? QStringLiteral("error: ") + query.lastError().text() : code;
}

constexpr auto kInsufficientPrivilege = "42501";

/**
 * One marquee-server with its embedded cluster in this process for the whole suite: the way a venue runs it
 * (no database URL), so the layout, the authentication and the roles are the product's own.
 */
class LocalAccess : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        // Short, under /tmp: unix socket paths are limited to 107 bytes; /tmp is open to every user, as a venue's
        // /var/lib is.
        s_directory = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/mqla-XXXXXX"));
        ASSERT_TRUE(s_directory->isValid());
        // Like /var/lib above /var/lib/marquee: others may pass through (the cluster's postgres user must, as root).
        ::chmod(QFile::encodeName(s_directory->path()).constData(), 0711);
        s_dataDirectory = s_directory->path() + QStringLiteral("/data");
        startServer();
    }
    void SetUp() override { ASSERT_TRUE(s_server) << "the server with its embedded cluster did not start"; }
    static void TearDownTestSuite()
    {
        s_server.reset();
        s_directory.reset();
    }
    static void startServer()
    {
        ServerConfig config;
        config.listenAddress = QHostAddress::LocalHost;
        config.listenPort = 0;
        config.threads = 1;
        config.dataDirectory = s_dataDirectory;
        config.occupancyWarmShows = 0;
        s_server = std::make_unique<MarqueeServer>(config);
        ASSERT_TRUE(s_server->start()) << s_server->errorString().toStdString();
    }
    /** @brief Settings for the cluster's owner role, with the password from its file. */
    static store::DatabaseConfig ownerConfig() { return store::EmbeddedPostgres(s_dataDirectory).config(); }
    static QSqlDatabase serving() { return s_server->context().database.connection(); }

    static std::unique_ptr<QTemporaryDir> s_directory;
    static QString s_dataDirectory;
    static std::unique_ptr<MarqueeServer> s_server;
};

std::unique_ptr<QTemporaryDir> LocalAccess::s_directory;
QString LocalAccess::s_dataDirectory;
std::unique_ptr<MarqueeServer> LocalAccess::s_server;

} // namespace

TEST_F(LocalAccess, TheClusterLivesInADirectoryOnlyItsUserMayEnter)
{
    const store::EmbeddedPostgres cluster(s_dataDirectory);
    const uid_t clusterUid = ::geteuid() == 0 ? ::getpwnam("postgres")->pw_uid : ::geteuid();
    for (const QString &path : {cluster.clusterDirectory(), cluster.socketDirectory(), cluster.pgdataDirectory()}) {
        const Mode mode = modeOf(path);
        EXPECT_EQ(mode.owner, clusterUid) << path.toStdString();
        EXPECT_EQ(mode.mode, 0700u) << path.toStdString() << " is " << std::oct << mode.mode;
    }
    // The data directory stays the server's: as root the cluster's user may only pass through it.
    const Mode data = modeOf(s_dataDirectory);
    EXPECT_EQ(data.owner, ::geteuid());
    EXPECT_EQ(data.mode, ::geteuid() == 0 ? 0711u : 0700u) << std::oct << data.mode;
    // The socket itself is private too, and no file of the cluster is left in the data directory.
    EXPECT_EQ(modeOf(cluster.socketDirectory() + QStringLiteral("/.s.PGSQL.5432")).mode & 0077, 0u);
    EXPECT_FALSE(QFileInfo::exists(s_dataDirectory + QStringLiteral("/pgdata")));
    EXPECT_FALSE(QFileInfo::exists(s_dataDirectory + QStringLiteral("/socket")));
}

TEST_F(LocalAccess, EveryRoleNeedsItsPasswordEvenOnTheSocket)
{
    const store::EmbeddedPostgres cluster(s_dataDirectory);
    QFile hba(cluster.pgdataDirectory() + QStringLiteral("/pg_hba.conf"));
    ASSERT_TRUE(hba.open(QIODevice::ReadOnly));
    const QString rules = QString::fromUtf8(hba.readAll());
    for (const QString &line : rules.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1Char('#')) || line.trimmed().isEmpty())
            continue;
        EXPECT_TRUE(line.contains(QLatin1String("scram-sha-256"))) << "pg_hba.conf line: " << line.toStdString();
        EXPECT_FALSE(line.contains(QLatin1String("trust"))) << "pg_hba.conf line: " << line.toStdString();
    }
    // The password files: 0600, the server's user's.
    for (const QString &file : {cluster.ownerPasswordFile(), cluster.serverPasswordFile()}) {
        const Mode mode = modeOf(file);
        EXPECT_EQ(mode.owner, ::geteuid()) << file.toStdString();
        EXPECT_EQ(mode.mode, 0600u) << file.toStdString();
    }
    auto connects = [](const QString &user, const QString &password) {
        const QString name = QUuid::createUuid().toString();
        bool open = false;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
            db.setHostName(store::EmbeddedPostgres(s_dataDirectory).socketDirectory());
            db.setPort(5432);
            db.setDatabaseName(QStringLiteral("marquee"));
            db.setUserName(user);
            db.setPassword(password);
            open = db.open();
            db.close();
        }
        QSqlDatabase::removeDatabase(name);
        return open;
    };
    // Even this process (root, or the cluster's own user, who can reach the socket) gets nowhere without the password.
    qunsetenv("PGPASSWORD");
    EXPECT_FALSE(connects(QStringLiteral("marquee"), QString()));
    EXPECT_FALSE(connects(QStringLiteral("marquee"), QStringLiteral("not-the-password")));
    EXPECT_FALSE(connects(QStringLiteral("marquee_server"), QString()));
    EXPECT_FALSE(connects(QStringLiteral("postgres"), QString()));
    EXPECT_TRUE(connects(QStringLiteral("marquee"), ownerConfig().password));
}

TEST_F(LocalAccess, AnUnprivilegedUserCannotReachTheSocketTheKeyOrThePasswords)
{
    if (!asRoot())
        GTEST_SKIP() << "needs root, the user nobody and runuser";
    const store::EmbeddedPostgres cluster(s_dataDirectory);
    // The attack of old: psql on the socket as any user, then COPY ... FROM PROGRAM as the superuser. Even with
    // the right password in hand the socket's directory is closed to nobody.
    const auto [code, output] = asNobody({psqlProgram(), QStringLiteral("-X"), QStringLiteral("-h"), cluster.socketDirectory(), QStringLiteral("-U"),
                                          QStringLiteral("marquee"), QStringLiteral("-d"), QStringLiteral("marquee"), QStringLiteral("-c"),
                                          QStringLiteral("SELECT 1")},
                                         {QStringLiteral("PGPASSWORD=") + ownerConfig().password, QStringLiteral("PGCONNECT_TIMEOUT=5")});
    EXPECT_NE(code, 0) << output.toStdString();
    EXPECT_TRUE(output.contains(QLatin1String("Permission denied")) || output.contains(QLatin1String("No such file")))
        << output.toStdString();
    // Neither the key-encryption key nor a database password can be read, and the data directory cannot be listed.
    for (const QString &file : {s_dataDirectory + QStringLiteral("/signing-kek"), cluster.ownerPasswordFile(), cluster.serverPasswordFile()}) {
        ASSERT_TRUE(QFileInfo::exists(file)) << file.toStdString();
        const auto [readCode, readOutput] = asNobody({QStringLiteral("cat"), file});
        EXPECT_NE(readCode, 0) << file.toStdString() << ": " << readOutput.toStdString();
    }
    EXPECT_NE(asNobody({QStringLiteral("ls"), s_dataDirectory}).first, 0);
    EXPECT_NE(asNobody({QStringLiteral("ls"), cluster.clusterDirectory()}).first, 0);
}

TEST_F(LocalAccess, TheKeyEncryptionKeyIsNeverThePostgresUsers)
{
    const QString kek = s_dataDirectory + QStringLiteral("/signing-kek");
    const Mode mode = modeOf(kek);
    EXPECT_EQ(mode.owner, ::geteuid());
    EXPECT_EQ(mode.mode, 0600u);
    // The attack of old: the cluster (as the postgres user) reads the key with pg_read_binary_file. Even the
    // cluster's superuser cannot now, because the file is not the cluster's user's.
    if (::geteuid() != 0)
        GTEST_SKIP() << "as the cluster's own user the cluster could read it; the separation needs root's postgres user";
    store::Database owner(ownerConfig());
    QSqlQuery query(owner.connection());
    EXPECT_FALSE(query.exec(QStringLiteral("SELECT pg_read_binary_file('%1')").arg(kek)));
    EXPECT_TRUE(query.lastError().text().contains(QLatin1String("ermission denied"))) << query.lastError().text().toStdString();
    owner.closeThreadConnection();
}

TEST_F(LocalAccess, TheServerServesAsARoleThatCanOnlyServe)
{
    QSqlDatabase db = serving();
    ASSERT_TRUE(db.isOpen()) << db.lastError().text().toStdString();
    QSqlQuery who(db);
    ASSERT_TRUE(who.exec(QStringLiteral("SELECT current_user, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user")) && who.next());
    EXPECT_EQ(who.value(0).toString(), QStringLiteral("marquee_server"));
    EXPECT_FALSE(who.value(1).toBool());
    EXPECT_FALSE(who.value(2).toBool());
    EXPECT_FALSE(who.value(3).toBool());

    // Each refused for lack of privilege (42501), before any trigger or constraint has a say.
    const QStringList refused = {
        // No programs, no files of the database server.
        QStringLiteral("COPY (SELECT 1) TO PROGRAM 'id'"),
        QStringLiteral("COPY devices FROM PROGRAM 'id'"),
        QStringLiteral("COPY devices TO '/tmp/marquee-devices'"),
        QStringLiteral("SELECT pg_read_file('/etc/passwd')"),
        QStringLiteral("SELECT pg_read_binary_file('%1/signing-kek')").arg(s_dataDirectory),
        QStringLiteral("SELECT pg_ls_dir('.')"),
        // No DDL: no new tables (not even temporary ones), schemas or functions, and no changes to the schema's own.
        QStringLiteral("CREATE TABLE stolen (x int)"),
        QStringLiteral("CREATE TEMP TABLE stolen (x int)"),
        QStringLiteral("CREATE SCHEMA stolen"),
        QStringLiteral("CREATE FUNCTION public.stolen() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
        QStringLiteral("ALTER TABLE devices ADD COLUMN stolen int"),
        QStringLiteral("DROP TABLE audit_log"),
        QStringLiteral("ALTER TABLE audit_log DISABLE TRIGGER ALL"),
        QStringLiteral("CREATE ROLE stolen SUPERUSER"),
        // The audit log: never change or remove an entry (refused by the rights, before its triggers).
        QStringLiteral("UPDATE audit_log SET reason = 'rewritten'"),
        QStringLiteral("DELETE FROM audit_log"),
        QStringLiteral("TRUNCATE audit_log"),
        // No minting of devices or staff accounts by INSERT (that is marquee-admin's, as the owner), no schema history.
        QStringLiteral("INSERT INTO devices (name, role, token_hash) VALUES ('minted', 'till', 'x')"),
        QStringLiteral("INSERT INTO staff (name, role, password_hash) VALUES ('minted', 'admin', 'x')"),
        // Pairing codes are the owner's: the server may only redeem one (mq_redeem_pairing_code), not read or make them.
        QStringLiteral("SELECT count(*) FROM pairing_codes"),
        QStringLiteral("INSERT INTO pairing_codes (code_hash, device_name, role, expires_at) VALUES ('x', 'minted', 'till', now() + interval '1 hour')"),
        QStringLiteral("DELETE FROM schema_migrations"),
        QStringLiteral("TRUNCATE orders"),
    };
    for (const QString &statement : refused)
        EXPECT_EQ(sqlState(db, statement), kInsufficientPrivilege) << statement.toStdString();
    // The audit log: add and read (changing or removing an entry is refused above).
    EXPECT_EQ(sqlState(db, QStringLiteral("INSERT INTO audit_log (actor, actor_name, actor_role, action) VALUES ('test', 'test', 'admin', 'test.entry')")),
              QString());
    EXPECT_EQ(sqlState(db, QStringLiteral("SELECT count(*) FROM audit_log")), QString());

    // And it still serves: a device enrolled by the owner (as marquee-admin does) is answered.
    store::Database owner(ownerConfig());
    store::AuthRepository auth(owner);
    QString error;
    const auto token = auth.addDevice(QStringLiteral("lobby-%1").arg(QUuid::createUuid().toString(QUuid::Id128).left(8)), Role::Kiosk, &error);
    owner.closeThreadConnection();
    ASSERT_TRUE(token) << error.toStdString();
    HttpClient client(QStringLiteral("127.0.0.1"), s_server->port());
    client.setToken(*token);
    EXPECT_EQ(client.get("/readyz").status, 200);
    EXPECT_EQ(client.get("/api/v1/cities").status, 200);
}

TEST_F(LocalAccess, TheServingRolePairsADeviceOnlyWithTheOwnersCode)
{
    // The owner (marquee-admin device add --pairing) makes the code; the server, which may not insert devices,
    // pairs it through the function.
    store::Database owner(ownerConfig());
    QString error;
    const auto code = store::PairingRepository(owner).create(QStringLiteral("paired-%1").arg(QUuid::createUuid().toString(QUuid::Id128).left(8)),
                                                             Role::Till, store::PairingRepository::kValidSeconds, &error);
    owner.closeThreadConnection();
    ASSERT_TRUE(code) << error.toStdString();
    HttpClient client(QStringLiteral("127.0.0.1"), s_server->port());
    const HttpResult paired = client.post("/api/v1/devices/pair", QJsonObject{{QStringLiteral("code"), code->code}});
    ASSERT_EQ(paired.status, 201) << paired.body.constData();
    HttpClient device(QStringLiteral("127.0.0.1"), s_server->port());
    device.setToken(paired.json().value(QStringLiteral("token")).toString());
    EXPECT_EQ(device.get("/api/v1/cities").status, 200);
    EXPECT_EQ(client.post("/api/v1/devices/pair", QJsonObject{{QStringLiteral("code"), code->code}}).status, 409);
    // And the serving role cannot mint a device by calling the function with a hash of its own choosing either:
    // only a code the owner stored pairs.
    QSqlQuery forged(serving());
    ASSERT_TRUE(forged.exec(QStringLiteral("SELECT decision FROM mq_redeem_pairing_code('forged', 'x')")) && forged.next());
    EXPECT_EQ(forged.value(0).toString(), QStringLiteral("unknown_code"));
}

TEST_F(LocalAccess, GrantsFollowTheSchemaAtEveryStart)
{
    // A table a later migration adds (here: the owner adds one by hand), and a right someone granted by hand.
    {
        store::Database owner(ownerConfig());
        QSqlQuery query(owner.connection());
        ASSERT_TRUE(query.exec(QStringLiteral("CREATE TABLE later_migration_table (id int)"))) << query.lastError().text().toStdString();
        ASSERT_TRUE(query.exec(QStringLiteral("REVOKE ALL ON later_migration_table FROM marquee_server")));
        ASSERT_TRUE(query.exec(QStringLiteral("GRANT TRUNCATE, REFERENCES ON orders TO marquee_server")));
        owner.closeThreadConnection();
    }
    s_server.reset();
    startServer();
    QSqlDatabase db = serving();
    EXPECT_EQ(sqlState(db, QStringLiteral("INSERT INTO later_migration_table VALUES (1)")), QString());
    EXPECT_EQ(sqlState(db, QStringLiteral("SELECT * FROM later_migration_table")), QString());
    EXPECT_EQ(sqlState(db, QStringLiteral("TRUNCATE later_migration_table")), kInsufficientPrivilege);
    EXPECT_EQ(sqlState(db, QStringLiteral("DROP TABLE later_migration_table")), kInsufficientPrivilege);
    EXPECT_EQ(sqlState(db, QStringLiteral("TRUNCATE orders")), kInsufficientPrivilege);
    QString error;
    const auto excess = store::ServerRole::excessRights(s_server->context().database, QStringLiteral("marquee_server"), &error);
    ASSERT_TRUE(excess) << error.toStdString();
    EXPECT_TRUE(excess->isEmpty()) << excess->join(QStringLiteral("; ")).toStdString();
}

TEST(LocalAccessRoot, TheServerRefusesRootUnlessToldWhomToBecome)
{
    if (!asRoot())
        GTEST_SKIP() << "needs root, the user nobody and runuser";
    const QString program = QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-server");
    QTemporaryDir directory(QStringLiteral("/tmp/mqroot-XXXXXX"));
    ASSERT_TRUE(directory.isValid());
    ::chmod(QFile::encodeName(directory.path()).constData(), 0755);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("MARQUEE_UNSAFE_ALLOW_ROOT"));
    environment.remove(QStringLiteral("MARQUEE_DATABASE_URL"));
    // The exit code and output of a start that must not get anywhere.
    auto refusedStart = [&](const QStringList &arguments) {
        QProcess refused;
        refused.setProcessEnvironment(environment);
        refused.setProcessChannelMode(QProcess::MergedChannels);
        refused.start(program, QStringList{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(freePort())} + arguments);
        const bool finished = refused.waitForFinished(30000);
        return std::pair{finished ? refused.exitCode() : -1, refused.readAll()};
    };
    const auto [rootCode, rootOutput] = refusedStart({QStringLiteral("--data-dir"), directory.path() + QStringLiteral("/refused")});
    EXPECT_EQ(rootCode, 1);
    EXPECT_TRUE(rootOutput.contains("refusing to run as root")) << rootOutput.constData();
    EXPECT_FALSE(QFileInfo::exists(directory.path() + QStringLiteral("/refused"))); // nothing was created
    // A data directory that is root's is not handed over silently.
    const QString rootOwned = directory.path() + QStringLiteral("/root-owned");
    ASSERT_TRUE(QDir().mkpath(rootOwned));
    const auto [ownedCode, ownedOutput] = refusedStart({QStringLiteral("--user"), QStringLiteral("nobody"), QStringLiteral("--data-dir"), rootOwned});
    EXPECT_EQ(ownedCode, 1);
    EXPECT_TRUE(ownedOutput.contains("belongs to uid 0")) << ownedOutput.constData();
    // --user nobody: the server drops to nobody before it creates anything, runs its own cluster as nobody and
    // serves.
    const quint16 port = freePort();
    const QString dataDirectory = directory.path() + QStringLiteral("/data");
    QProcess server;
    server.setProcessEnvironment(environment);
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start(program, {QStringLiteral("--user"), QStringLiteral("nobody"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(port),
                           QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--data-dir"), dataDirectory});
    ASSERT_TRUE(server.waitForStarted());
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    bool ready = false;
    for (int i = 0; i < 600 && !ready && server.state() == QProcess::Running; ++i) {
        ready = client.get("/readyz").status == 200;
        if (!ready) {
            client.disconnect();
            server.waitForReadyRead(100);
        }
    }
    const QByteArray output = server.readAll();
    ASSERT_TRUE(ready) << output.constData();
    const uid_t nobody = ::getpwnam("nobody")->pw_uid;
    QFile status(QStringLiteral("/proc/%1/status").arg(server.processId()));
    ASSERT_TRUE(status.open(QIODevice::ReadOnly));
    const QString uidLine = QString::fromLatin1(status.readAll()).split(QLatin1Char('\n')).filter(QStringLiteral("Uid:")).value(0);
    EXPECT_EQ(uidLine.simplified(), QStringLiteral("Uid: %1 %1 %1 %1").arg(nobody)) << uidLine.toStdString();
    for (const QString &path : {dataDirectory, dataDirectory + QStringLiteral("/signing-kek"), dataDirectory + QStringLiteral("/cluster/pgdata")})
        EXPECT_EQ(modeOf(path).owner, nobody) << path.toStdString();
    server.terminate();
    EXPECT_TRUE(server.waitForFinished(60000));
}

TEST(LocalAccessSecrets, EverySecretComesFromAFileTheEnvironmentOrACredential)
{
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    auto writeFile = [&](const QString &name, const QByteArray &content, int mode) {
        const QString path = directory.path() + QLatin1Char('/') + name;
        QFile file(path);
        file.open(QIODevice::WriteOnly | QIODevice::Truncate);
        file.write(content);
        file.close();
        ::chmod(QFile::encodeName(path).constData(), mode);
        return path;
    };
    const QString paymentFile = writeFile(QStringLiteral("payment"), "pay-secret\n", 0600);
    const QString eventFile = writeFile(QStringLiteral("event"), "event-secret", 0600);
    QString error;
    auto config = ServerConfig::fromArguments({QStringLiteral("--payment-webhook-secret-file"), paymentFile, QStringLiteral("--event-webhook-secret-file"), eventFile},
                                              &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->payments.webhookSecret, QByteArray("pay-secret"));
    EXPECT_EQ(config->eventWebhookSecret, QByteArray("event-secret"));
    EXPECT_TRUE(config->warnings.isEmpty()) << config->warnings.join(QStringLiteral("; ")).toStdString();

    // A file others may read is refused, not used.
    const QString openFile = writeFile(QStringLiteral("open"), "open-secret", 0644);
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--payment-webhook-secret-file"), openFile}, &error));
    EXPECT_TRUE(error.contains(QLatin1String("chmod 600"))) << error.toStdString();

    // A secret typed on the command line still works, with a warning; the same in a --config file does not warn.
    config = ServerConfig::fromArguments({QStringLiteral("--payment-webhook-secret"), QStringLiteral("typed"), QStringLiteral("--event-webhook-secret"),
                                          QStringLiteral("typed-too")},
                                         &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->payments.webhookSecret, QByteArray("typed"));
    EXPECT_EQ(config->warnings.size(), 2);
    EXPECT_TRUE(config->warnings.value(0).contains(QLatin1String("--payment-webhook-secret-file")));
    const QString conf = writeFile(QStringLiteral("server.conf"), "payment-webhook-secret = from-config\n", 0600);
    config = ServerConfig::fromArguments({QStringLiteral("--config"), conf}, &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->payments.webhookSecret, QByteArray("from-config"));
    EXPECT_TRUE(config->warnings.isEmpty());

    // The environment: the value, or a file named there.
    qputenv("MARQUEE_EVENT_WEBHOOK_SECRET", "from-environment");
    qputenv("MARQUEE_PAYMENT_WEBHOOK_SECRET_FILE", paymentFile.toLocal8Bit());
    config = ServerConfig::fromArguments({}, &error);
    qunsetenv("MARQUEE_EVENT_WEBHOOK_SECRET");
    qunsetenv("MARQUEE_PAYMENT_WEBHOOK_SECRET_FILE");
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->eventWebhookSecret, QByteArray("from-environment"));
    EXPECT_EQ(config->payments.webhookSecret, QByteArray("pay-secret"));

    // systemd's credentials (LoadCredential=): used for whatever is not set otherwise, the key-encryption key too.
    // systemd may show a credential's ACL as group bits: accepted there, and only there.
    const QString credentials = directory.path() + QStringLiteral("/credentials");
    QDir().mkpath(credentials);
    writeFile(QStringLiteral("credentials/payment-webhook-secret"), "credential-secret\n", 0440);
    writeFile(QStringLiteral("credentials/event-webhook-secret"), "", 0400); // empty: not set
    writeFile(QStringLiteral("credentials/signing-kek"), QByteArray(32, 'k'), 0400);
    writeFile(QStringLiteral("credentials/database-url"), "postgresql://server:pw@db.example.org/marquee\n", 0400);
    qputenv("CREDENTIALS_DIRECTORY", credentials.toLocal8Bit());
    config = ServerConfig::fromArguments({}, &error);
    const auto configWithSecret = ServerConfig::fromArguments({QStringLiteral("--payment-webhook-secret-file"), paymentFile}, &error);
    const QString kekPath = config ? config->keyEncryptionKeyPath() : QString();
    qunsetenv("CREDENTIALS_DIRECTORY");
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->payments.webhookSecret, QByteArray("credential-secret"));
    EXPECT_TRUE(config->eventWebhookSecret.isEmpty());
    EXPECT_EQ(config->databaseUrl, QStringLiteral("postgresql://server:pw@db.example.org/marquee"));
    EXPECT_EQ(kekPath, credentials + QStringLiteral("/signing-kek"));
    ASSERT_TRUE(configWithSecret);
    EXPECT_EQ(configWithSecret->payments.webhookSecret, QByteArray("pay-secret"));
}

TEST(LocalAccessUpgrade, AClusterOfTheOldLayoutIsMovedLockedAndItsKeyTakenBack)
{
    // What a start of the old code left: the cluster in DATA/pgdata trusting every local connection and, as root,
    // the whole data directory (the key-encryption key too) handed to postgres.
    QTemporaryDir directory(QStringLiteral("/tmp/mqold-XXXXXX"));
    ASSERT_TRUE(directory.isValid());
    ::chmod(QFile::encodeName(directory.path()).constData(), 0711);
    const QString data = directory.path() + QStringLiteral("/data");
    ASSERT_TRUE(QDir().mkpath(data));
    QFile kek(data + QStringLiteral("/signing-kek"));
    ASSERT_TRUE(kek.open(QIODevice::WriteOnly));
    kek.write(QByteArray(32, 'k'));
    kek.close();
    ::chmod(QFile::encodeName(kek.fileName()).constData(), 0600);
    QStringList initdb = {store::EmbeddedPostgres::binaryDirectory() + QStringLiteral("/initdb"), QStringLiteral("-D"), data + QStringLiteral("/pgdata"),
                          QStringLiteral("-U"), QStringLiteral("marquee"), QStringLiteral("--auth=trust"), QStringLiteral("--no-sync")};
    if (::geteuid() == 0) {
        QProcess::execute(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("postgres:postgres"), data});
        initdb = QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--")} + initdb;
    }
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(::geteuid() == 0 ? QStringLiteral("runuser") : initdb.takeFirst(), initdb);
    ASSERT_TRUE(process.waitForFinished(120000));
    ASSERT_EQ(process.exitCode(), 0) << process.readAll().constData();
    QFile conf(data + QStringLiteral("/pgdata/postgresql.conf")); // as the old code wrote it: no TCP listener
    ASSERT_TRUE(conf.open(QIODevice::Append));
    conf.write("\nlisten_addresses = ''\n");
    conf.close();

    store::EmbeddedPostgres cluster(data);
    ASSERT_TRUE(cluster.start()) << cluster.errorString().toStdString();
    EXPECT_FALSE(QFileInfo::exists(data + QStringLiteral("/pgdata")));
    EXPECT_TRUE(QFileInfo::exists(cluster.pgdataDirectory() + QStringLiteral("/PG_VERSION")));
    EXPECT_EQ(modeOf(cluster.clusterDirectory()).mode, 0700u);
    EXPECT_EQ(modeOf(data).owner, ::geteuid());
    EXPECT_EQ(modeOf(kek.fileName()).owner, ::geteuid()); // taken back from postgres
    QFile hba(cluster.pgdataDirectory() + QStringLiteral("/pg_hba.conf"));
    ASSERT_TRUE(hba.open(QIODevice::ReadOnly));
    EXPECT_FALSE(hba.readAll().contains("trust"));
    // The owner now needs its password, which the cluster's config carries.
    store::DatabaseConfig config = cluster.config();
    ASSERT_FALSE(config.password.isEmpty());
    {
        store::Database withPassword(config);
        EXPECT_TRUE(withPassword.ping());
        withPassword.closeThreadConnection();
    }
    config.password.clear();
    qunsetenv("PGPASSWORD");
    {
        store::Database withoutPassword(config);
        EXPECT_FALSE(withoutPassword.ping());
        withoutPassword.closeThreadConnection();
    }
    cluster.stop();
}
