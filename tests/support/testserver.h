// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "httpclient.h"
#include "runtime/servercontext.h"
#include "startup/marqueeserver.h"

#include <QDateTime>
#include <functional>
#include <optional>
#include <QTemporaryDir>
#include <memory>

namespace marquee::test {

/** @brief What createTestShow() made. */
struct TestShow {
    qint64 showId = 0;
    qint64 cityId = 0;
    qint64 movieId = 0;
};

/**
 * @brief A show on a fresh @p rows × @p seatsPerRow layout in @p database (see TestServer::createShow), its venue,
 * screen and movie numbered @p number, in the city @p cityId (0: a new one). For a database no server serves yet
 * (an older schema an upgrade will find).
 */
TestShow createTestShow(const store::Database &database, int number, qint64 cityId, int rows, int seatsPerRow,
    QDateTime startsAt = {}, QDateTime salesOpenAt = {});

/**
 * @brief A real marquee-server in this process, on a loopback port, with its own migrated database in the
 * test cluster. Helpers enrol devices, add staff and create small shows.
 */
class TestServer
{
public:
    struct Options {
        int threads = 4;
        int holdTtlSeconds = 480;
        int reaperIntervalMs = 200; ///< 0: no reaper (it then never takes the reaper's fleet lease)
        int maxSeatsPerHold = 10;
        /** @brief Keep the server's bounds on live held seats per caller and show (ServerConfig::maxHeldSeatsKiosk
         *  …); off by default, since most tests hold many seats with one token on purpose. */
        bool boundHeldSeats = false;
        // Orders and payments: provider URL (settable later through
        // context().orderService.setProviderUrl()), webhook secret, windows and the reconciler.
        QString paymentProviderUrl;
        QByteArray paymentWebhookSecret;
        int paymentWindowSeconds = 900;
        int paymentGraceSeconds = 120;
        int reconcilerIntervalMs = 0;       ///< 0: no reconciler thread (tests call reconcileOnce() themselves)
        int reconcileMinAgeSeconds = 0;
        int cancelCutoffSeconds = 2 * 3600;
        /** @brief Serve this database (migrated at start) instead of a new one in the test cluster: one of a
         *  cluster the test owns, to stop or stall it. */
        std::optional<store::DatabaseConfig> database;
        /** @brief Any other setting (limits, fast refusals, ...), applied last. */
        std::function<void(ServerConfig &)> configure;
        qint64 cancelFeeMinor = 0;
        int cancelFeePercent = 0;

        /**
         * @brief Default options but for holds that last @p holdTtlSeconds and a reaper that sweeps every
         * @p reaperIntervalMs (0: no reaper at all; an hour: no sweep within a test).
         */
        static Options withHolds(int holdTtlSeconds, int reaperIntervalMs)
        {
            Options options;
            options.holdTtlSeconds = holdTtlSeconds;
            options.reaperIntervalMs = reaperIntervalMs;
            return options;
        }
        /** @brief Default options but for what @p configure changes in the server's configuration. */
        static Options withConfig(std::function<void(ServerConfig &)> configure)
        {
            Options options;
            options.configure = std::move(configure);
            return options;
        }
    };
    TestServer();
    explicit TestServer(const Options &options);
    ~TestServer();

    quint16 port() const { return m_server->port(); }
    /** @brief GET /metrics's port (0 unless the options turned it on: metricsEnabled, port 0 picks one). */
    quint16 metricsPort() const { return m_server->metricsPort(); }
    ServerContext &context() { return m_server->context(); }
    /** @brief True once this server listens for revocations made by any instance (channel marquee_auth). */
    bool listensForRevocations() const { return m_server->listensForRevocations(); }
    const store::DatabaseConfig &databaseConfig() const { return m_databaseConfig; }
    QString databaseUrl() const { return m_databaseConfig.toUrl(true); }
    /** @brief The server's own temporary data directory (its signing-kek file): pass it to marquee-admin or to a
     * marquee-server child process on the same database. */
    QString dataDirectory() const { return m_dataDirectory.path(); }

    /** @brief A new client pointed at this server, optionally with a bearer token. */
    std::unique_ptr<HttpClient> client(const QString &token = {}) const;
    /** @brief Enrol a device and return its token. */
    QString deviceToken(const QString &role = QStringLiteral("kiosk"));
    /** @brief Add a staff member (password kStaffPassword) and sign in; returns the session token. */
    QString staffToken(const QString &role = QStringLiteral("cashier"));
    /**
     * @brief Like staffToken(), re-authenticated for an hour, as refunds, overrides and drawer operations need
     * (POST /api/v1/sessions/reauth).
     */
    QString elevatedStaffToken(const QString &role = QStringLiteral("cashier"));
    static constexpr const char *kStaffPassword = "correct horse battery";
    /** @brief The server's route table (the role-matrix test walks it). */
    const http::Router &router() const { return m_server->router(); }
    /**
     * @brief A show on a fresh @p rows × @p seatsPerRow layout (seats "A1".."A<n>", "B1"...), tiers
     * standard/premium, starting at @p startsAt (default: tomorrow), sales open now.
     */
    qint64 createShow(int rows, int seatsPerRow, QDateTime startsAt = {}, QDateTime salesOpenAt = {});
    /** @brief Ids of the catalog created by createShow(): city and movie of the last show. */
    qint64 lastCityId() const { return m_cityId; }
    qint64 lastMovieId() const { return m_movieId; }
    /** @brief Run a query on the test thread's own connection and return the first column of the first row. */
    QVariant scalar(const QString &sql);

private:
    QTemporaryDir m_dataDirectory;
    store::DatabaseConfig m_databaseConfig;
    std::unique_ptr<MarqueeServer> m_server;
    int m_counter = 0;
    qint64 m_cityId = 0;
    qint64 m_movieId = 0;
};

} // namespace marquee::test
