// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/router.h"
#include "runtime/serverconfig.h"

#include "store/databaseconfig.h"

#include <memory>
#include <optional>

namespace marquee {

struct ServerContext;
namespace store {
class ChangeListener;
class EmbeddedPostgres;
class Migrations;
}
namespace http {
class MetricsEndpoint;
class ServerPool;
}
namespace jobs {
class Reaper;
class OutboxRelay;
class Reconciler;
}

/**
 * @brief The whole server: database (embedded or configured), migrations, HTTP worker pool and jobs.
 * marquee-server's main() and the integration tests both run it.
 */
class MarqueeServer
{
public:
    explicit MarqueeServer(ServerConfig config);
    ~MarqueeServer();

    /** @brief Start everything; false with errorString() on any failure (nothing left running). */
    bool start();
    void stop();
    quint16 port() const;
    /** @brief The port GET /metrics is served on; 0 when --metrics-listen is off. */
    quint16 metricsPort() const;
    QString errorString() const { return m_error; }
    ServerContext &context() { return *m_context; }
    const http::Router &router() const { return m_router; }
    QString databaseUrl() const;
    /** @brief True while this instance listens for revocations (channel marquee_auth) and seat and show changes. */
    bool listensForRevocations() const;
    /** @brief The listener of changes made by any instance (tests end its connection); null before start(). */
    const store::ChangeListener *changeListener() const { return m_changeListener.get(); }

private:
    /** @brief Log whether this server's database role could silence the audit log (migration 025). */
    void logAuditProtection();
    /** @brief Start or find the database, migrate and grant as the owner; the connection settings to serve with. */
    std::optional<store::DatabaseConfig> prepareDatabase();
    /** @brief With migrations pending on a database in use: the pre-upgrade dump (runtime/backup.h) first. */
    bool dumpBeforeUpgrade(const store::DatabaseConfig &owner, store::Migrations &migrations);
    /** @brief Say (embedded: refuse) when the serving role may do more than serve. */
    bool checkServingRole();
    /** @brief Listen for revocations, seat writes, price edits and waiting-room switches made by any instance. */
    void startChangeListener();

    ServerConfig m_config;
    QString m_error;
    std::unique_ptr<store::EmbeddedPostgres> m_embedded;
    std::unique_ptr<ServerContext> m_context;
    http::Router m_router;
    std::unique_ptr<http::ServerPool> m_pool;
    std::unique_ptr<http::MetricsEndpoint> m_metrics; ///< GET /metrics, when --metrics-listen is set
    std::unique_ptr<jobs::Reaper> m_reaper;
    std::unique_ptr<jobs::OutboxRelay> m_relay;
    std::unique_ptr<jobs::Reconciler> m_reconciler;
    /// Changes made by any instance: revocations clear the token cache, seat writes reach the seat maps, price edits
    /// and waiting-room switches drop what is cached of them.
    std::unique_ptr<store::ChangeListener> m_changeListener;
};

/**
 * @brief Resolve the database: the URL when set, else start the embedded cluster in @p embedded
 * (@p adoptRunning: a cluster found running becomes ours to stop, see EmbeddedPostgres::setAdoptRunning).
 */
std::optional<store::DatabaseConfig> resolveDatabase(const QString &url, const QString &dataDirectory,
                                                     std::unique_ptr<store::EmbeddedPostgres> &embedded, bool adoptRunning,
                                                     QString *error);

} // namespace marquee
