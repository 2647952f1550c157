// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/databaseconfig.h"

#include <QString>

namespace marquee::store {

/**
 * @brief A private PostgreSQL cluster under a data directory, run with the system's PostgreSQL 15 binaries.
 *
 * The cluster listens only on a unix socket inside its own directory (no TCP), trusts local connections of its
 * own user and is stopped by stop() or the destructor. When run as root the cluster runs as the `postgres`
 * system user, because PostgreSQL refuses to run as root. marquee-server uses it when no database URL is
 * configured; the test fixture uses it for throw-away clusters.
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
    /** @brief Connection settings for the cluster's `marquee` database. */
    DatabaseConfig config() const;
    QString socketDirectory() const;
    QString dataDirectory() const { return m_dataDirectory; }
    /** @brief Directory with initdb, pg_ctl, postgres and pgbench; empty when PostgreSQL 15 is not installed. */
    static QString binaryDirectory();

private:
    bool run(const QString &program, const QStringList &arguments, int timeoutMs, QString *output = nullptr);
    bool ensureDatabase();

    QString m_dataDirectory;
    QString m_error;
    bool m_running = false;
    bool m_startedHere = false;
    bool m_adoptRunning = false;
};

} // namespace marquee::store
