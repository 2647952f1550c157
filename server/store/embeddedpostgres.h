// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/databaseconfig.h"

#include <QString>

struct passwd;

namespace marquee::store {

/**
 * @brief A private PostgreSQL cluster under a data directory, run with the system's PostgreSQL 15 binaries.
 *
 * Layout: DATA/cluster/ (pgdata/, socket/, postgresql.log) belongs to the cluster's OS user and only it may enter
 * it (0700); DATA/database-owner-password (0600, this process's user) holds the password of the cluster's owner
 * role `marquee`. The cluster listens only on the unix socket in DATA/cluster/socket (no TCP) and asks every role
 * for its SCRAM password (pg_hba.conf is rewritten at every start; a cluster from before that trusted local
 * connections is switched over). When run as root the cluster runs as the `postgres` system user, because
 * PostgreSQL refuses to run as root; then only DATA/cluster is handed to it, and the data directory is 0711 (it
 * may pass through, not look inside). A cluster of the old layout (DATA/pgdata) is moved into DATA/cluster once.
 * marquee-server uses it when no database URL is configured; the test fixture uses it for throw-away clusters.
 */
class EmbeddedPostgres
{
public:
    explicit EmbeddedPostgres(QString dataDirectory);
    ~EmbeddedPostgres();
    EmbeddedPostgres(const EmbeddedPostgres &) = delete;
    EmbeddedPostgres &operator=(const EmbeddedPostgres &) = delete;

    /** @brief initdb when needed, then start the cluster (or adopt one left running). False with errorString(). */
    bool start();
    /** @brief Stop the cluster (fast shutdown) if this object started it; one found running is left running. */
    void stop();
    /** @brief Stop at once (immediate shutdown), as a crash would. */
    void kill();

    /**
     * @brief Whether a cluster found already running (left by a crashed server) becomes this object's to stop.
     * The server takes it over; marquee-admin, which may run beside a live server, does not.
     */
    void setAdoptRunning(bool adopt) { m_adoptRunning = adopt; }
    bool isRunning() const { return m_running; }
    QString errorString() const { return m_error; }
    /** @brief Connection settings for the cluster's `marquee` database as its owner role (with its password). */
    DatabaseConfig config() const;
    /** @brief DATA/cluster: the cluster's own directory (its OS user's, 0700). */
    QString clusterDirectory() const;
    QString socketDirectory() const;
    QString pgdataDirectory() const;
    /** @brief The file with the owner role's password (0600). */
    QString ownerPasswordFile() const;
    /** @brief The file with the password of the role the server serves as (0600; see ServerRole). */
    QString serverPasswordFile() const { return m_dataDirectory + QStringLiteral("/database-server-password"); }
    QString dataDirectory() const { return m_dataDirectory; }
    /** @brief Directory with initdb, pg_ctl, postgres and pgbench; empty when PostgreSQL 15 is not installed. */
    static QString binaryDirectory();

private:
    bool run(const QString &program, const QStringList &arguments, int timeoutMs, QString *output = nullptr);
    bool ensureDatabase();
    bool adoptOldLayout(const passwd *clusterOwner);
    bool lockAuthentication();
    /** @brief Run @p sql through psql as the owner role on @p database. */
    bool psql(const QString &database, const QString &sql, QString *output);

    QString m_dataDirectory;
    QString m_error;
    QString m_ownerPassword;
    QString m_clusterUser; ///< as root: the OS user the cluster runs as
    bool m_running = false;
    bool m_startedHere = false;
    bool m_adoptRunning = false;
};

} // namespace marquee::store
