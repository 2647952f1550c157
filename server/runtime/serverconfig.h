// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "logging.h"
#include "orders/paymentsettings.h"
#include "protection/requestframer.h"
#include "protection/trustedproxies.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>
#include <optional>

namespace marquee {

/** @brief Every setting of marquee-server, from the command line, the environment or a config file. */
struct ServerConfig {
    QHostAddress listenAddress = QHostAddress::LocalHost;
    quint16 listenPort = 8080;
    /** @brief Where GET /metrics is served (--metrics-listen); port 0 with metricsEnabled picks a free port. */
    QHostAddress metricsAddress = QHostAddress::LocalHost;
    quint16 metricsPort = 0;
    bool metricsEnabled = false;
    /** @brief HTTP worker threads (defaultWorkerThreads(): two per core). */
    int threads = defaultWorkerThreads();
    QString databaseUrl;     ///< empty: run the embedded cluster under dataDirectory
    /** @brief The owner role's URL: migrations and grants run as it, the server serves as databaseUrl's role.
     *  Empty: databaseUrl does both (one role, warned about when it may do more than serve). */
    QString databaseOwnerUrl;
    /** @brief Fail fast on a database that does not answer (see store::DatabaseWatchdog). */
    int databaseConnectTimeoutSeconds = 5; ///< opening a database connection gives up after this (2 at least)
    /** @brief PostgreSQL's statement_timeout on every serving connection, and how long a request waits for a
     *  database that stopped answering before its connection is ended and it answers 503; 0: neither. */
    int databaseStatementTimeoutMs = 5000;
    /** @brief A question of the database watchdog's probe unanswered this long: 503 and /readyz not ready. */
    int databaseSilenceMs = 1000;
    int databaseKeepaliveSeconds = 10; ///< TCP keepalives on database connections: idle time before the first probe; 0: off
    QString dataDirectory;
    QString signingKeyFile; ///< key-encryption key of the ticket signing keys; empty: dataDirectory/signing-kek
    /** @brief Started as root: drop to this user before anything else (--user; see settleUser()). */
    QString runAsUser;
    /** @brief What the options deserve a warning for (a secret given on the command line, where ps shows it). */
    QStringList warnings;
    int holdTtlSeconds = 8 * 60;
    /**
     * @brief Commit a placed hold without waiting for its WAL flush (PostgreSQL asynchronous commit). A hold is
     * a short-lived lease, not money: a database crash can forget holds acknowledged in the last few hundred
     * milliseconds (the seats become free again, a later confirm of such a hold fails closed), but never
     * corrupts or double-sells. Orders, payments and tickets always commit synchronously, and their flush makes
     * every earlier hold durable. false: every hold waits for its flush (docs/perf/journal.md, "Asynchronous hold
     * commit").
     */
    bool asyncHoldCommit = true;
    int maxSeatsPerHold = 10;
    qint64 maxBodyBytes = 64 * 1024;
    /** @brief Refuse obvious losers of a hold race from the in-memory seat statuses (HoldFastPath). */
    bool fastRefusals = true;
    /** @brief One debug line per HTTP request (category marquee.http). Off by default: writing 10,000 lines a
     *  second to standard error took 15-25 % of the /healthz rate on this 2-core machine
     *  (docs/performance.md, "Server settings that the figures depend on"). */
    bool accessLog = false;
    /** @brief How log lines are written (--log-format): text for people, json for the journal and log shippers. */
    LogFormat logFormat = LogFormat::Text;
    /** @brief Concurrent holds for one show are decided together, one transaction per batch, at most this many
     *  batches of a show at a time (HoldBatcher); 0: every hold in its own transaction. */
    int holdBatches = defaultHoldBatches();
    /** @brief Holds decided together in one batch at most (HoldBatcher): larger batches raise throughput, smaller
     *  ones shorten the slowest winner's wait (the p99 of a 200). */
    int holdBatchSize = 64;
    /**
     * @brief Live held seats one caller may have on one show (0: no bound), by kind of caller, counted across
     * single holds and sync batches and decided by PostgreSQL with each hold. A kiosk serves one customer at a
     * time: two full holds (an abandoned basket and the next customer's) fit; a till serves a queue and groups;
     * a staff session books for schools and companies. House holds (managers) are not bounded.
     */
    int maxHeldSeatsKiosk = 20;
    int maxHeldSeatsTill = 60;
    int maxHeldSeatsStaff = 200;
    /** @brief Seat-block leases (server/leases): the defaults a show's lease settings override. Seats one till
     *  may have leased on one show; how long before the start a lease ends for new leases and the till hands its
     *  unsold seats back; how long after the start a lease expires (no sale under it later). */
    int leaseSeatsPerDevice = 6;
    int leaseReturnBeforeSeconds = 1200;
    int leaseGraceSeconds = 1800;
    int fastRefusalMaxAgeMs = 1000; ///< statuses older than this are not trusted for a refusal
    int maxLiveSubscribers = 20000; ///< WebSocket seat-map subscribers per process; 0: no limit
    /** @brief Threads that write live seat-map deltas to WebSocket subscribers (off the HTTP worker threads). */
    int liveThreads = 1;
    /** @brief A live subscriber with more unsent bytes than this is cut off; it resumes with `since` on reconnect. */
    qint64 liveMaxBufferedBytes = 1024 * 1024;
    /** @brief Protection (rate and connection limits), all answered without the database. 0 switches a limit off. */
    int rateLimitPerToken = 0;    ///< requests per second per bearer token (burst: twice that); 429 + Retry-After
    int rateLimitPerAddress = 0;  ///< requests per second per client address (burst: twice that)
    int maxConnections = 10000;   ///< open HTTP/WebSocket connections per process; more are closed at once
    /** @brief Open connections per client address; behind a reverse proxy every client has the proxy's address. */
    int maxConnectionsPerAddress = 256;
    /** @brief Reverse proxies (--trusted-proxy) whose X-Forwarded-For names the client: per-address limits, the
     *  sign-in throttle and the access log then see the client's address; connections from them count only
     *  towards maxConnections. Empty: X-Forwarded-For is ignored. */
    protection::TrustedProxies trustedProxies;
    /** @brief Header, body and idle timeouts and the header size limit of every HTTP connection (FramingSocket). */
    protection::FramingLimits framing;
    int sessionTtlSeconds = 12 * 60 * 60;
    int sessionIdleSeconds = 15 * 60; ///< a staff session unused this long locks until re-authenticated
    int reauthSeconds = 5 * 60;       ///< how long a re-authentication elevates a session (refunds, overrides, drawer)
    /** @brief Sign-in throttling: this many wrong passwords for one name, or from one address, within the lockout
     *  time lock that name or address out for the lockout time (it ends by itself). */
    int signInFailuresPerName = 5;
    int signInFailuresPerAddress = 30;
    int signInLockoutSeconds = 5 * 60;
    /** @brief Threads that hash sign-in passwords (PBKDF2), apart from the HTTP workers. */
    int passwordThreads = 2;
    /** @brief Backups and pairing (runtime/backup.h, POST /api/v1/devices/pair). */
    QString backupDirectory;        ///< pre-upgrade dumps; empty: dataDirectory/backups
    int preUpgradeBackups = 3;      ///< pre-upgrade dumps kept; 0: no dump before migrating
    QString venueCaFile;            ///< the venue CA certificate whose fingerprint a pairing device is told; empty: none
    int pairingFailuresPerAddress = 5;  ///< wrong pairing codes from one address that lock it out (the sign-in lockout time)
    int pairingFailuresFleetWide = 20;  ///< wrong pairing codes from anywhere that lock pairing out
    /** @brief Where pre-upgrade dumps go: backupDirectory, else dataDirectory/backups. */
    QString backupDirectoryInEffect() const;
    int reaperIntervalMs = 1000; ///< 0: no reaper in this process (in-process test set-ups; --reaper-interval-ms is 10 at least)
    /** @brief Outbox relay: webhook subscribers (each gets every event, signed with eventWebhookSecret). */
    QStringList eventWebhooks;
    QByteArray eventWebhookSecret;
    QString notificationSpool; ///< booking.confirmed → ticket message files here; empty: off
    int relayIntervalMs = 500;
    /** @brief Orders and payments: provider URL, webhook secret, payment window, cancel policy, reconciliation. */
    payments::PaymentSettings payments;
    int reconcilerIntervalMs = 5000; ///< 0 disables the reconciler
    /** @brief Waiting room: admission tick and in-memory refresh period; hold attempts per second on one show
     *  that switch its waiting room on automatically (0: only managers switch it on). */
    int waitingRoomTickMs = 250;
    int waitingRoomThreshold = 0;
    /** @brief The longest poll interval a status answer suggests to users far back in a queue (see
     *  WaitingRoomService::setMaxPollMs): fewer polls from a huge queue, later sold-out notice for its far end. */
    int waitingRoomMaxPollMs = 10000;
    /** @brief Shows on sale (soonest first) whose occupancy report is loaded in the background at start, within
     *  the reports' 64 MB bound (OccupancyReports::startWarming); 0: none, each show loads on its first request. */
    int occupancyWarmShows = 100;
    /** @brief Live holds one till device or staff session may have on a show whose waiting room is on (0: no bound). */
    int boxOfficeHoldsPerCaller = 8;

    /**
     * @brief Two HTTP workers per core, at least 4. Holds are decided on the batch threads, so a worker mostly parses
     * and answers; more workers than that only add runnable threads that compete with PostgreSQL for the cores and
     * lengthen the winners' tail (on 2 cores, 16 workers: hold p99 76-147 ms; 4 workers: median 48.9 ms over 17 rounds —
     * docs/perf/journal.md, "Worker and batch threads follow the cores"). Orders and payments still commit on the
     * worker thread; 4 workers keep 4 commits in flight, which share WAL flushes.
     */
    static int defaultWorkerThreads();
    /** @brief One hold-batch thread per core: each batch transaction then has a core to run on. */
    static int defaultHoldBatches();
    /** @brief Default data directory: /var/lib/marquee for root, else the user's data location. */
    static QString defaultDataDirectory();
    /**
     * @brief Parse arguments (argv without the program name is fine too). Environment: MARQUEE_DATABASE_URL,
     * MARQUEE_LISTEN, MARQUEE_DATA_DIR, MARQUEE_SIGNING_KEK_FILE,
     * MARQUEE_PAYMENT_PROVIDER_URL, MARQUEE_PAYMENT_WEBHOOK_SECRET. A `--config FILE` of `key = value` lines uses the option names.
     * std::nullopt with @p error on bad input.
     */
    static std::optional<ServerConfig> fromArguments(const QStringList &arguments, QString *error);
    static QString usage();
    /** @brief The key-encryption key file in effect: signingKeyFile, else the systemd credential signing-kek,
     *  else the one in the data directory. */
    QString keyEncryptionKeyPath() const;
};

/** @brief Parse "host:port" into address and port. */
bool parseListen(const QString &text, QHostAddress *address, quint16 *port);

} // namespace marquee
