// SPDX-License-Identifier: AGPL-3.0-or-later
#include "runtime/backup.h"
#include "logging.h"

#include "store/backuprepository.h"
#include "store/database.h"
#include "store/embeddedpostgres.h"
#include "store/migrations.h"
#include "store/ticketrepository.h"
#include "tickets/keyencryptionkey.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace marquee::Backup {

namespace {
constexpr qint64 kManifestLimit = 1 << 20;

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

/** @brief The directory of the PostgreSQL client tools for a server of @p serverVersion ("15.8", "16.2 (Debian…)"). */
QString toolDirectory(const QString &serverVersion)
{
    const QString major = serverVersion.section(QLatin1Char('.'), 0, 0).section(QLatin1Char(' '), 0, 0);
    const QString matching = QStringLiteral("/usr/lib/postgresql/%1/bin").arg(major);
    if (!major.isEmpty() && QFileInfo::exists(matching + QStringLiteral("/pg_dump")))
        return matching;
    return store::EmbeddedPostgres::binaryDirectory();
}

/**
 * @brief Run pg_dump or pg_restore against @p database: connection settings in the environment, the password in a
 * PGPASSFILE of a private temporary directory, nothing secret in the arguments (ps shows those to everyone).
 */
bool runTool(const store::DatabaseConfig &database, const QString &tool, const QStringList &arguments, QString *error)
{
    store::Database connection(database);
    const QString version = store::BackupRepository(connection).serverVersion().value_or(QString());
    connection.closeThreadConnection();
    const QString directory = toolDirectory(version);
    const QString program = directory.isEmpty() ? tool : directory + QLatin1Char('/') + tool;
    QTemporaryDir secrets(QDir::tempPath() + QStringLiteral("/marquee-pgpass-XXXXXX")); // 0700
    const QString passFile = secrets.filePath(QStringLiteral("pgpass"));
    {
        QFile file(passFile);
        QString password = database.password;
        password.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char(':'), QStringLiteral("\\:"));
        if (!secrets.isValid() || !file.open(QIODevice::WriteOnly) || !file.setPermissions(QFile::ReadOwner | QFile::WriteOwner)
            || file.write(QStringLiteral("*:*:*:*:%1\n").arg(password).toUtf8()) < 0) {
            *error = QStringLiteral("cannot write a private password file for %1").arg(tool);
            return false;
        }
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith(QLatin1String("PG")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("PGHOST"), database.host);
    environment.insert(QStringLiteral("PGPORT"), QString::number(database.port));
    environment.insert(QStringLiteral("PGUSER"), database.user);
    environment.insert(QStringLiteral("PGPASSFILE"), passFile);
    environment.insert(QStringLiteral("PGCONNECT_TIMEOUT"), QString::number(qMax(2, database.connectTimeoutSeconds)));
    environment.insert(QStringLiteral("PGAPPNAME"), QStringLiteral("marquee-admin"));
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, QStringList{QStringLiteral("--no-password")} + arguments);
    if (!process.waitForStarted(10000)) {
        *error = QStringLiteral("cannot run %1: %2").arg(program, process.errorString());
        return false;
    }
    process.closeWriteChannel();
    // A dump takes as long as the database is big; a stuck server is caught by the connect timeout.
    process.waitForFinished(-1);
    const QString output = QString::fromLocal8Bit(process.readAll()).trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = QStringLiteral("%1 failed (exit %2): %3").arg(tool).arg(process.exitCode()).arg(output);
        return false;
    }
    return true;
}

/** @brief A private directory (0700) that is new or empty. */
bool emptyPrivateDirectory(const QString &path, QString *error)
{
    QDir dir(path);
    if (dir.exists() && !dir.isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        *error = QStringLiteral("%1 is not empty; a backup goes into a new or empty directory").arg(path);
        return false;
    }
    if (!dir.exists() && (!QDir().mkpath(QFileInfo(path).absolutePath()) || ::mkdir(QFile::encodeName(path).constData(), 0700) != 0)) {
        *error = QStringLiteral("cannot create %1: %2").arg(path, systemError());
        return false;
    }
    if (::chmod(QFile::encodeName(path).constData(), 0700) != 0) {
        *error = QStringLiteral("cannot make %1 private: %2").arg(path, systemError());
        return false;
    }
    return true;
}

/** @brief Write @p bytes to the new file @p path (0600; fails when it exists), synced. */
bool writeNewFile(const QString &path, const QByteArray &bytes, QString *error)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    const bool written = fd >= 0 && ::fchmod(fd, 0600) == 0 && ::write(fd, bytes.constData(), bytes.size()) == bytes.size() && ::fsync(fd) == 0;
    if (!written)
        *error = QStringLiteral("cannot write %1: %2").arg(path, systemError());
    if (fd >= 0)
        ::close(fd);
    return written;
}

std::optional<QByteArray> sha256(const QString &path)
{
    QFile file(path);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file))
        return std::nullopt;
    return hash.result().toHex();
}

std::optional<QByteArray> readSmallFile(const QString &path, qint64 limit, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    QByteArray bytes = file.read(limit + 1);
    if (bytes.size() > limit) {
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(limit);
        return std::nullopt;
    }
    return bytes;
}

/** @brief The manifest's files, checked: exactly the dump and the KEK, each with the size and SHA-256 on disk. */
bool verifyFiles(const QString &directory, const QJsonObject &manifest, QString *error)
{
    const QJsonArray files = manifest.value(QStringLiteral("files")).toArray();
    QStringList seen;
    for (const QJsonValue &entry : files) {
        const QString name = entry[QStringLiteral("name")].toString();
        const QString expected = entry[QStringLiteral("sha256")].toString();
        const qint64 size = entry[QStringLiteral("size")].toInteger(-1);
        if ((name != QLatin1String(kDumpFile) && name != QLatin1String(kKeyEncryptionKeyFile)) || seen.contains(name)
            || expected.size() != 64 || size < 0) {
            *error = QStringLiteral("the manifest lists a file it should not (%1) or without its size and SHA-256").arg(name);
            return false;
        }
        seen << name;
        const QString path = directory + QLatin1Char('/') + name;
        const QFileInfo info(path);
        if (!info.isFile() || info.isSymLink()) {
            *error = QStringLiteral("%1 is missing from the backup").arg(name);
            return false;
        }
        if (info.size() != size) {
            *error = QStringLiteral("%1 has %2 bytes but the manifest says %3: the backup is truncated or was changed").arg(name).arg(info.size()).arg(size);
            return false;
        }
        if (sha256(path) != expected.toLatin1()) {
            *error = QStringLiteral("%1 does not match its SHA-256 in the manifest: the backup is damaged or was changed").arg(name);
            return false;
        }
    }
    if (seen.size() != 2) {
        *error = QStringLiteral("the manifest must list %1 and %2").arg(QLatin1String(kDumpFile), QLatin1String(kKeyEncryptionKeyFile));
        return false;
    }
    return true;
}

/** @brief Write @p key to @p path (0600) unless the same key is there; a different one is refused. */
std::optional<bool> installKeyEncryptionKey(const QString &path, const QByteArray &key, bool write, QString *error)
{
    if (QFileInfo::exists(path)) {
        const auto existing = KeyEncryptionKey::load(path, error);
        if (!existing)
            return std::nullopt;
        if (*existing != key) {
            *error = QStringLiteral("%1 holds another key-encryption key; move it away (it may still be needed for another "
                                    "database) or give --kek-to PATH")
                         .arg(path);
            return std::nullopt;
        }
        return false;
    }
    if (!write)
        return true;
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        *error = QStringLiteral("cannot create the directory of %1").arg(path);
        return std::nullopt;
    }
    // Complete under a temporary name, then linked into place: the server never sees half a key.
    const QString temporary = path + QStringLiteral(".%1.tmp").arg(::getpid());
    QFile::remove(temporary);
    const bool written = writeNewFile(temporary, key, error);
    const bool linked = written && ::link(QFile::encodeName(temporary).constData(), QFile::encodeName(path).constData()) == 0;
    if (written && !linked)
        *error = QStringLiteral("cannot write %1: %2").arg(path, systemError());
    QFile::remove(temporary);
    return linked ? std::optional<bool>(true) : std::nullopt;
}
} // namespace

bool dumpDatabase(const store::DatabaseConfig &owner, const QString &file, QString *error)
{
    // pg_dump writes into a file it creates; make it private first and refuse one that exists.
    if (!writeNewFile(file, QByteArray(), error))
        return false;
    // pg_dump reads the whole database in one repeatable-read snapshot (a consistent copy while sales go on).
    const bool ok = runTool(owner, QStringLiteral("pg_dump"),
                            {QStringLiteral("--format=custom"), QStringLiteral("--file=") + file, QStringLiteral("--dbname=") + owner.database},
                            error);
    if (!ok)
        QFile::remove(file);
    return ok;
}

std::optional<Created> create(const store::DatabaseConfig &owner, const QString &keyEncryptionKeyPath, const QString &directory,
                              QString *error)
{
    const auto key = KeyEncryptionKey::load(keyEncryptionKeyPath, error);
    if (!key)
        return std::nullopt;
    store::Database database(owner);
    store::Migrations migrations(database);
    const int schemaVersion = migrations.currentVersion();
    const QString postgresVersion = store::BackupRepository(database).serverVersion().value_or(QString());
    database.closeThreadConnection();
    if (schemaVersion < 0) {
        *error = QStringLiteral("cannot read the schema version of %1: %2").arg(owner.toUrl(), migrations.errorString());
        return std::nullopt;
    }
    if (!emptyPrivateDirectory(directory, error))
        return std::nullopt;
    const QString dumpPath = directory + QLatin1Char('/') + QLatin1String(kDumpFile);
    const QString keyPath = directory + QLatin1Char('/') + QLatin1String(kKeyEncryptionKeyFile);
    const QString manifestPath = directory + QLatin1Char('/') + QLatin1String(kManifestFile);
    auto fail = [&]() -> std::optional<Created> {
        for (const QString &path : {dumpPath, keyPath, manifestPath + QStringLiteral(".tmp")})
            QFile::remove(path);
        return std::nullopt;
    };
    if (!dumpDatabase(owner, dumpPath, error) || !writeNewFile(keyPath, *key, error))
        return fail();
    QJsonArray files;
    for (const QString &path : {dumpPath, keyPath}) {
        const auto checksum = sha256(path);
        if (!checksum) {
            *error = QStringLiteral("cannot read back %1").arg(path);
            return fail();
        }
        files.append(QJsonObject{{QStringLiteral("name"), QFileInfo(path).fileName()},
                                 {QStringLiteral("size"), QFileInfo(path).size()},
                                 {QStringLiteral("sha256"), QString::fromLatin1(*checksum)}});
    }
    const QJsonObject manifest{{QStringLiteral("format"), QLatin1String(kFormat)},
                               {QStringLiteral("schema_version"), schemaVersion},
                               {QStringLiteral("server_version"), QStringLiteral(MARQUEE_VERSION)},
                               {QStringLiteral("created_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                               {QStringLiteral("database"), owner.database},
                               {QStringLiteral("postgresql_version"), postgresVersion},
                               {QStringLiteral("files"), files}};
    if (!writeNewFile(manifestPath + QStringLiteral(".tmp"), QJsonDocument(manifest).toJson(), error)
        || ::rename(QFile::encodeName(manifestPath + QStringLiteral(".tmp")).constData(), QFile::encodeName(manifestPath).constData()) != 0) {
        if (error->isEmpty())
            *error = QStringLiteral("cannot write %1: %2").arg(manifestPath, systemError());
        return fail();
    }
    return Created{schemaVersion, QFileInfo(dumpPath).size()};
}

std::optional<Restored> restore(const store::DatabaseConfig &target, const QString &directory, const QString &keyEncryptionKeyPath,
                                QString *error)
{
    // Everything that can be checked without the database first: a damaged backup changes nothing.
    const auto manifestBytes = readSmallFile(directory + QLatin1Char('/') + QLatin1String(kManifestFile), kManifestLimit, error);
    if (!manifestBytes)
        return std::nullopt;
    QJsonParseError parseError;
    const QJsonObject manifest = QJsonDocument::fromJson(*manifestBytes, &parseError).object();
    if (parseError.error != QJsonParseError::NoError || manifest.value(QStringLiteral("format")).toString() != QLatin1String(kFormat)) {
        *error = QStringLiteral("%1/%2 is not a Marquee backup manifest (format %3)").arg(directory, QLatin1String(kManifestFile), QLatin1String(kFormat));
        return std::nullopt;
    }
    const int schemaVersion = manifest.value(QStringLiteral("schema_version")).toInt(-1);
    if (schemaVersion < 0 || schemaVersion > store::Migrations::latestVersion()) {
        *error = QStringLiteral("the backup has schema version %1; this marquee-admin knows versions up to %2 (use a newer one)")
                     .arg(schemaVersion)
                     .arg(store::Migrations::latestVersion());
        return std::nullopt;
    }
    if (!verifyFiles(directory, manifest, error))
        return std::nullopt;
    const auto key = readSmallFile(directory + QLatin1Char('/') + QLatin1String(kKeyEncryptionKeyFile), 64, error);
    if (!key)
        return std::nullopt;
    if (!installKeyEncryptionKey(keyEncryptionKeyPath, *key, false, error))
        return std::nullopt;

    store::Database database(target);
    store::BackupRepository inventory(database);
    const auto objects = inventory.userObjectCount();
    if (!objects) {
        *error = QStringLiteral("cannot connect to %1 as its owner").arg(target.toUrl());
        return std::nullopt;
    }
    if (*objects > 0) {
        *error = QStringLiteral("the database %1 is not empty (%2 tables, functions and other objects); a backup is restored only "
                                "into an empty database (--into-database NAME makes a new one)")
                     .arg(target.database)
                     .arg(*objects);
        return std::nullopt;
    }
    database.closeThreadConnection();
    // One transaction: a restore that fails half-way leaves the database as empty as it was. Owners and grants are
    // not restored (the roles of another server may not exist); the server grants its role its rights at start.
    if (!runTool(target, QStringLiteral("pg_restore"),
                 {QStringLiteral("--exit-on-error"), QStringLiteral("--single-transaction"), QStringLiteral("--no-owner"),
                  QStringLiteral("--no-privileges"), QStringLiteral("--dbname=") + target.database,
                  directory + QLatin1Char('/') + QLatin1String(kDumpFile)},
                 error))
        return std::nullopt;
    if (!inventory.restoreAuditOwner(error))
        return std::nullopt;
    // Declared a success only when every signing key that still verifies opens with the restored KEK.
    store::TicketRepository tickets(database);
    tickets.setKeyEncryptionKey(*key);
    const auto keys = inventory.liveSigningKeyCount();
    if (!tickets.prepareSigningKeys(error) || !keys) {
        if (!keys)
            *error = QStringLiteral("cannot count the restored signing keys");
        *error = QStringLiteral("the database was restored but its signing keys do not open with the backup's key-encryption "
                                "key: %1")
                     .arg(*error);
        database.closeThreadConnection();
        return std::nullopt;
    }
    database.closeThreadConnection();
    const auto written = installKeyEncryptionKey(keyEncryptionKeyPath, *key, true, error);
    if (!written)
        return std::nullopt;
    return Restored{schemaVersion, *keys, *written};
}

std::optional<QString> preUpgradeDump(const store::DatabaseConfig &owner, const QString &directory, int fromVersion, int toVersion,
                                      int keep, QString *error)
{
    if (!QDir().mkpath(directory) || ::chmod(QFile::encodeName(directory).constData(), 0700) != 0) {
        *error = QStringLiteral("cannot create the backup directory %1: %2").arg(directory, systemError());
        return std::nullopt;
    }
    const QString file = QStringLiteral("%1/pre-upgrade-%2-%3-%4.dump")
                             .arg(directory)
                             .arg(fromVersion)
                             .arg(toVersion)
                             .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'")));
    if (!dumpDatabase(owner, file, error))
        return std::nullopt;
    // The newest first by the time in their names (the same for every version pair): the oldest go.
    QFileInfoList dumps = QDir(directory).entryInfoList({QStringLiteral("pre-upgrade-*.dump")}, QDir::Files);
    std::sort(dumps.begin(), dumps.end(), [](const QFileInfo &a, const QFileInfo &b) {
        return a.fileName().section(QLatin1Char('-'), 4) > b.fileName().section(QLatin1Char('-'), 4);
    });
    for (qsizetype i = qMax(keep, 1); i < dumps.size(); ++i)
        QFile::remove(dumps[i].absoluteFilePath());
    return file;
}

} // namespace marquee::Backup
