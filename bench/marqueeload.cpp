// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-load: a closed-loop HTTP load generator for marquee-server (scenarios holds, seatmap, healthz).
#include "flashsale.h"
#include "invariants.h"
#include "livebench.h"
#include "loadengine.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QUrl>
#include <map>
#include <mutex>
#include <random>

using namespace marquee::bench;

namespace {

QString usage()
{
    return QStringLiteral(
        "Usage: marquee-load SCENARIO [options]\n"
        "Scenarios:\n"
        "  healthz     GET /healthz (the anchor for the server's own request rate)\n"
        "  seatmap     GET /api/v1/shows/ID/seatmap; --etag sends the last ETag in If-None-Match (304s);\n"
        "              --availability reads the compact GET /api/v1/shows/ID/availability instead, a full body\n"
        "              each time, with Accept-Encoding: gzip, deflate as Qt's network access manager sends it\n"
        "  holds       POST /api/v1/shows/ID/hold of 1-4 adjacent seats, each request with its own Idempotency-Key\n"
        "  flash-sale  --users N join the show's waiting room, poll, are admitted, hold 1-4 adjacent seats (a fresh\n"
        "              map on 409), pay through marquee-paysim (--paysim URL) and confirm; runs until every user\n"
        "              bought or was told the show is sold out (at most --duration s), then checks the invariants\n"
        "              (--database-url). --manager-token T switches the room on, opening after --open-after S\n"
        "              (default 5); --arrival S spreads the joins; --admission-ttl S, --min-admit N/s,\n"
        "              --max-in-flight N set the room; --max-poll-ms N caps the wait between polls\n"
        "              (default 0: as long as the server's poll_after_ms says);\n"
        "              --paysim-clients N (default 8); --clients are the connections to the server;\n"
        "              --long-poll-clients N more connections on which users within --long-poll S (default 20) of\n"
        "              their turn park a status request (wait=S) and learn of their admission at once\n"
        "  mixed       holds, with --read-share of the clients reading the seat map with ETag revalidation instead\n"
        "  live        --subscribers WebSocket subscribers of /api/v1/shows/ID/live; a writer holds --changes single seats\n"
        "              one after the other; reports how long each change takes to reach every subscriber\n"
        "Options:\n"
        "  --url URL               server (default http://127.0.0.1:8080)\n"
        "  --clients N             concurrent clients, one keep-alive connection each (default 64)\n"
        "  --threads N             generator threads; connections are spread over them (default 1)\n"
        "  --duration S            measuring window in seconds (default 10)\n"
        "  --warmup S              seconds before the window, not measured (default 1)\n"
        "  --show ID               the show (seatmap, holds)\n"
        "  --token TOKEN           bearer token for every client, or\n"
        "  --tokens FILE           one token per line; client i uses line i modulo the count (its own device)\n"
        "  --seats uniform|hot-rows  seat choice (default uniform); hot-rows sends --hot-share of the groups\n"
        "                          into the first --hot-rows fraction of the layout's rows (defaults 0.8, 0.05)\n"
        "  --group MIN-MAX         group size range (default 1-4)\n"
        "  --release               holds: release each granted hold (DELETE, not measured) before the next hold, as a\n"
        "                          kiosk's customer who leaves; a token then holds one group at a time\n"
        "  --pool N                holds: choose seats only among the first N seats (rows in layout order), for a\n"
        "                          chosen contention: attempts per seat = decisions / N (e.g. 50:1)\n"
        "  --read-share F          mixed: fraction of the clients that read the seat map (default 0.5)\n"
        "  --subscribers N         live: WebSocket subscribers (default 1000)\n"
        "  --changes N             live: holds the writer makes (default 200)\n"
        "  --interval-ms N         live: pause between the writer's holds (default 50)\n"
        "  --etag                  seatmap: revalidate with If-None-Match\n"
        "  --deflate               seatmap: send Accept-Encoding: deflate (the compressed body is not inflated)\n"
        "  --availability          seatmap: the compact availability body (see above; not inflated either)\n"
        "  --database-url URL      after holds: check the invariants against the server's database\n"
        "  --seed N                random seed (default: from the clock)\n"
        "Prints throughput, latency percentiles, status counts and a final 'RESULT key=value' line.\n"
        "Exit status 1 when an invariant fails, 2 on bad usage or set-up failure.\n");
}

/** @brief Seats of the show grouped by row, for picking adjacent groups. */
struct SeatCatalog {
    std::vector<std::vector<std::string>> rows; ///< seat ids of each row, by seat number
    std::vector<size_t> seatRow;                ///< row index of every seat (uniform pick over seats)
    size_t hotRows = 0;                         ///< the first hotRows rows are the hot ones
};

std::optional<SeatCatalog> loadSeats(const EngineOptions &engine, qint64 showId, const std::string &token, double hotRowsFraction,
                                     QString *error)
{
    std::string body;
    const int status = blockingGet(engine.host, engine.port, "/api/v1/shows/" + std::to_string(showId) + "/seatmap", token, &body);
    if (status != 200) {
        *error = QStringLiteral("seat map of show %1: HTTP %2 %3").arg(showId).arg(status).arg(QString::fromStdString(body.substr(0, 300)));
        return std::nullopt;
    }
    const QJsonObject map = QJsonDocument::fromJson(QByteArray::fromStdString(body)).object();
    SeatCatalog catalog;
    std::map<QString, size_t> rowIndex;
    // Row order as the layout lists them (front to back for a cinema).
    for (const QJsonValue &row : map.value(QStringLiteral("layout")).toObject().value(QStringLiteral("rows")).toArray()) {
        const QString label = row.toObject().value(QStringLiteral("label")).toString();
        if (!rowIndex.count(label)) {
            rowIndex[label] = catalog.rows.size();
            catalog.rows.emplace_back();
        }
    }
    std::vector<std::vector<std::pair<int, std::string>>> numbered(catalog.rows.size());
    for (const QJsonValue &value : map.value(QStringLiteral("seats")).toArray()) {
        const QJsonObject seat = value.toObject();
        const QString row = seat.value(QStringLiteral("row")).toString();
        auto it = rowIndex.find(row);
        if (it == rowIndex.end()) {
            it = rowIndex.emplace(row, catalog.rows.size()).first;
            catalog.rows.emplace_back();
            numbered.emplace_back();
        }
        numbered[it->second].emplace_back(seat.value(QStringLiteral("number")).toInt(), seat.value(QStringLiteral("seat_id")).toString().toStdString());
    }
    for (size_t r = 0; r < numbered.size(); ++r) {
        std::sort(numbered[r].begin(), numbered[r].end());
        for (auto &[number, id] : numbered[r]) {
            catalog.rows[r].push_back(id);
            catalog.seatRow.push_back(r);
        }
    }
    if (catalog.seatRow.empty()) {
        *error = QStringLiteral("show %1 has no seats").arg(showId);
        return std::nullopt;
    }
    catalog.hotRows = std::max<size_t>(1, size_t(double(catalog.rows.size()) * hotRowsFraction));
    return catalog;
}

/** @brief Keep only the first @p pool seats (whole rows in layout order, the last one cut). */
void restrictToPool(SeatCatalog &catalog, size_t pool)
{
    size_t kept = 0;
    size_t rows = 0;
    for (; rows < catalog.rows.size() && kept < pool; ++rows) {
        std::vector<std::string> &row = catalog.rows[rows];
        if (kept + row.size() > pool)
            row.resize(pool - kept);
        kept += row.size();
    }
    catalog.rows.resize(rows);
    catalog.seatRow.clear();
    for (size_t r = 0; r < catalog.rows.size(); ++r)
        catalog.seatRow.insert(catalog.seatRow.end(), catalog.rows[r].size(), r);
    catalog.hotRows = std::min(catalog.hotRows, std::max<size_t>(1, catalog.rows.size()));
}

std::string authHeader(const std::string &token)
{
    return token.empty() ? std::string() : "Authorization: Bearer " + token + "\r\n";
}

class HealthSession : public Session
{
public:
    void request(std::string &out) override { out = "GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"; }
    void response(int, std::string_view, std::string_view, bool) override {}
};

class SeatMapSession : public Session
{
public:
    SeatMapSession(const std::string &path, const std::string &token, bool revalidate, const std::string &acceptEncoding)
        : m_prefix("GET " + path + " HTTP/1.1\r\nHost: bench\r\n" + authHeader(token)
                   + (acceptEncoding.empty() ? std::string() : "Accept-Encoding: " + acceptEncoding + "\r\n"))
        , m_revalidate(revalidate)
    {
    }
    void request(std::string &out) override
    {
        out = m_prefix;
        if (m_revalidate && !m_etag.empty())
            out += "If-None-Match: " + m_etag + "\r\n";
        out += "\r\n";
    }
    void response(int status, std::string_view head, std::string_view, bool) override
    {
        if (status != 200 && status != 304)
            return;
        const size_t at = head.find("\r\nETag: ");
        if (at == std::string_view::npos)
            return;
        const size_t end = head.find("\r\n", at + 8);
        m_etag = std::string(head.substr(at + 8, end == std::string_view::npos ? std::string_view::npos : end - at - 8));
    }

private:
    std::string m_prefix;
    bool m_revalidate;
    std::string m_etag;
};

struct HoldOptions {
    bool hotRows = false;
    double hotShare = 0.8;
    int groupMin = 1;
    int groupMax = 4;
    /** @brief Release every granted hold (DELETE) before the next hold, as a kiosk's customer who leaves; the
     *  releases are not measured. Each client then holds at most one group at a time. */
    bool release = false;
};

qint64 parseIsoMs(std::string_view text)
{
    const QDateTime time = QDateTime::fromString(QString::fromLatin1(text.data(), qsizetype(text.size())), Qt::ISODateWithMs);
    return time.isValid() ? time.toMSecsSinceEpoch() : 0;
}

// The value of a top-level string member; tolerates the space PostgreSQL's jsonb output puts after the colon.
std::string_view jsonString(std::string_view body, std::string_view key)
{
    const std::string needle = "\"" + std::string(key) + "\":";
    const size_t at = body.find(needle);
    if (at == std::string_view::npos)
        return {};
    size_t start = at + needle.size();
    while (start < body.size() && body[start] == ' ')
        ++start;
    if (start >= body.size() || body[start] != '"')
        return {};
    ++start;
    const size_t end = body.find('"', start);
    return end == std::string_view::npos ? std::string_view() : body.substr(start, end - start);
}

class HoldSession : public Session
{
public:
    HoldSession(int index, qint64 showId, const std::string &token, const SeatCatalog &catalog, const HoldOptions &options, uint64_t seed)
        : m_auth(authHeader(token))
        , m_prefix("POST /api/v1/shows/" + std::to_string(showId) + "/hold HTTP/1.1\r\nHost: bench\r\n" + authHeader(token)
                   + "Content-Type: application/json\r\n")
        , m_keyPrefix("load-" + std::to_string(seed) + "-" + std::to_string(index) + "-")
        , m_catalog(catalog)
        , m_options(options)
        , m_random(seed * 1000003u + uint64_t(index))
    {
    }

    void request(std::string &out) override
    {
        m_releasing = !m_toRelease.empty();
        if (m_releasing) {
            // For the client-side check, the hold ends when its release is sent: a later grant of its seats to
            // someone else is answered after the server freed them, so after this.
            grants.back().expiresMs = wallMs();
            out = "DELETE /api/v1/holds/" + m_toRelease + " HTTP/1.1\r\nHost: bench\r\n" + m_auth + "\r\n";
            m_toRelease.clear();
            return;
        }
        const size_t row = pickRow();
        const std::vector<std::string> &seats = m_catalog.rows[row];
        const int wanted = std::uniform_int_distribution<int>(m_options.groupMin, m_options.groupMax)(m_random);
        const size_t group = std::min(seats.size(), size_t(wanted));
        const size_t first = std::uniform_int_distribution<size_t>(0, seats.size() - group)(m_random);
        m_pending.assign(seats.begin() + qsizetype(first), seats.begin() + qsizetype(first + group));
        std::string body = "{\"seat_ids\":[";
        for (size_t i = 0; i < m_pending.size(); ++i)
            body += (i ? ",\"" : "\"") + m_pending[i] + "\"";
        body += "]}";
        out = m_prefix;
        out += "Idempotency-Key: " + m_keyPrefix + std::to_string(++m_counter) + "\r\n";
        out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
        out += body;
    }

    bool measuring() const override { return !m_releasing; }

    void response(int status, std::string_view, std::string_view body, bool) override
    {
        if (m_releasing) {
            if (status != 200)
                ++releaseFailures;
            return;
        }
        if (status != 200)
            return;
        Grant grant;
        grant.holdId = std::string(jsonString(body, "hold_id"));
        grant.seats = m_pending;
        grant.receivedMs = wallMs();
        grant.expiresMs = parseIsoMs(jsonString(body, "expires_at"));
        if (grant.holdId.empty() || grant.expiresMs == 0)
            ++unparsed;
        if (m_options.release)
            m_toRelease = grant.holdId;
        grants.push_back(std::move(grant));
    }

    std::vector<Grant> grants;
    size_t unparsed = 0; ///< 200s without a readable hold_id or expires_at
    size_t releaseFailures = 0; ///< releases (--release) not answered 200

private:
    size_t pickRow()
    {
        if (m_options.hotRows && std::uniform_real_distribution<double>(0, 1)(m_random) < m_options.hotShare)
            return std::uniform_int_distribution<size_t>(0, m_catalog.hotRows - 1)(m_random);
        return m_catalog.seatRow[std::uniform_int_distribution<size_t>(0, m_catalog.seatRow.size() - 1)(m_random)];
    }

    std::string m_auth;
    std::string m_prefix;
    std::string m_keyPrefix;
    std::string m_toRelease; ///< --release: the hold to release before the next hold
    bool m_releasing = false;
    const SeatCatalog &m_catalog;
    const HoldOptions &m_options;
    std::mt19937_64 m_random;
    std::vector<std::string> m_pending;
    uint64_t m_counter = 0;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = app.arguments().mid(1);
    if (args.isEmpty() || args.contains(QStringLiteral("--help")) || args.contains(QStringLiteral("-h"))) {
        out << usage();
        return args.isEmpty() ? 2 : 0;
    }
    const QString scenario = args.takeFirst();
    EngineOptions engine;
    int clients = 64;
    qint64 showId = 0;
    QString token, tokenFile, databaseUrl;
    HoldOptions holdOptions;
    double hotRowsFraction = 0.05;
    bool revalidate = false;
    bool deflate = false;
    bool availability = false;
    size_t pool = 0;
    double readShare = 0.5;
    LiveBenchOptions liveOptions;
    uint64_t seed = uint64_t(wallMs());
    FlashSaleOptions sale;
    bool durationGiven = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString option = args[i];
        if (option == QLatin1String("--etag")) {
            revalidate = true;
            continue;
        }
        if (option == QLatin1String("--deflate")) {
            deflate = true;
            continue;
        }
        if (option == QLatin1String("--availability")) {
            availability = true;
            continue;
        }
        if (option == QLatin1String("--release")) {
            holdOptions.release = true;
            continue;
        }
        if (i + 1 >= args.size()) {
            err << "marquee-load: " << option << " needs a value\n";
            return 2;
        }
        const QString value = args[++i];
        if (option == QLatin1String("--url")) {
            const QUrl url(value);
            engine.host = url.host();
            engine.port = quint16(url.port(80));
        } else if (option == QLatin1String("--clients")) {
            clients = value.toInt();
        } else if (option == QLatin1String("--threads")) {
            engine.threads = value.toInt();
        } else if (option == QLatin1String("--duration")) {
            engine.durationSeconds = value.toDouble();
            durationGiven = true;
        } else if (option == QLatin1String("--users")) {
            sale.users = value.toInt();
        } else if (option == QLatin1String("--paysim")) {
            const QUrl url(value);
            sale.paysimHost = url.host();
            sale.paysimPort = quint16(url.port(0));
        } else if (option == QLatin1String("--paysim-clients")) {
            sale.paysimClients = value.toInt();
        } else if (option == QLatin1String("--manager-token")) {
            sale.managerToken = value.toStdString();
        } else if (option == QLatin1String("--open-after")) {
            sale.openAfterSeconds = value.toDouble();
        } else if (option == QLatin1String("--arrival")) {
            sale.arrivalSeconds = value.toDouble();
        } else if (option == QLatin1String("--admission-ttl")) {
            sale.admissionTtlSeconds = value.toInt();
        } else if (option == QLatin1String("--min-admit")) {
            sale.minAdmitPerSecond = value.toDouble();
        } else if (option == QLatin1String("--max-in-flight")) {
            sale.maxInFlight = value.toInt();
        } else if (option == QLatin1String("--max-poll-ms")) {
            sale.maxPollMs = value.toInt();
        } else if (option == QLatin1String("--long-poll-clients")) {
            sale.longPollClients = value.toInt();
        } else if (option == QLatin1String("--long-poll")) {
            sale.longPollSeconds = value.toInt();
        } else if (option == QLatin1String("--warmup")) {
            engine.warmupSeconds = value.toDouble();
        } else if (option == QLatin1String("--show")) {
            showId = value.toLongLong();
        } else if (option == QLatin1String("--token")) {
            token = value;
        } else if (option == QLatin1String("--tokens")) {
            tokenFile = value;
        } else if (option == QLatin1String("--seats")) {
            holdOptions.hotRows = value == QLatin1String("hot-rows");
            if (!holdOptions.hotRows && value != QLatin1String("uniform")) {
                err << "marquee-load: --seats is uniform or hot-rows\n";
                return 2;
            }
        } else if (option == QLatin1String("--hot-share")) {
            holdOptions.hotShare = value.toDouble();
        } else if (option == QLatin1String("--hot-rows")) {
            hotRowsFraction = value.toDouble();
        } else if (option == QLatin1String("--group")) {
            const QStringList parts = value.split(QLatin1Char('-'));
            holdOptions.groupMin = parts.value(0).toInt();
            holdOptions.groupMax = parts.size() > 1 ? parts.value(1).toInt() : holdOptions.groupMin;
        } else if (option == QLatin1String("--database-url")) {
            databaseUrl = value;
        } else if (option == QLatin1String("--pool")) {
            pool = value.toULongLong();
        } else if (option == QLatin1String("--read-share")) {
            readShare = value.toDouble();
        } else if (option == QLatin1String("--subscribers")) {
            liveOptions.subscribers = value.toInt();
        } else if (option == QLatin1String("--changes")) {
            liveOptions.changes = value.toInt();
        } else if (option == QLatin1String("--interval-ms")) {
            liveOptions.intervalMs = value.toInt();
        } else if (option == QLatin1String("--seed")) {
            seed = value.toULongLong();
        } else {
            err << "marquee-load: unknown option " << option << "\n" << usage();
            return 2;
        }
    }
    if (clients < 1 || engine.durationSeconds <= 0 || holdOptions.groupMin < 1 || holdOptions.groupMax < holdOptions.groupMin) {
        err << "marquee-load: bad --clients, --duration or --group\n";
        return 2;
    }

    std::vector<std::string> tokens;
    if (!tokenFile.isEmpty()) {
        QFile file(tokenFile);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
            err << "marquee-load: cannot read " << tokenFile << "\n";
            return 2;
        }
        while (!file.atEnd()) {
            const QByteArray line = file.readLine().trimmed();
            if (!line.isEmpty())
                tokens.push_back(line.toStdString());
        }
    }
    if (!token.isEmpty())
        tokens.push_back(token.toStdString());
    auto tokenOf = [&](int i) { return tokens.empty() ? std::string() : tokens[size_t(i) % tokens.size()]; };

    if (scenario == QLatin1String("flash-sale")) {
        sale.showId = showId;
        sale.serverClients = clients;
        sale.tokens = tokens;
        sale.groupMin = holdOptions.groupMin;
        sale.groupMax = holdOptions.groupMax;
        sale.databaseUrl = databaseUrl;
        sale.seed = seed;
        if (durationGiven)
            sale.timeoutSeconds = engine.durationSeconds;
        return runFlashSale(engine, sale);
    }

    std::vector<std::unique_ptr<Session>> sessions;
    std::optional<SeatCatalog> catalog;
    std::optional<InvariantChecker> checker;
    QString since;
    if (scenario == QLatin1String("healthz")) {
        for (int i = 0; i < clients; ++i)
            sessions.push_back(std::make_unique<HealthSession>());
    } else if (scenario == QLatin1String("seatmap")) {
        // One unmeasured read first: the server renders a show's layout on its first request.
        const std::string path = "/api/v1/shows/" + std::to_string(showId) + (availability ? "/availability" : "/seatmap");
        std::string ignored;
        blockingGet(engine.host, engine.port, path, tokenOf(0), &ignored);
        // What a real client sends: Qt's network access manager adds "gzip, deflate" to every request by itself.
        const std::string acceptEncoding = availability ? "gzip, deflate" : deflate ? "deflate" : "";
        for (int i = 0; i < clients; ++i)
            sessions.push_back(std::make_unique<SeatMapSession>(path, tokenOf(i), revalidate, acceptEncoding));
    } else if (scenario == QLatin1String("live")) {
        liveOptions.showId = showId;
        liveOptions.token = tokenOf(0);
        return runLiveBench(engine, liveOptions, out, err);
    } else if (scenario == QLatin1String("holds") || scenario == QLatin1String("mixed")) {
        QString error;
        catalog = loadSeats(engine, showId, tokenOf(0), hotRowsFraction, &error);
        if (!catalog) {
            err << "marquee-load: " << error << "\n";
            return 2;
        }
        if (pool > 0)
            restrictToPool(*catalog, pool);
        out << "show " << showId << ": " << catalog->seatRow.size() << " seats in " << catalog->rows.size() << " rows; "
            << clients << " clients with " << std::max<size_t>(1, tokens.size()) << " tokens; seats "
            << (holdOptions.hotRows ? QStringLiteral("hot-rows") : QStringLiteral("uniform")) << ", groups " << holdOptions.groupMin << "-"
            << holdOptions.groupMax << Qt::endl;
        if (!databaseUrl.isEmpty()) {
            checker.emplace(databaseUrl);
            if (!checker->open(&error)) {
                err << "marquee-load: database for the invariant check: " << error << "\n";
                return 2;
            }
            since = checker->databaseNow();
        }
        const int readers = scenario == QLatin1String("mixed") ? int(clients * readShare + 0.5) : 0;
        for (int i = 0; i < clients; ++i) {
            if (i < readers)
                sessions.push_back(std::make_unique<SeatMapSession>("/api/v1/shows/" + std::to_string(showId) + "/seatmap", tokenOf(i), true, "deflate"));
            else
                sessions.push_back(std::make_unique<HoldSession>(i, showId, tokenOf(i), *catalog, holdOptions, seed));
        }
        if (readers)
            out << readers << " of the clients read the seat map (ETag, deflate) instead of holding" << Qt::endl;
    } else {
        err << "marquee-load: unknown scenario " << scenario << "\n" << usage();
        return 2;
    }

    LoadEngine loadEngine(engine);
    Stats stats = loadEngine.run(sessions);
    out << stats.report(QStringLiteral("%1: %2 clients, %3 generator threads, %4 s after %5 s warm-up")
                            .arg(scenario)
                            .arg(clients)
                            .arg(engine.threads)
                            .arg(engine.durationSeconds)
                            .arg(engine.warmupSeconds));
    int rc = 0;
    QString extra;
    if (catalog) {
        std::vector<Grant> grants;
        size_t unparsed = 0;
        size_t releaseFailures = 0;
        for (auto &session : sessions) {
            auto *holder = dynamic_cast<HoldSession *>(session.get());
            if (!holder)
                continue;
            unparsed += holder->unparsed;
            releaseFailures += holder->releaseFailures;
            std::move(holder->grants.begin(), holder->grants.end(), std::back_inserter(grants));
        }
        if (unparsed) {
            out << "  FAIL: " << unparsed << " answers 200 without a readable hold_id or expires_at\n";
            rc = 1;
        }
        if (releaseFailures) {
            out << "  FAIL: " << releaseFailures << " releases not answered 200\n";
            rc = 1;
        }
        size_t seats = 0;
        for (const Grant &grant : grants)
            seats += grant.seats.size();
        out << "  granted      " << grants.size() << " holds, " << seats << " seats (including warm-up and drain)\n";
        extra = QStringLiteral(" granted=%1 granted_seats=%2").arg(grants.size()).arg(seats);
        if (pool > 0) {
            const double perSeat = double(stats.count()) / double(pool);
            out << "  contention   " << QString::number(perSeat, 'f', 1) << " measured decisions per pooled seat (" << pool << " seats)\n";
            extra += QStringLiteral(" pool=%1 attempts_per_seat=%2").arg(pool).arg(perSeat, 0, 'f', 1);
        }
        if (checker) {
            const bool ok = checker->check(showId, grants, since) && unparsed == 0;
            extra += QStringLiteral(" invariants=%1").arg(ok ? QStringLiteral("ok") : QStringLiteral("FAIL"));
            if (!ok)
                rc = 1;
        }
    }
    out << stats.resultLine(scenario) << extra << Qt::endl;
    return rc;
}
