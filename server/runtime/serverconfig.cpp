// SPDX-License-Identifier: AGPL-3.0-or-later
#include "runtime/serverconfig.h"
#include "holds/holdbatcher.h"
#include "store/secretfile.h"
#include "tickets/keyencryptionkey.h"

#include <QFile>
#include <QStandardPaths>
#include <QThread>
#include <QUrl>
#include <algorithm>
#include <utility>
#include <unistd.h>

namespace marquee {

static int coreCount()
{
    return std::max(1, QThread::idealThreadCount());
}

int ServerConfig::defaultWorkerThreads()
{
    return std::clamp(2 * coreCount(), 4, 64);
}

int ServerConfig::defaultHoldBatches()
{
    return std::clamp(coreCount(), 1, 64);
}

QString ServerConfig::defaultDataDirectory()
{
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/marquee");
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return (base.isEmpty() ? QStringLiteral("/tmp") : base) + QStringLiteral("/marquee");
}

bool parseListen(const QString &text, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint value = text.mid(colon + 1).toUInt(&ok);
    if (!ok || value > 65535)
        return false;
    QHostAddress parsed;
    if (host == QLatin1String("localhost"))
        parsed = QHostAddress::LocalHost;
    else if (!parsed.setAddress(host))
        return false;
    *address = parsed;
    *port = quint16(value);
    return true;
}

QString ServerConfig::keyEncryptionKeyPath() const
{
    if (!signingKeyFile.isEmpty())
        return signingKeyFile;
    const QString credential = store::SecretFile::credential(QStringLiteral("signing-kek"));
    return credential.isEmpty() ? KeyEncryptionKey::defaultPath(dataDirectory) : credential;
}

QString ServerConfig::backupDirectoryInEffect() const
{
    return backupDirectory.isEmpty() ? dataDirectory + QStringLiteral("/backups") : backupDirectory;
}

QString ServerConfig::usage()
{
    return QStringLiteral(
        "Usage: marquee-server [options]\n"
        "  --listen HOST:PORT          address to serve HTTP on (default 127.0.0.1:8080)\n"
        "  --metrics-listen HOST:PORT  serve GET /metrics (Prometheus text) there, apart from the API (default off;\n"
        "                              the venue package turns it on at 127.0.0.1:9464); off turns it off\n"
        "  --threads N                 worker threads, each with its own event loop and database connection\n"
        "                              (default two per core, at least 4: %2 here)\n"
        "  --database-url URL          postgresql://user:password@host:port/db: the role the server serves as\n"
        "                              (default: the embedded cluster, served as its role marquee_server)\n"
        "  --database-owner-url URL    the owner role: migrations and grants run as it, then the server serves as\n"
        "                              --database-url's role with only the rights it needs (docs/security.md)\n"
        "  --database-connect-timeout SECONDS  opening a database connection gives up after this (default 5, at least 2)\n"
        "  --database-statement-timeout DURATION  PostgreSQL statement_timeout of every connection, and how long a\n"
        "                              request waits for a database that stopped answering before it answers 503\n"
        "                              (5s, 1500ms or seconds; default 5s, 0 = off)\n"
        "  --database-silence DURATION  a probe's question to the database unanswered this long: requests get 503\n"
        "                              at once and /readyz is not ready until it answers (default 1s, 100ms to 60s)\n"
        "  --database-keepalive SECONDS  TCP keepalives on database connections: a vanished database host is noticed\n"
        "                              after about twice this (default 10, 0 = the system's default)\n"
        "  --user NAME                 started as root: become NAME first (the server refuses to run as root;\n"
        "                              MARQUEE_UNSAFE_ALLOW_ROOT=1 allows it, for tests only)\n"
        "  --data-dir DIR              where the embedded cluster and the signing-kek file live (default %1)\n"
        "  --signing-kek-file FILE     key-encryption key of the ticket signing keys (default: the systemd credential\n"
        "                              signing-kek in $CREDENTIALS_DIRECTORY, else DIR/signing-kek, created 0600 on\n"
        "                              first start; every server of one database needs the same)\n"
        "  --hold-ttl SECONDS          how long a hold lasts (default 480)\n"
        "  --hold-commit async|sync    async: a placed hold does not wait for its WAL flush; a database crash may\n"
        "                              forget the last moments' holds, never an order (default async)\n"
        "  --max-seats-per-hold N      largest hold (default 10)\n"
        "  --session-ttl SECONDS       staff session lifetime (default 43200)\n"
        "  --session-idle SECONDS      a staff session unused this long locks until re-authenticated (default 900)\n"
        "  --reauth-window SECONDS     a re-authentication allows refunds, overrides and drawer operations this long (default 300)\n"
        "  --sign-in-failures-per-name N     wrong passwords for one name that lock it out (default 5)\n"
        "  --sign-in-failures-per-address N  wrong passwords from one address that lock it out (default 30)\n"
        "  --sign-in-lockout SECONDS   how long a lockout lasts, and the window failures are counted in (default 300)\n"
        "  --password-threads N        threads hashing sign-in passwords, apart from the HTTP workers (default 2)\n"
        "  --backup-dir DIR            where the dump before a schema upgrade goes (default DIR/backups of --data-dir)\n"
        "  --pre-upgrade-backups N     dumps before schema upgrades kept (default 3; 0: no dump before migrating)\n"
        "  --venue-ca-file FILE        the venue CA certificate (marquee-admin tls init's ca.crt): a device that pairs\n"
        "                              is told its SHA-256 fingerprint (default: none)\n"
        "  --pairing-failures-per-address N  wrong pairing codes from one address that lock it out (default 5)\n"
        "  --pairing-failures-fleet-wide N   wrong pairing codes from anywhere that lock pairing out (default 20)\n"
        "  --payment-provider-url URL  card provider (marquee-paysim) base URL, e.g. http://127.0.0.1:8090\n"
        "  --payment-webhook-secret-file FILE  HMAC secret of provider webhooks (without it every webhook is refused;\n"
        "                              default: MARQUEE_PAYMENT_WEBHOOK_SECRET(_FILE), else the systemd credential\n"
        "                              payment-webhook-secret). --payment-webhook-secret S works too, with a warning:\n"
        "                              ps shows it to every local user\n"
        "  --payment-window SECONDS    how long an order waits for its payment (default 900)\n"
        "  --payment-grace SECONDS     the order's hold is kept this much longer than the window (default 120)\n"
        "  --cancel-cutoff SECONDS     cashiers may cancel until this long before the start (default 7200)\n"
        "  --cancel-fee-minor N        fixed cancellation fee in minor units, kept from the refund (default 0)\n"
        "  --cancel-fee-percent P      plus P percent (0-100) of the amount paid, rounded down (default 0)\n"
        "  --reconciler-interval-ms N  how often stuck orders are resolved (default 5000, 0 = off)\n"
        "  --waiting-room-tick-ms N    waiting-room admission and refresh period (default 250)\n"
        "  --waiting-room-threshold N  hold attempts per second on one show that switch its waiting room on (default 0 = off)\n"
        "  --waiting-room-max-poll-ms N  longest poll interval suggested to users far back in a queue (default 10000)\n"
        "  --reconcile-min-age SECONDS leave orders younger than this to their clients (default 30)\n"
        "  --event-webhook URL         send every outbox event to URL (repeatable), at least once, signed\n"
        "  --event-webhook-secret-file FILE  HMAC-SHA256 secret for the X-Signature of event webhooks (default:\n"
        "                              MARQUEE_EVENT_WEBHOOK_SECRET(_FILE), else the credential event-webhook-secret;\n"
        "                              --event-webhook-secret S works too, with a warning)\n"
        "  --notification-spool DIR    write ticket e-mail/SMS messages for confirmed bookings to DIR\n"
        "  --relay-interval-ms N       how often the outbox relay looks for new events (default 500)\n"
        "  --fast-refusals on|off      refuse obvious hold losers from memory without the database (default on)\n"
        "  --access-log on|off         one line per HTTP request on standard error: method, path, status, microseconds\n"
        "                              (default off: at flash-sale rates the lines cost a fifth of the throughput;\n"
        "                              QT_LOGGING_RULES=marquee.http.debug=true also turns them on)\n"
        "  --log-format text|json      text: Qt's lines for people; json: one object a line (time, level, category,\n"
        "                              message, request_id) for the journal and log shippers (default text)\n"
        "  --hold-batches N            hold requests wait in a per-show queue and N threads decide them in batches,\n"
        "                              one transaction per batch (default one per core: %3 here; 0 = one transaction per hold, no queue)\n"
        "  --hold-batch-size N         holds decided together in one batch at most (default 64, 1-64)\n"
        "  --max-held-seats-kiosk N    live held seats one kiosk may have on one show (default 20, 0 = no bound)\n"
        "  --max-held-seats-till N     live held seats one till may have on one show (default 60, 0 = no bound)\n"
        "  --max-held-seats-staff N    live held seats one staff session may have on one show (default 200, 0 = no bound)\n"
        "  --lease-seats-per-device N  seats one till may keep leased on one show for offline sale (default 6, 0 = no leases)\n"
        "  --lease-return-before SECONDS  no lease this close to the start; a till hands its unsold leased seats back\n"
        "                              then (default 1200)\n"
        "  --lease-grace SECONDS       a lease expires this long after the start (default 1800)\n"
        "  --max-live-subscribers N    WebSocket seat-map subscribers per process (default 20000, 0 = no limit)\n"
        "  --live-threads N            threads that send live seat-map deltas to WebSocket subscribers (default 1)\n"
        "  --occupancy-warm-shows N    load the occupancy reports of up to N shows on sale (soonest first) in the\n"
        "                              background at start, within the reports' 64 MB (default 100, 0 = off)\n"
        "  --box-office-holds N        live holds per till or staff session on a show whose waiting room is on (default 8, 0 = no bound)\n"
        "  --rate-limit-token N        requests per second per bearer token, bursts of 2N (default 0 = off)\n"
        "  --rate-limit-address N      requests per second per client address, bursts of 2N (default 0 = off)\n"
        "  --max-connections N         open connections per process (default 10000, 0 = no limit)\n"
        "  --max-connections-per-address N  open connections per client address (default 256, 0 = no limit;\n"
        "                              connections from a --trusted-proxy count only towards --max-connections)\n"
        "  --trusted-proxy ADDR[,ADDR...]  reverse proxies (IP or ADDR/BITS) whose X-Forwarded-For is believed: its last\n"
        "                              entry is the client for the per-address limits, the sign-in throttle and the\n"
        "                              access log; from any other peer the header is ignored (default none)\n"
        "%4"
        "  --config FILE               read 'option = value' lines (same names, without the dashes)\n"
        "Environment: MARQUEE_DATABASE_URL, MARQUEE_DATABASE_OWNER_URL, MARQUEE_LISTEN, MARQUEE_DATA_DIR, MARQUEE_SIGNING_KEK_FILE,\n"
        "MARQUEE_PAYMENT_PROVIDER_URL, MARQUEE_PAYMENT_WEBHOOK_SECRET(_FILE), MARQUEE_EVENT_WEBHOOK_SECRET(_FILE).\n"
        "Under systemd, the credentials signing-kek, payment-webhook-secret, event-webhook-secret, database-url and\n"
        "database-owner-url in $CREDENTIALS_DIRECTORY (LoadCredential=) are used for whatever is not set otherwise.\n")
        .arg(defaultDataDirectory(), QString::number(defaultWorkerThreads()), QString::number(defaultHoldBatches()), protection::FramingLimits::usage());
}

std::optional<ServerConfig> ServerConfig::fromArguments(const QStringList &input, QString *error)
{
    ServerConfig config;
    config.dataDirectory = qEnvironmentVariable("MARQUEE_DATA_DIR", defaultDataDirectory());
    config.databaseUrl = qEnvironmentVariable("MARQUEE_DATABASE_URL");
    config.databaseOwnerUrl = qEnvironmentVariable("MARQUEE_DATABASE_OWNER_URL");
    config.signingKeyFile = qEnvironmentVariable("MARQUEE_SIGNING_KEK_FILE");
    config.payments.providerUrl = qEnvironmentVariable("MARQUEE_PAYMENT_PROVIDER_URL");
    config.payments.webhookSecret = qgetenv("MARQUEE_PAYMENT_WEBHOOK_SECRET");
    config.eventWebhookSecret = qgetenv("MARQUEE_EVENT_WEBHOOK_SECRET");
    // A secret from a file named in the environment (the file's content never shows in ps or /proc/PID/environ).
    for (const auto &[variable, target] : {std::pair{"MARQUEE_PAYMENT_WEBHOOK_SECRET_FILE", &config.payments.webhookSecret},
                                           std::pair{"MARQUEE_EVENT_WEBHOOK_SECRET_FILE", &config.eventWebhookSecret}}) {
        if (const QString file = qEnvironmentVariable(variable); !file.isEmpty()) {
            const auto secret = store::SecretFile::read(file, error, true);
            if (!secret)
                return std::nullopt;
            *target = *secret;
        }
    }
    QStringList arguments;
    if (qEnvironmentVariableIsSet("MARQUEE_LISTEN"))
        arguments << QStringLiteral("--listen") << qEnvironmentVariable("MARQUEE_LISTEN");

    // Expand --config FILE into options first, so that the command line still wins over the file.
    QStringList fromFile;
    QStringList rest;
    for (qsizetype i = 0; i < input.size(); ++i) {
        if (input[i] == QLatin1String("--config") && i + 1 < input.size()) {
            QFile file(input[++i]);
            if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
                *error = QStringLiteral("cannot read config file %1").arg(file.fileName());
                return std::nullopt;
            }
            while (!file.atEnd()) {
                const QString line = QString::fromUtf8(file.readLine()).trimmed();
                if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
                    continue;
                const qsizetype eq = line.indexOf(QLatin1Char('='));
                if (eq <= 0) {
                    *error = QStringLiteral("bad config line: %1").arg(line);
                    return std::nullopt;
                }
                fromFile << QStringLiteral("--") + line.left(eq).trimmed() << line.mid(eq + 1).trimmed();
            }
        } else {
            rest << input[i];
        }
    }
    arguments += fromFile + rest;
    // Options from here on were typed on the command line, which every local user can read (ps, /proc/PID/cmdline).
    const qsizetype commandLineFrom = arguments.size() - rest.size();
    auto warnOfPassword = [&](qsizetype index, const QString &name, const QString &url, const char *instead) {
        if (index >= commandLineFrom && !QUrl(url).password().isEmpty())
            config.warnings << QStringLiteral("%1 with a password on the command line is visible to every local user (ps); use %2").arg(name, QLatin1String(instead));
    };
    auto secretOption = [&](qsizetype index, const QString &name, const QString &value, QByteArray *out) {
        if (name.endsWith(QLatin1String("-file"))) {
            const auto secret = store::SecretFile::read(value, error, true);
            if (!secret)
                return false;
            if (secret->isEmpty()) {
                *error = QStringLiteral("%1: %2 is empty").arg(name, value);
                return false;
            }
            *out = *secret;
            return true;
        }
        *out = value.toUtf8();
        if (index >= commandLineFrom)
            config.warnings << QStringLiteral("%1 on the command line is visible to every local user (ps); use %1-file FILE, "
                                              "the environment or a systemd credential instead")
                                   .arg(name);
        return true;
    };

    auto intValue = [&](const QString &name, const QString &text, int min, int max, int *out) {
        bool ok = false;
        const int value = text.toInt(&ok);
        if (!ok || value < min || value > max) {
            *error = QStringLiteral("%1 must be an integer from %2 to %3").arg(name).arg(min).arg(max);
            return false;
        }
        *out = value;
        return true;
    };

    // A duration in milliseconds: "5s", "1500ms", or a plain number of seconds.
    auto durationValue = [&](const QString &name, const QString &text, int maxSeconds, int *outMs) {
        QString number = text;
        int scale = 1000;
        if (number.endsWith(QLatin1String("ms"))) {
            number.chop(2);
            scale = 1;
        } else if (number.endsWith(QLatin1Char('s'))) {
            number.chop(1);
        }
        bool ok = false;
        const qint64 value = number.toLongLong(&ok) * scale;
        if (!ok || value < 0 || value > qint64(maxSeconds) * 1000) {
            *error = QStringLiteral("%1 expects a duration from 0 to %2s (5s, 1500ms or seconds), got %3").arg(name).arg(maxSeconds).arg(text);
            return false;
        }
        *outMs = int(value);
        return true;
    };

    auto onOffValue = [&](const QString &name, const QString &text, bool *out) {
        if (text != QLatin1String("on") && text != QLatin1String("off")) {
            *error = QStringLiteral("%1 is on or off, got %2").arg(name, text);
            return false;
        }
        *out = text == QLatin1String("on");
        return true;
    };

    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &option = arguments[i];
        if (option == QLatin1String("--help") || option == QLatin1String("-h")) {
            *error = QString();
            return std::nullopt;
        }
        if (i + 1 >= arguments.size()) {
            *error = QStringLiteral("unknown option or missing value: %1").arg(option);
            return std::nullopt;
        }
        const QString value = arguments[++i];
        if (option == QLatin1String("--listen")) {
            if (!parseListen(value, &config.listenAddress, &config.listenPort)) {
                *error = QStringLiteral("--listen expects HOST:PORT, got %1").arg(value);
                return std::nullopt;
            }
        } else if (option == QLatin1String("--metrics-listen")) {
            config.metricsEnabled = value != QLatin1String("off");
            if (config.metricsEnabled && !parseListen(value, &config.metricsAddress, &config.metricsPort)) {
                *error = QStringLiteral("--metrics-listen expects HOST:PORT or off, got %1").arg(value);
                return std::nullopt;
            }
        } else if (option == QLatin1String("--threads")) {
            if (!intValue(option, value, 1, 64, &config.threads))
                return std::nullopt;
        } else if (option == QLatin1String("--database-url")) {
            config.databaseUrl = value;
            warnOfPassword(i, option, value, "MARQUEE_DATABASE_URL or the database-url credential");
        } else if (option == QLatin1String("--user")) {
            config.runAsUser = value;
        } else if (option == QLatin1String("--database-owner-url")) {
            config.databaseOwnerUrl = value;
            warnOfPassword(i, option, value, "MARQUEE_DATABASE_OWNER_URL or the database-owner-url credential");
        } else if (option == QLatin1String("--database-connect-timeout")) {
            if (!intValue(option, value, 2, 600, &config.databaseConnectTimeoutSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--database-statement-timeout")) {
            if (!durationValue(option, value, 3600, &config.databaseStatementTimeoutMs))
                return std::nullopt;
        } else if (option == QLatin1String("--database-silence")) {
            if (!durationValue(option, value, 60, &config.databaseSilenceMs))
                return std::nullopt;
            if (config.databaseSilenceMs < 100) {
                *error = QStringLiteral("--database-silence must be at least 100ms (a probe is asked every 250 ms)");
                return std::nullopt;
            }
        } else if (option == QLatin1String("--database-keepalive")) {
            if (!intValue(option, value, 0, 3600, &config.databaseKeepaliveSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--data-dir")) {
            config.dataDirectory = value;
        } else if (option == QLatin1String("--signing-kek-file")) {
            config.signingKeyFile = value;
        } else if (option == QLatin1String("--hold-ttl")) {
            if (!intValue(option, value, 1, 24 * 3600, &config.holdTtlSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--max-seats-per-hold")) {
            if (!intValue(option, value, 1, 100, &config.maxSeatsPerHold))
                return std::nullopt;
        } else if (option == QLatin1String("--session-ttl")) {
            if (!intValue(option, value, 60, 7 * 24 * 3600, &config.sessionTtlSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--session-idle")) {
            if (!intValue(option, value, 30, 24 * 3600, &config.sessionIdleSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--reauth-window")) {
            if (!intValue(option, value, 10, 3600, &config.reauthSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--sign-in-failures-per-name")) {
            if (!intValue(option, value, 1, 1000, &config.signInFailuresPerName))
                return std::nullopt;
        } else if (option == QLatin1String("--sign-in-failures-per-address")) {
            if (!intValue(option, value, 1, 100000, &config.signInFailuresPerAddress))
                return std::nullopt;
        } else if (option == QLatin1String("--sign-in-lockout")) {
            if (!intValue(option, value, 1, 24 * 3600, &config.signInLockoutSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--backup-dir")) {
            config.backupDirectory = value;
        } else if (option == QLatin1String("--pre-upgrade-backups")) {
            if (!intValue(option, value, 0, 1000, &config.preUpgradeBackups))
                return std::nullopt;
        } else if (option == QLatin1String("--venue-ca-file")) {
            config.venueCaFile = value;
        } else if (option == QLatin1String("--pairing-failures-per-address")) {
            if (!intValue(option, value, 1, 1000, &config.pairingFailuresPerAddress))
                return std::nullopt;
        } else if (option == QLatin1String("--pairing-failures-fleet-wide")) {
            if (!intValue(option, value, 1, 100000, &config.pairingFailuresFleetWide))
                return std::nullopt;
        } else if (option == QLatin1String("--password-threads")) {
            if (!intValue(option, value, 1, 64, &config.passwordThreads))
                return std::nullopt;
        } else if (option == QLatin1String("--reaper-interval-ms")) {
            if (!intValue(option, value, 10, 600000, &config.reaperIntervalMs))
                return std::nullopt;
        } else if (option == QLatin1String("--event-webhook")) {
            if (!(value.startsWith(QLatin1String("http://")) || value.startsWith(QLatin1String("https://"))) || value.size() < 10) {
                *error = QStringLiteral("--event-webhook expects an http:// or https:// URL, got %1").arg(value);
                return std::nullopt;
            }
            config.eventWebhooks << value;
        } else if (option == QLatin1String("--event-webhook-secret") || option == QLatin1String("--event-webhook-secret-file")) {
            if (!secretOption(i - 1, option, value, &config.eventWebhookSecret))
                return std::nullopt;
        } else if (option == QLatin1String("--notification-spool")) {
            config.notificationSpool = value;
        } else if (option == QLatin1String("--relay-interval-ms")) {
            if (!intValue(option, value, 10, 600000, &config.relayIntervalMs))
                return std::nullopt;
        } else if (option == QLatin1String("--payment-provider-url")) {
            const QUrl url(value);
            if (!url.isValid() || url.scheme() != QLatin1String("http") || url.host().isEmpty()) {
                *error = QStringLiteral("--payment-provider-url expects http://HOST:PORT, got %1").arg(value);
                return std::nullopt;
            }
            config.payments.providerUrl = value;
        } else if (option == QLatin1String("--payment-webhook-secret") || option == QLatin1String("--payment-webhook-secret-file")) {
            if (!secretOption(i - 1, option, value, &config.payments.webhookSecret))
                return std::nullopt;
        } else if (option == QLatin1String("--payment-window")) {
            if (!intValue(option, value, 10, 24 * 3600, &config.payments.paymentWindowSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--payment-grace")) {
            if (!intValue(option, value, 0, 3600, &config.payments.graceSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--cancel-cutoff")) {
            if (!intValue(option, value, 0, 30 * 24 * 3600, &config.payments.cancelCutoffSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--waiting-room-tick-ms")) {
            if (!intValue(option, value, 20, 60000, &config.waitingRoomTickMs))
                return std::nullopt;
        } else if (option == QLatin1String("--waiting-room-threshold")) {
            if (!intValue(option, value, 0, 1000000, &config.waitingRoomThreshold))
                return std::nullopt;
        } else if (option == QLatin1String("--waiting-room-max-poll-ms")) {
            if (!intValue(option, value, 1000, 3600000, &config.waitingRoomMaxPollMs))
                return std::nullopt;
        } else if (option == QLatin1String("--hold-commit")) {
            if (value != QLatin1String("async") && value != QLatin1String("sync")) {
                *error = QStringLiteral("--hold-commit is async or sync, got %1").arg(value);
                return std::nullopt;
            }
            config.asyncHoldCommit = value == QLatin1String("async");
        } else if (option == QLatin1String("--fast-refusals")) {
            if (!onOffValue(option, value, &config.fastRefusals))
                return std::nullopt;
        } else if (option == QLatin1String("--log-format")) {
            if (value != QLatin1String("text") && value != QLatin1String("json")) {
                *error = QStringLiteral("--log-format is text or json, got %1").arg(value);
                return std::nullopt;
            }
            config.logFormat = value == QLatin1String("json") ? LogFormat::Json : LogFormat::Text;
        } else if (option == QLatin1String("--access-log")) {
            if (!onOffValue(option, value, &config.accessLog))
                return std::nullopt;
        } else if (option == QLatin1String("--hold-batches")) {
            if (!intValue(option, value, 0, 64, &config.holdBatches))
                return std::nullopt;
        } else if (option == QLatin1String("--hold-batch-size")) {
            if (!intValue(option, value, 1, HoldBatcher::kMaxBatch, &config.holdBatchSize))
                return std::nullopt;
        } else if (option == QLatin1String("--max-held-seats-kiosk")) {
            if (!intValue(option, value, 0, 100000, &config.maxHeldSeatsKiosk))
                return std::nullopt;
        } else if (option == QLatin1String("--max-held-seats-till")) {
            if (!intValue(option, value, 0, 100000, &config.maxHeldSeatsTill))
                return std::nullopt;
        } else if (option == QLatin1String("--max-held-seats-staff")) {
            if (!intValue(option, value, 0, 100000, &config.maxHeldSeatsStaff))
                return std::nullopt;
        } else if (option == QLatin1String("--lease-seats-per-device")) {
            if (!intValue(option, value, 0, 10000, &config.leaseSeatsPerDevice))
                return std::nullopt;
        } else if (option == QLatin1String("--lease-return-before")) {
            if (!intValue(option, value, 0, 7 * 24 * 3600, &config.leaseReturnBeforeSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--lease-grace")) {
            if (!intValue(option, value, 0, 7 * 24 * 3600, &config.leaseGraceSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--max-live-subscribers")) {
            if (!intValue(option, value, 0, 10000000, &config.maxLiveSubscribers))
                return std::nullopt;
        } else if (option == QLatin1String("--occupancy-warm-shows")) {
            if (!intValue(option, value, 0, 100000, &config.occupancyWarmShows))
                return std::nullopt;
        } else if (option == QLatin1String("--box-office-holds")) {
            if (!intValue(option, value, 0, 10000, &config.boxOfficeHoldsPerCaller))
                return std::nullopt;
        } else if (option == QLatin1String("--live-threads")) {
            if (!intValue(option, value, 1, 64, &config.liveThreads))
                return std::nullopt;
        } else if (option == QLatin1String("--rate-limit-token")) {
            if (!intValue(option, value, 0, 1000000, &config.rateLimitPerToken))
                return std::nullopt;
        } else if (option == QLatin1String("--rate-limit-address")) {
            if (!intValue(option, value, 0, 1000000, &config.rateLimitPerAddress))
                return std::nullopt;
        } else if (option == QLatin1String("--max-connections")) {
            if (!intValue(option, value, 0, 10000000, &config.maxConnections))
                return std::nullopt;
        } else if (option == QLatin1String("--max-connections-per-address")) {
            if (!intValue(option, value, 0, 10000000, &config.maxConnectionsPerAddress))
                return std::nullopt;
        } else if (option == QLatin1String("--cancel-fee-minor")) {
            int fee = 0;
            if (!intValue(option, value, 0, 100000000, &fee))
                return std::nullopt;
            config.payments.cancelFeeMinor = fee;
        } else if (option == QLatin1String("--cancel-fee-percent")) {
            if (!intValue(option, value, 0, 100, &config.payments.cancelFeePercent))
                return std::nullopt;
        } else if (option == QLatin1String("--reconcile-min-age")) {
            if (!intValue(option, value, 0, 24 * 3600, &config.payments.reconcileMinAgeSeconds))
                return std::nullopt;
        } else if (option == QLatin1String("--reconciler-interval-ms")) {
            if (!intValue(option, value, 0, 3600000, &config.reconcilerIntervalMs))
                return std::nullopt;
        } else if (option == QLatin1String("--trusted-proxy")) {
            const auto proxies = protection::TrustedProxies::parse(value, error);
            if (!proxies)
                return std::nullopt;
            config.trustedProxies = *proxies;
        } else if (const auto framing = config.framing.parseOption(option, value, error); framing != protection::FramingLimits::Parsed::NotMine) {
            if (framing == protection::FramingLimits::Parsed::Bad)
                return std::nullopt;
        } else {
            *error = QStringLiteral("unknown option %1").arg(option);
            return std::nullopt;
        }
    }
    // Last: the systemd credentials (LoadCredential=) of whatever is still unset.
    for (const auto &[name, target] : {std::pair{"payment-webhook-secret", &config.payments.webhookSecret},
                                       std::pair{"event-webhook-secret", &config.eventWebhookSecret}}) {
        if (!target->isEmpty())
            continue;
        if (const QString file = store::SecretFile::credential(QString::fromLatin1(name)); !file.isEmpty()) {
            const auto secret = store::SecretFile::read(file, error, true);
            if (!secret)
                return std::nullopt;
            *target = *secret;
        }
    }
    for (const auto &[name, target] : {std::pair{"database-url", &config.databaseUrl}, std::pair{"database-owner-url", &config.databaseOwnerUrl}}) {
        if (!target->isEmpty())
            continue;
        if (const QString file = store::SecretFile::credential(QString::fromLatin1(name)); !file.isEmpty()) {
            const auto url = store::SecretFile::read(file, error, true);
            if (!url)
                return std::nullopt;
            *target = QString::fromUtf8(url->trimmed());
        }
    }
    return config;
}

} // namespace marquee
