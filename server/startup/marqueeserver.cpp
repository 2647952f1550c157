// SPDX-License-Identifier: AGPL-3.0-or-later
#include "startup/marqueeserver.h"
#include "logging.h"

#include "http/routes.h"
#include "http/metricsendpoint.h"
#include "http/serverpool.h"
#include "jobs/outboxrelay.h"
#include "jobs/reaper.h"
#include "jobs/reconciler.h"
#include "runtime/backup.h"
#include "runtime/servercontext.h"
#include "store/changelistener.h"
#include "store/seatnotification.h"
#include "store/embeddedpostgres.h"
#include "store/migrations.h"
#include "store/secretfile.h"
#include "store/serverrole.h"
#include "store/staffrepository.h"
#include "tickets/keyencryptionkey.h"

#include <QLoggingCategory>


namespace marquee {

std::optional<store::DatabaseConfig> resolveDatabase(const QString &url, const QString &dataDirectory,
                                                     std::unique_ptr<store::EmbeddedPostgres> &embedded, bool adoptRunning,
                                                     QString *error)
{
    if (!url.isEmpty())
        return store::DatabaseConfig::fromUrl(url, error);
    embedded = std::make_unique<store::EmbeddedPostgres>(dataDirectory);
    embedded->setAdoptRunning(adoptRunning);
    if (!embedded->start()) {
        *error = QStringLiteral("cannot start the embedded PostgreSQL: %1").arg(embedded->errorString());
        embedded.reset();
        return std::nullopt;
    }
    return embedded->config();
}

void MarqueeServer::logAuditProtection()
{
    // Said once at start: whether the role the server signs in as could silence the audit log (migration 025).
    store::StaffRepository staff(m_context->database);
    const auto protection = staff.auditProtection();
    if (!protection)
        qCWarning(lcStore) << "could not check who may change the audit log";
    else if (protection->inPlace)
        qCInfo(lcStore).noquote() << "audit log: owned by" << protection->owner << "- the role" << protection->role
                                  << "may only add and read entries";
    else if (protection->reason.contains(QLatin1String("superuser")))
        // The embedded cluster's case: nothing a migration can do protects the log from a superuser.
        qCInfo(lcStore).noquote() << "audit log: append-only by its triggers and owned by" << protection->owner << "- but" << protection->reason
                                  << "(run the server as a plain role to protect it: marquee-admin audit-protection)";
    else
        qCWarning(lcStore).noquote() << "audit log: append-only by its triggers, but NOT protected from this server's role:"
                                     << protection->reason + QStringLiteral(". `marquee-admin audit-protection` prints the SQL that separates them.");
}

MarqueeServer::MarqueeServer(ServerConfig config)
    : m_config(std::move(config))
{
}

MarqueeServer::~MarqueeServer()
{
    stop();
}

std::optional<store::DatabaseConfig> MarqueeServer::prepareDatabase()
{
    if (m_config.databaseUrl.isEmpty() && !m_config.databaseOwnerUrl.isEmpty()) {
        m_error = QStringLiteral("--database-owner-url needs --database-url (the role the server serves as)");
        return std::nullopt;
    }
    const QString ownerUrl = m_config.databaseOwnerUrl.isEmpty() ? m_config.databaseUrl : m_config.databaseOwnerUrl;
    const auto owner = resolveDatabase(ownerUrl, m_config.dataDirectory, m_embedded, true, &m_error);
    if (!owner)
        return std::nullopt;
    std::optional<store::DatabaseConfig> serving = *owner;
    store::Database ownerDatabase(*owner);
    // Migrations and grants as the owner, in this order at every start: the grants then cover every table,
    // including those the migrations just added.
    store::Migrations migrations(ownerDatabase);
    bool ok = dumpBeforeUpgrade(*owner, migrations);
    if (ok && !migrations.migrate()) {
        ok = false;
        m_error = migrations.errorString();
    }
    if (ok && m_embedded) {
        const auto password = store::SecretFile::loadOrCreatePassword(m_embedded->serverPasswordFile(), &m_error);
        ok = password && store::ServerRole::ensureLoginRole(ownerDatabase, QString::fromLatin1(store::ServerRole::kEmbeddedRole), *password, &m_error);
        if (ok) {
            serving->user = QString::fromLatin1(store::ServerRole::kEmbeddedRole);
            serving->password = *password;
        }
    } else if (ok && !m_config.databaseOwnerUrl.isEmpty()) {
        serving = store::DatabaseConfig::fromUrl(m_config.databaseUrl, &m_error);
        ok = serving.has_value();
    }
    if (ok && serving->user != owner->user)
        ok = store::ServerRole::grant(ownerDatabase, serving->user, &m_error);
    ownerDatabase.closeThreadConnection();
    if (!ok)
        return std::nullopt;
    return serving;
}

bool MarqueeServer::dumpBeforeUpgrade(const store::DatabaseConfig &owner, store::Migrations &migrations)
{
    // A schema upgrade cannot be undone by an older binary: a dump of the schema as it was comes first, and no dump
    // (disk full, no pg_dump) means no upgrade. A new database (version 0) has nothing to keep.
    const int current = migrations.currentVersion();
    const auto pending = migrations.pendingMigrations();
    if (current < 0 || !pending) {
        m_error = migrations.errorString();
        return false;
    }
    if (m_config.preUpgradeBackups == 0 || current == 0 || pending->empty())
        return true;
    const int target = std::max(pending->back(), store::Migrations::latestVersion());
    qCInfo(lcStore).noquote() << "schema" << current << "has" << pending->size() << "migrations pending: dumping the database first";
    const auto file = Backup::preUpgradeDump(owner, m_config.backupDirectoryInEffect(), current, target, m_config.preUpgradeBackups, &m_error);
    if (!file) {
        m_error = QStringLiteral("the dump before upgrading schema %1 to %2 failed, so nothing was migrated: %3 "
                                 "(--pre-upgrade-backups 0 migrates without one)")
                      .arg(current)
                      .arg(target)
                      .arg(m_error);
        return false;
    }
    qCInfo(lcStore).noquote() << "dumped the database before the upgrade to" << *file;
    return true;
}

bool MarqueeServer::checkServingRole()
{
    QString error;
    const auto excess = store::ServerRole::excessRights(m_context->database, m_context->database.config().user, &error);
    if (!excess) {
        m_error = QStringLiteral("cannot check the rights of the database role %1: %2").arg(m_context->database.config().user, error);
        return false;
    }
    if (excess->isEmpty()) {
        qCInfo(lcStore).noquote() << "serving as the database role" << m_context->database.config().user
                                  << "- no superuser, no DDL, the audit log append-only";
        return true;
    }
    const QString what = QStringLiteral("the database role %1 the server serves as %2").arg(m_context->database.config().user, excess->join(QStringLiteral(", ")));
    if (m_embedded) {
        // The embedded cluster's serving role is made here: a right too many is a bug, not a deployment choice.
        m_error = what;
        return false;
    }
    qCWarning(lcStore).noquote() << what + QStringLiteral("; give it a role of its own and migrate with --database-owner-url (docs/security.md)");
    return true;
}

bool MarqueeServer::start()
{
    const auto databaseConfig = prepareDatabase();
    if (!databaseConfig) {
        stop();
        return false;
    }
    // The signing keys' key-encryption key first: a server that cannot open its venue keys must not start.
    const auto keyEncryptionKey = KeyEncryptionKey::loadOrCreate(m_config.keyEncryptionKeyPath(), &m_error);
    if (!keyEncryptionKey) {
        stop();
        return false;
    }
    store::DatabaseConfig serving = *databaseConfig;
    serving.connectTimeoutSeconds = m_config.databaseConnectTimeoutSeconds;
    serving.statementTimeoutMs = m_config.databaseStatementTimeoutMs;
    serving.keepaliveIdleSeconds = m_config.databaseKeepaliveSeconds;
    m_context = std::make_unique<ServerContext>(m_config, serving);
    // Before any other thread uses the database: every connection is then watched.
    m_context->databaseWatchdog.start();
    if (!checkServingRole()) {
        stop();
        return false;
    }
    logAuditProtection();
    startChangeListener();
    m_context->tickets.setKeyEncryptionKey(*keyEncryptionKey);
    if (!m_context->tickets.prepareSigningKeys(&m_error)) {
        stop();
        return false;
    }
    http::registerAllRoutes(m_router, *m_context);
    m_pool = std::make_unique<http::ServerPool>(m_router, *m_context);
    if (!m_pool->start(m_config.listenAddress, m_config.listenPort, m_config.threads)) {
        m_error = m_pool->errorString();
        stop();
        return false;
    }
    if (m_config.metricsEnabled) {
        m_metrics = std::make_unique<http::MetricsEndpoint>(*m_context, *m_pool);
        if (!m_metrics->start(m_config.metricsAddress, m_config.metricsPort)) {
            m_error = m_metrics->errorString();
            stop();
            return false;
        }
    }
    m_context->waitingRoom.start();
    m_context->occupancyReports.startLayoutReader();
    m_context->occupancyReports.startWarming(m_config.occupancyWarmShows);
    if (m_config.reaperIntervalMs > 0) {
        m_reaper = std::make_unique<jobs::Reaper>(m_context->holds, m_context->database, m_config.reaperIntervalMs, &m_context->leases);
        m_reaper->start();
    }
    jobs::OutboxRelayConfig relay;
    relay.webhookUrls = m_config.eventWebhooks;
    relay.webhookSecret = m_config.eventWebhookSecret;
    relay.spoolDirectory = m_config.notificationSpool;
    relay.intervalMs = m_config.relayIntervalMs;
    m_relay = std::make_unique<jobs::OutboxRelay>(m_context->events, m_context->tickets, m_context->database, relay);
    m_relay->setBookings(&m_context->bookings);
    m_relay->start();
    if (m_config.reconcilerIntervalMs > 0) {
        m_reconciler = std::make_unique<jobs::Reconciler>(m_context->orderService, m_context->database, m_config.reconcilerIntervalMs);
        m_reconciler->start();
    }
    return true;
}

void MarqueeServer::startChangeListener()
{
    // Before the first request: a device revoked from now on is refused here at once, and a seat written from now on
    // reaches this instance's seat maps, whichever instance (or tool) wrote it.
    ServerContext &context = *m_context;
    m_changeListener = std::make_unique<store::ChangeListener>(context.database);
    m_changeListener->listen(QStringLiteral("marquee_auth"), [&context](const QString &) { context.auth.clearCache(); },
                             [&context](bool) { context.auth.clearCache(); });
    context.seatMaps.setCoherent(false); // until it listens, a new subscriber gets a fresh read
    m_changeListener->listen(QLatin1String(store::SeatNotification::kChannel),
                             [&context](const QString &payload) {
                                 if (const auto notification = store::SeatNotification::parse(payload))
                                     context.seatMaps.applyNotification(*notification);
                             },
                             [&context](bool listening) { context.seatMaps.setCoherent(listening); });
    m_changeListener->listen(QLatin1String(store::ShowNotification::kChannel),
                             [&context](const QString &payload) {
                                 const auto notification = store::ShowNotification::parse(payload);
                                 if (!notification)
                                     return;
                                 if (notification->kind == store::ShowNotification::Kind::Prices)
                                     context.seatMaps.invalidate(notification->showId);
                                 else
                                     context.waitingRoom.reloadSoon();
                             },
                             [&context](bool listening) {
                                 if (listening) {
                                     context.seatMaps.invalidateAll();
                                     context.waitingRoom.reloadSoon();
                                 }
                             });
    m_changeListener->start();
}

bool MarqueeServer::listensForRevocations() const
{
    return m_changeListener && m_changeListener->isListening();
}

void MarqueeServer::stop()
{
    if (m_relay)
        m_relay->stopAndWait();
    m_relay.reset();
    if (m_reconciler)
        m_reconciler->stopAndWait();
    m_reconciler.reset();
    if (m_reaper)
        m_reaper->stopAndWait();
    m_reaper.reset();
    if (m_context) {
        m_context->occupancyReports.stopWarming();
        m_context->waitingRoom.stop();
    }
    m_metrics.reset(); // before the pool whose figures it reads
    if (m_pool)
        m_pool->stop();
    m_pool.reset();
    if (m_changeListener)
        m_changeListener->stopAndWait();
    m_changeListener.reset();
    if (m_context) {
        m_context->occupancyReports.stopLayoutReader(); // after the workers: none of them asks it for a layout any more
        m_context->database.closeThreadConnection();
        // Last: until every other thread has stopped, one of them may be waiting on a database that went silent.
        m_context->databaseWatchdog.stopAndWait();
    }
    m_context.reset();
    if (m_embedded)
        m_embedded->stop();
    m_embedded.reset();
}

quint16 MarqueeServer::metricsPort() const
{
    return m_metrics ? m_metrics->port() : 0;
}

quint16 MarqueeServer::port() const
{
    return m_pool ? m_pool->port() : 0;
}

QString MarqueeServer::databaseUrl() const
{
    return m_context ? m_context->database.config().toUrl() : QString();
}

} // namespace marquee
