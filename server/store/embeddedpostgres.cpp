// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/embeddedpostgres.h"
#include "logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QProcess>
#include <QStandardPaths>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>


namespace marquee::store {

namespace {
const char *const kSuperuser = "marquee";
constexpr int kPort = 5432; // only names the socket file: the cluster has no TCP listener.

bool runningAsRoot()
{
    return ::geteuid() == 0;
}

// PostgreSQL refuses to run as root, so as root the cluster belongs to the system's postgres user.
bool chownTree(const QString &path, QString *error)
{
    const passwd *pw = ::getpwnam("postgres");
    if (!pw) {
        *error = QStringLiteral("running as root needs the 'postgres' system user (package postgresql-15)");
        return false;
    }
    QProcess chown;
    chown.start(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("%1:%2").arg(pw->pw_uid).arg(pw->pw_gid), path});
    chown.waitForFinished(60000);
    if (chown.exitCode() != 0) {
        *error = QStringLiteral("could not hand %1 to the postgres user: %2").arg(path, QString::fromLocal8Bit(chown.readAllStandardError()));
        return false;
    }
    return true;
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

QString EmbeddedPostgres::socketDirectory() const
{
    return m_dataDirectory + QStringLiteral("/socket");
}

DatabaseConfig EmbeddedPostgres::config() const
{
    DatabaseConfig config;
    config.host = socketDirectory();
    config.port = kPort;
    config.database = QStringLiteral("marquee");
    config.user = QString::fromLatin1(kSuperuser);
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
        args = QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--")} + args;
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
    process.setWorkingDirectory(m_dataDirectory);
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
    QDir().mkpath(m_dataDirectory);
    QDir().mkpath(socketDirectory());
    const QString pgdata = m_dataDirectory + QStringLiteral("/pgdata");
    const QString logFile = m_dataDirectory + QStringLiteral("/postgresql.log");
    if (runningAsRoot()) {
        QFile::setPermissions(m_dataDirectory, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup
                                                   | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        if (!chownTree(m_dataDirectory, &m_error))
            return false;
    }

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
        if (!run(QStringLiteral("initdb"),
                 {QStringLiteral("-D"), pgdata, QStringLiteral("-U"), QString::fromLatin1(kSuperuser), QStringLiteral("--auth=trust"),
                  QStringLiteral("--encoding=UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-sync")},
                 120000))
            return false;
        QFile conf(pgdata + QStringLiteral("/postgresql.conf"));
        if (conf.open(QIODevice::Append)) {
            // Only a unix socket, private to this directory; tuned for a booking workload on a small machine.
            conf.write("\n# marquee embedded cluster\n"
                       "listen_addresses = ''\n"
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
        const QString options = QStringLiteral("-k %1 -p %2").arg(socketDirectory()).arg(kPort);
        if (!run(QStringLiteral("pg_ctl"),
                 {QStringLiteral("start"), QStringLiteral("-D"), pgdata, QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("60"),
                  QStringLiteral("-l"), logFile, QStringLiteral("-o"), options},
                 90000)) {
            m_error += QStringLiteral(" (see %1)").arg(logFile);
            return false;
        }
    }
    m_running = true;
    return ensureDatabase();
}

bool EmbeddedPostgres::ensureDatabase()
{
    // createdb through psql keeps this free of a Qt SQL connection before the caller configured one.
    QString output;
    const QStringList common = {QStringLiteral("-h"), socketDirectory(), QStringLiteral("-p"), QString::number(kPort),
                                QStringLiteral("-U"), QString::fromLatin1(kSuperuser)};
    QString psql = binaryDirectory() + QStringLiteral("/psql");
    if (!QFileInfo::exists(psql))
        psql = QStringLiteral("psql");
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(psql, common + QStringList{QStringLiteral("-d"), QStringLiteral("postgres"), QStringLiteral("-tAc"),
                                             QStringLiteral("SELECT 1 FROM pg_database WHERE datname = 'marquee'")});
    process.waitForFinished(30000);
    if (process.readAll().trimmed() == "1")
        return true;
    QProcess create;
    create.setProcessChannelMode(QProcess::MergedChannels);
    create.start(psql, common + QStringList{QStringLiteral("-d"), QStringLiteral("postgres"), QStringLiteral("-c"),
                                            QStringLiteral("CREATE DATABASE marquee")});
    create.waitForFinished(30000);
    if (create.exitCode() != 0) {
        m_error = QStringLiteral("could not create the marquee database: %1").arg(QString::fromLocal8Bit(create.readAll()));
        return false;
    }
    return true;
}

void EmbeddedPostgres::stop()
{
    // A cluster someone else started (a running marquee-server, when marquee-admin shares it) stays up.
    if (!m_running || !m_startedHere)
        return;
    run(QStringLiteral("pg_ctl"), {QStringLiteral("stop"), QStringLiteral("-D"), m_dataDirectory + QStringLiteral("/pgdata"),
                                   QStringLiteral("-m"), QStringLiteral("fast"), QStringLiteral("-w")},
        60000);
    m_running = false;
}

void EmbeddedPostgres::kill()
{
    if (!m_running)
        return;
    run(QStringLiteral("pg_ctl"), {QStringLiteral("stop"), QStringLiteral("-D"), m_dataDirectory + QStringLiteral("/pgdata"),
                                   QStringLiteral("-m"), QStringLiteral("immediate"), QStringLiteral("-w")},
        60000);
    m_running = false;
    m_startedHere = false;
}

} // namespace marquee::store
