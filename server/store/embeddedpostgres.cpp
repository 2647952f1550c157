// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/embeddedpostgres.h"
#include "logging.h"
#include "store/secretfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QProcess>
#include <QStandardPaths>
#include <cerrno>
#include <cstring>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>


namespace marquee::store {

namespace {
const char *const kSuperuser = "marquee";
constexpr int kPort = 5432; // only names the socket file: the cluster has no TCP listener.

// The whole of the cluster's pg_hba.conf: the unix socket only, every role with its SCRAM password. No trust: the
// socket directory is private, and even a process that reaches the socket still needs a password.
const char *const kHba = "# marquee embedded cluster (rewritten at every start): unix socket only, SCRAM passwords\n"
                         "local all all scram-sha-256\n";

bool runningAsRoot()
{
    return ::geteuid() == 0;
}

// PostgreSQL refuses to run as root. As root the cluster keeps the user it already has (the service user's cluster,
// when an operator runs marquee-admin as root), else it belongs to the system's postgres user; only the cluster's
// own directory is handed to it, never the data directory with the server's keys and passwords.
const passwd *clusterUser(const QStringList &existing, QString *error)
{
    for (const QString &path : existing) {
        struct stat info {};
        if (::stat(QFile::encodeName(path).constData(), &info) == 0 && info.st_uid != 0) {
            if (const passwd *pw = ::getpwuid(info.st_uid))
                return pw;
        }
    }
    const passwd *pw = ::getpwnam("postgres");
    if (!pw)
        *error = QStringLiteral("running as root needs the 'postgres' system user (package postgresql-15)");
    return pw;
}

// A directory of the cluster: created when missing, private to the cluster's user (0700).
bool privateDirectory(const QString &path, const passwd *owner, QString *error)
{
    if (!QDir().mkpath(path)) {
        *error = QStringLiteral("cannot create %1").arg(path);
        return false;
    }
    const QByteArray name = QFile::encodeName(path);
    if (::chmod(name.constData(), 0700) != 0 || (owner && ::chown(name.constData(), owner->pw_uid, owner->pw_gid) != 0)) {
        *error = QStringLiteral("cannot make %1 private to the cluster's user: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

QString sqlLiteral(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}
} // namespace

EmbeddedPostgres::EmbeddedPostgres(QString dataDirectory)
    : m_dataDirectory(QDir(dataDirectory).absolutePath())
{
}

EmbeddedPostgres::~EmbeddedPostgres()
{
    stop();
}

QString EmbeddedPostgres::binaryDirectory()
{
    const QString env = qEnvironmentVariable("MARQUEE_PG_BINDIR");
    for (const QString &candidate : {env, QStringLiteral("/usr/lib/postgresql/15/bin"), QStringLiteral("/usr/lib/postgresql/16/bin"),
                                     QStringLiteral("/usr/lib/postgresql/17/bin")}) {
        if (!candidate.isEmpty() && QFileInfo::exists(candidate + QStringLiteral("/pg_ctl")))
            return candidate;
    }
    return {};
}

QString EmbeddedPostgres::clusterDirectory() const
{
    return m_dataDirectory + QStringLiteral("/cluster");
}

QString EmbeddedPostgres::socketDirectory() const
{
    return clusterDirectory() + QStringLiteral("/socket");
}

QString EmbeddedPostgres::pgdataDirectory() const
{
    return clusterDirectory() + QStringLiteral("/pgdata");
}

QString EmbeddedPostgres::ownerPasswordFile() const
{
    return m_dataDirectory + QStringLiteral("/database-owner-password");
}

DatabaseConfig EmbeddedPostgres::config() const
{
    DatabaseConfig config;
    config.host = socketDirectory();
    config.port = kPort;
    config.database = QStringLiteral("marquee");
    config.user = QString::fromLatin1(kSuperuser);
    config.password = m_ownerPassword;
    if (config.password.isEmpty()) {
        // A cluster another process started (the test fixture's, a running server's for marquee-admin).
        QString ignored;
        config.password = QString::fromUtf8(SecretFile::read(ownerPasswordFile(), &ignored).value_or(QByteArray()));
    }
    return config;
}

bool EmbeddedPostgres::run(const QString &program, const QStringList &arguments, int timeoutMs, QString *output)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    QString executable = binaryDirectory() + QLatin1Char('/') + program;
    QStringList args = arguments;
    if (runningAsRoot()) {
        args.prepend(executable);
        args = QStringList{QStringLiteral("-u"), m_clusterUser.isEmpty() ? QStringLiteral("postgres") : m_clusterUser, QStringLiteral("--")} + args;
        executable = QStringLiteral("runuser");
    }
    // A clean environment: a user's PGHOST or locale must not leak into the private cluster.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith(QLatin1String("PG")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(m_dataDirectory); // as root postgres may pass through it (0711)
    process.start(executable, args);
    if (!process.waitForStarted(10000)) {
        m_error = QStringLiteral("could not start %1: %2").arg(executable, process.errorString());
        return false;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        m_error = QStringLiteral("%1 did not finish within %2 s").arg(program).arg(timeoutMs / 1000);
        return false;
    }
    const QString text = QString::fromLocal8Bit(process.readAll());
    if (output)
        *output = text;
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        m_error = QStringLiteral("%1 failed (exit %2): %3").arg(program).arg(process.exitCode()).arg(text.trimmed());
        return false;
    }
    return true;
}

bool EmbeddedPostgres::adoptOldLayout(const passwd *clusterOwner)
{
    // Before the cluster had a directory of its own it lived in DATA/pgdata with its socket in DATA/socket, and a
    // start as root handed the whole data directory (the key-encryption key included) to postgres. Such a cluster
    // moves into DATA/cluster once, stopped; what it left in the data directory goes back to this process's user.
    const QString old = m_dataDirectory + QStringLiteral("/pgdata");
    if (!QFileInfo::exists(old + QStringLiteral("/PG_VERSION")) || QFileInfo::exists(pgdataDirectory()))
        return true;
    qCWarning(lcEmbedded) << "moving the PostgreSQL cluster in" << old << "to" << pgdataDirectory();
    if (run(QStringLiteral("pg_ctl"), {QStringLiteral("status"), QStringLiteral("-D"), old}, 10000)
        && !run(QStringLiteral("pg_ctl"), {QStringLiteral("stop"), QStringLiteral("-D"), old, QStringLiteral("-m"), QStringLiteral("fast"),
                                           QStringLiteral("-w")},
                60000))
        return false;
    if (!privateDirectory(clusterDirectory(), clusterOwner, &m_error))
        return false;
    if (!QDir().rename(old, pgdataDirectory())) {
        m_error = QStringLiteral("cannot move %1 to %2").arg(old, pgdataDirectory());
        return false;
    }
    QDir().rename(m_dataDirectory + QStringLiteral("/postgresql.log"), clusterDirectory() + QStringLiteral("/postgresql.log"));
    QDir(m_dataDirectory + QStringLiteral("/socket")).removeRecursively();
    if (clusterOwner && m_clusterUser == QLatin1String("postgres")) {
        const QDir data(m_dataDirectory);
        for (const QFileInfo &entry : data.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System)) {
            if (entry.fileName() != QLatin1String("cluster") && entry.ownerId() == clusterOwner->pw_uid)
                ::lchown(QFile::encodeName(entry.absoluteFilePath()).constData(), ::geteuid(), ::getegid());
        }
    }
    return true;
}

bool EmbeddedPostgres::start()
{
    if (m_running)
        return true;
    if (binaryDirectory().isEmpty()) {
        m_error = QStringLiteral("PostgreSQL server binaries were not found (install postgresql-15, or set MARQUEE_PG_BINDIR)");
        return false;
    }
    // unix socket paths are limited to 107 bytes.
    if (socketDirectory().toLocal8Bit().size() + 20 > 107) {
        m_error = QStringLiteral("the data directory path is too long for a unix socket: %1").arg(m_dataDirectory);
        return false;
    }
    if (!QDir().mkpath(m_dataDirectory)) {
        m_error = QStringLiteral("cannot create the data directory %1").arg(m_dataDirectory);
        return false;
    }
    const passwd *clusterOwner = nullptr;
    passwd ownerCopy {};
    if (runningAsRoot()) {
        const passwd *found = clusterUser({clusterDirectory(), m_dataDirectory + QStringLiteral("/pgdata")}, &m_error);
        if (!found)
            return false;
        m_clusterUser = QString::fromLocal8Bit(found->pw_name);
        ownerCopy = *found; // getpw*() share one static buffer
        clusterOwner = &ownerCopy;
    }
    // The data directory stays its owner's (the key-encryption key and the database passwords are in it); as
    // root, the cluster's user may pass through it to its own directory but not list or read it.
    const QByteArray dataName = QFile::encodeName(m_dataDirectory);
    struct stat dataInfo {};
    if (clusterOwner && m_clusterUser == QLatin1String("postgres") && ::stat(dataName.constData(), &dataInfo) == 0
        && dataInfo.st_uid == clusterOwner->pw_uid) {
        // An old start as root handed the whole directory to postgres: it is taken back.
        if (::chown(dataName.constData(), ::geteuid(), ::getegid()) != 0) {
            m_error = QStringLiteral("cannot take the data directory %1 back from postgres: %2").arg(m_dataDirectory, QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
    }
    if (::stat(dataName.constData(), &dataInfo) != 0
        || (dataInfo.st_uid == ::geteuid() && ::chmod(dataName.constData(), clusterOwner ? 0711 : 0700) != 0)) {
        m_error = QStringLiteral("cannot make the data directory %1 private: %2").arg(m_dataDirectory, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (!adoptOldLayout(clusterOwner))
        return false;
    if (!privateDirectory(clusterDirectory(), clusterOwner, &m_error) || !privateDirectory(socketDirectory(), clusterOwner, &m_error))
        return false;
    const auto password = SecretFile::loadOrCreatePassword(ownerPasswordFile(), &m_error);
    if (!password)
        return false;
    m_ownerPassword = *password;
    const QString pgdata = pgdataDirectory();
    const QString logFile = clusterDirectory() + QStringLiteral("/postgresql.log");

    if (!QFileInfo::exists(pgdata + QStringLiteral("/PG_VERSION"))) {
        // A non-empty directory without PG_VERSION is what an initdb interrupted while it laid out the directory
        // tree left (a killed test run, a power cut during the very first start): it holds no data, and initdb
        // refuses to run over it. (An initdb killed later leaves a cluster that fails to start: that one is
        // reported, not removed.)
        QDir unfinished(pgdata);
        if (unfinished.exists() && !unfinished.isEmpty()) {
            qCWarning(lcEmbedded) << "removing the unfinished cluster an interrupted initdb left in" << pgdata;
            unfinished.removeRecursively();
        }
        qCInfo(lcEmbedded) << "creating a private PostgreSQL cluster in" << pgdata;
        // initdb reads the superuser's password from a file; as root it runs as postgres, which may not read the
        // password file in the data directory, so it gets a copy of its own in the cluster's directory.
        const QString pwfile = clusterDirectory() + QStringLiteral("/initdb-password.%1").arg(::getpid());
        {
            QFile file(pwfile);
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || !file.setPermissions(QFile::ReadOwner | QFile::WriteOwner)
                || file.write(m_ownerPassword.toUtf8() + '\n') < 0) {
                m_error = QStringLiteral("cannot write %1").arg(pwfile);
                return false;
            }
            if (clusterOwner && ::fchown(file.handle(), clusterOwner->pw_uid, clusterOwner->pw_gid) != 0) {
                m_error = QStringLiteral("cannot hand %1 to postgres").arg(pwfile);
                QFile::remove(pwfile);
                return false;
            }
        }
        const bool created = run(QStringLiteral("initdb"),
                                 {QStringLiteral("-D"), pgdata, QStringLiteral("-U"), QString::fromLatin1(kSuperuser),
                                  QStringLiteral("--auth=scram-sha-256"), QStringLiteral("--pwfile=") + pwfile, QStringLiteral("--encoding=UTF8"),
                                  QStringLiteral("--locale=C"), QStringLiteral("--no-sync")},
                                 120000);
        QFile::remove(pwfile);
        if (!created)
            return false;
        QFile hba(pgdata + QStringLiteral("/pg_hba.conf")); // initdb's own lists host lines too
        if (hba.open(QIODevice::WriteOnly | QIODevice::Truncate))
            hba.write(kHba);
        hba.close();
        QFile conf(pgdata + QStringLiteral("/postgresql.conf"));
        if (conf.open(QIODevice::Append)) {
            // Only a unix socket, private to this directory; tuned for a booking workload on a small machine.
            conf.write("\n# marquee embedded cluster\n"
                       "listen_addresses = ''\n"
                       "unix_socket_permissions = 0700\n"
                       "password_encryption = 'scram-sha-256'\n"
                       "max_connections = 200\n"
                       "shared_buffers = 256MB\n"
                       "timezone = 'UTC'\n"
                       "log_timezone = 'UTC'\n"
                       "synchronous_commit = on\n"
                       "max_wal_size = 2GB\n"
                       "checkpoint_timeout = 15min\n"
                       "log_min_messages = warning\n");
        }
    }

    QString status;
    const bool alreadyRunning = run(QStringLiteral("pg_ctl"), {QStringLiteral("status"), QStringLiteral("-D"), pgdata}, 10000, &status);
    if (alreadyRunning) {
        qCInfo(lcEmbedded) << "using the PostgreSQL cluster already running in" << pgdata;
        m_startedHere = m_adoptRunning;
    } else {
        m_startedHere = true;
        const QString options = QStringLiteral("-k %1 -p %2 -c unix_socket_permissions=0700").arg(socketDirectory()).arg(kPort);
        if (!run(QStringLiteral("pg_ctl"),
                 {QStringLiteral("start"), QStringLiteral("-D"), pgdata, QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("60"),
                  QStringLiteral("-l"), logFile, QStringLiteral("-o"), options},
                 90000)) {
            m_error += QStringLiteral(" (see %1)").arg(logFile);
            return false;
        }
    }
    m_running = true;
    return lockAuthentication() && ensureDatabase();
}

bool EmbeddedPostgres::lockAuthentication()
{
    // A cluster made before it had passwords trusts every local connection: give its superuser the password, then
    // switch it to SCRAM. (On a cluster that already asks for the password the statement is a harmless repeat.)
    const QString hbaPath = pgdataDirectory() + QStringLiteral("/pg_hba.conf");
    QFile hba(hbaPath);
    if (hba.open(QIODevice::ReadOnly) && hba.readAll() == kHba)
        return true;
    hba.close();
    qCInfo(lcEmbedded) << "switching the cluster in" << pgdataDirectory() << "to password (SCRAM) authentication";
    QString output;
    if (!psql(QStringLiteral("postgres"),
              QStringLiteral("SET password_encryption = 'scram-sha-256';\nALTER ROLE %1 PASSWORD %2;\n")
                  .arg(QString::fromLatin1(kSuperuser), sqlLiteral(m_ownerPassword)),
              &output)) {
        m_error = QStringLiteral("could not set the password of the cluster's owner: %1").arg(output.trimmed());
        return false;
    }
    // Written in place: the file keeps its owner (postgres when this runs as root).
    if (!hba.open(QIODevice::WriteOnly | QIODevice::Truncate) || hba.write(kHba) < 0) {
        m_error = QStringLiteral("cannot write %1").arg(hbaPath);
        return false;
    }
    hba.close();
    return run(QStringLiteral("pg_ctl"), {QStringLiteral("reload"), QStringLiteral("-D"), pgdataDirectory()}, 30000)
           && psql(QStringLiteral("postgres"), QStringLiteral("SELECT pg_sleep(0.2);\n"), &output);
}

bool EmbeddedPostgres::psql(const QString &database, const QString &sql, QString *output)
{
    // The statements go through standard input and the password through the environment: neither shows in ps.
    QString program = binaryDirectory() + QStringLiteral("/psql");
    if (!QFileInfo::exists(program))
        program = QStringLiteral("psql");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith(QLatin1String("PG")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("PGPASSWORD"), m_ownerPassword);
    environment.insert(QStringLiteral("PGCONNECT_TIMEOUT"), QStringLiteral("20"));
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-tA"), QStringLiteral("-v"), QStringLiteral("ON_ERROR_STOP=1"),
                            QStringLiteral("-h"), socketDirectory(), QStringLiteral("-p"), QString::number(kPort), QStringLiteral("-U"),
                            QString::fromLatin1(kSuperuser), QStringLiteral("-d"), database});
    if (!process.waitForStarted(10000)) {
        *output = process.errorString();
        return false;
    }
    process.write(sql.toUtf8());
    process.closeWriteChannel();
    if (!process.waitForFinished(30000)) {
        process.kill();
        *output = QStringLiteral("psql did not finish");
        return false;
    }
    *output = QString::fromLocal8Bit(process.readAll());
    return process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}

bool EmbeddedPostgres::ensureDatabase()
{
    // createdb through psql keeps this free of a Qt SQL connection before the caller configured one.
    QString output;
    if (psql(QStringLiteral("postgres"), QStringLiteral("SELECT 1 FROM pg_database WHERE datname = 'marquee';\n"), &output)
        && output.trimmed() == QLatin1String("1"))
        return true;
    if (!psql(QStringLiteral("postgres"), QStringLiteral("CREATE DATABASE marquee;\n"), &output)) {
        m_error = QStringLiteral("could not create the marquee database: %1").arg(output);
        return false;
    }
    return true;
}

void EmbeddedPostgres::stop()
{
    // A cluster someone else started (a running marquee-server, when marquee-admin shares it) stays up.
    if (!m_running || !m_startedHere)
        return;
    run(QStringLiteral("pg_ctl"), {QStringLiteral("stop"), QStringLiteral("-D"), pgdataDirectory(), QStringLiteral("-m"), QStringLiteral("fast"),
                                   QStringLiteral("-w")},
        60000);
    m_running = false;
}

void EmbeddedPostgres::kill()
{
    if (!m_running)
        return;
    run(QStringLiteral("pg_ctl"), {QStringLiteral("stop"), QStringLiteral("-D"), pgdataDirectory(), QStringLiteral("-m"),
                                   QStringLiteral("immediate"), QStringLiteral("-w")},
        60000);
    m_running = false;
    m_startedHere = false;
}

} // namespace marquee::store
