// SPDX-License-Identifier: AGPL-3.0-or-later
// The flash-sale scenario of marquee-load: a waiting room in front of one show, run to sell-out.
#include "flashsale.h"

#include "invariants.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <map>
#include <mutex>
#include <queue>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace marquee::bench {

namespace {

enum class Step { Join, Poll, SeatMap, Hold, Order, Pay, Confirm, Done };
enum class Outcome { None, Bought, SoldOut, Expired, Failed };
enum Kind { kJoin, kStatus, kSeatMap, kHold, kOrder, kPay, kConfirm, kKinds };
/** @brief Which connections a session belongs to. */
enum class Pool { Server, Paysim, LongPoll };

const char *const kKindNames[kKinds] = {"join", "status", "seatmap", "hold", "order", "pay", "confirm"};

int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

QJsonObject parseObject(std::string_view body)
{
    return QJsonDocument::fromJson(QByteArray(body.data(), qsizetype(body.size()))).object();
}

std::string text(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString().toStdString();
}

struct User {
    Step step = Step::Join;
    Outcome outcome = Outcome::None;
    uint32_t token = 0;
    std::string queueToken;
    std::string admissionToken;
    std::string holdId;
    std::string orderId;
    std::string intentId;
    std::vector<uint32_t> seats;
    qint64 entryId = 0;
    int64_t doneMs = 0; ///< wall clock
    int attempt = 0;    ///< hold attempts (each its own Idempotency-Key; a connection failure retries the same key)
};

struct Task {
    int64_t dueMs;
    uint32_t user;
    bool operator>(const Task &other) const { return dueMs > other.dueMs; }
};
using TaskQueue = std::priority_queue<Task, std::vector<Task>, std::greater<Task>>;

/** @brief The seats of the show as the users last saw them (one shared view, refreshed on 409s). */
struct SeatView {
    std::vector<std::string> ids;
    std::vector<std::vector<uint32_t>> rows; ///< seat indexes of each row, by number
    std::unordered_map<std::string, uint32_t> index;
    std::vector<uint8_t> taken;
    std::string etag;
    int64_t fetchedMs = 0;

    bool load(std::string_view body, bool layout)
    {
        const QJsonObject map = parseObject(body);
        const QJsonArray seats = map.value(QStringLiteral("seats")).toArray();
        if (seats.isEmpty())
            return false;
        if (layout) {
            std::map<QString, std::vector<std::pair<int, uint32_t>>> byRow;
            for (const QJsonValue &value : seats) {
                const QJsonObject seat = value.toObject();
                const uint32_t i = uint32_t(ids.size());
                ids.push_back(text(seat, "seat_id"));
                index.emplace(ids.back(), i);
                byRow[seat.value(QStringLiteral("row")).toString()].emplace_back(seat.value(QStringLiteral("number")).toInt(), i);
            }
            for (auto &[label, numbered] : byRow) {
                std::sort(numbered.begin(), numbered.end());
                rows.emplace_back();
                for (auto &[number, i] : numbered)
                    rows.back().push_back(i);
            }
            taken.assign(ids.size(), 0);
        }
        for (const QJsonValue &value : seats) {
            const QJsonObject seat = value.toObject();
            const auto it = index.find(text(seat, "seat_id"));
            if (it != index.end())
                taken[it->second] = seat.value(QStringLiteral("status")).toString() != QLatin1String("available");
        }
        return true;
    }

    /** @brief Up to @p group adjacent seats free in this view (fewer, down to one, when none are); empty: none. */
    std::vector<uint32_t> pick(int group, std::mt19937_64 &random) const
    {
        for (int wanted = group; wanted >= 1; --wanted) {
            for (int attempt = 0; attempt < 40; ++attempt) {
                const auto &row = rows[std::uniform_int_distribution<size_t>(0, rows.size() - 1)(random)];
                if (row.size() < size_t(wanted))
                    continue;
                const size_t start = std::uniform_int_distribution<size_t>(0, row.size() - size_t(wanted))(random);
                for (size_t offset = 0; offset + size_t(wanted) <= row.size(); ++offset) {
                    const size_t first = (start + offset) % (row.size() - size_t(wanted) + 1);
                    bool free = true;
                    for (int k = 0; k < wanted && free; ++k)
                        free = !taken[row[first + size_t(k)]];
                    if (free)
                        return std::vector<uint32_t>(row.begin() + qsizetype(first), row.begin() + qsizetype(first) + wanted);
                }
            }
        }
        for (uint32_t i = 0; i < taken.size(); ++i) // the last few seats: look everywhere
            if (!taken[i])
                return {i};
        return {};
    }
};

/** @brief Every user's state machine; the sessions of both engines ask it for their next request. */
class Sale
{
public:
    Sale(const FlashSaleOptions &options, SeatView view)
        : m_options(options)
        , m_view(std::move(view))
        , m_random(options.seed)
    {
        m_users.resize(size_t(options.users));
        const int64_t start = steadyMs();
        for (uint32_t i = 0; i < m_users.size(); ++i) {
            m_users[i].token = uint32_t(i % options.tokens.size());
            const int64_t arrival = options.arrivalSeconds > 0 ? int64_t(options.arrivalSeconds * 1000 * i / m_users.size()) : 0;
            m_joinTasks.push({start + arrival, i});
        }
        m_showPath = "/api/v1/shows/" + std::to_string(options.showId);
        m_queuePath = "/api/v1/queue/" + std::to_string(options.showId);
    }

    /** @brief The next due request for a server (or paysim) connection; false when none is due. */
    bool next(Pool pool, std::string &out, uint32_t *userIndex, Kind *kind)
    {
        std::lock_guard lock(m_mutex);
        const int64_t now = steadyMs();
        // Buyers first: a user holding, ordering or confirming must not queue behind thousands of due polls. When
        // both joins and polls are overdue they take turns, so that a storm of arrivals does not hide the admissions
        // of those already queued (every user arriving at once makes hundreds of thousands of joins due at once).
        auto due = [now](const TaskQueue &queue) { return !queue.empty() && queue.top().dueMs <= now; };
        TaskQueue *chosen = pool == Pool::LongPoll ? &m_parkTasks : &m_payTasks;
        if (pool == Pool::Server) {
            if (due(m_buyerTasks))
                chosen = &m_buyerTasks;
            else if (due(m_joinTasks) && due(m_serverTasks))
                chosen = (m_joinTurn = !m_joinTurn) ? &m_joinTasks : &m_serverTasks;
            else
                chosen = due(m_joinTasks) ? &m_joinTasks : &m_serverTasks;
        }
        TaskQueue &tasks = *chosen;
        if (!due(tasks))
            return false;
        const uint32_t i = tasks.top().user;
        tasks.pop();
        User &user = m_users[i];
        *userIndex = i;
        const std::string auth = "Authorization: Bearer " + m_options.tokens[user.token] + "\r\n";
        switch (user.step) {
        case Step::Join:
            *kind = kJoin;
            out = "POST " + m_queuePath + "/join HTTP/1.1\r\nHost: bench\r\n" + auth + "Content-Length: 0\r\n\r\n";
            return true;
        case Step::Poll:
            *kind = kStatus;
            out = "GET " + m_queuePath + "/status?token=" + user.queueToken
                + (pool == Pool::LongPoll ? "&wait=" + std::to_string(m_options.longPollSeconds) : std::string()) + " HTTP/1.1\r\nHost: bench\r\n"
                + auth + "\r\n";
            return true;
        case Step::SeatMap:
            *kind = kSeatMap;
            out = "GET " + m_showPath + "/seatmap HTTP/1.1\r\nHost: bench\r\n" + auth
                + (m_view.etag.empty() ? std::string() : "If-None-Match: " + m_view.etag + "\r\n") + "\r\n";
            return true;
        case Step::Hold: {
            *kind = kHold;
            std::string body = "{\"seat_ids\":[";
            for (size_t k = 0; k < user.seats.size(); ++k)
                body += (k ? ",\"" : "\"") + m_view.ids[user.seats[k]] + "\"";
            body += "]}";
            out = "POST " + m_showPath + "/hold HTTP/1.1\r\nHost: bench\r\n" + auth + "Admission-Token: " + user.admissionToken
                + "\r\nIdempotency-Key: fs-" + std::to_string(m_options.seed) + "-" + std::to_string(i) + "-" + std::to_string(user.attempt)
                + "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
            return true;
        }
        case Step::Order: {
            *kind = kOrder;
            const std::string body = "{\"hold_id\":\"" + user.holdId + "\",\"payment_method\":\"card\"}";
            out = "POST /api/v1/orders HTTP/1.1\r\nHost: bench\r\n" + auth + "Content-Type: application/json\r\nContent-Length: "
                + std::to_string(body.size()) + "\r\n\r\n" + body;
            return true;
        }
        case Step::Pay: {
            *kind = kPay;
            const std::string body = "{\"card_token\":\"tok_visa\"}";
            out = "POST /v1/intents/" + user.intentId + "/pay HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: "
                + std::to_string(body.size()) + "\r\n\r\n" + body;
            return true;
        }
        case Step::Confirm: {
            *kind = kConfirm;
            const std::string body = "{\"payment_intent_id\":\"" + user.intentId + "\"}";
            out = "POST /api/v1/orders/" + user.orderId + "/confirm HTTP/1.1\r\nHost: bench\r\n" + auth
                + "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
            return true;
        }
        case Step::Done:
            break;
        }
        return false;
    }

    void answer(uint32_t i, Kind kind, int status, std::string_view head, std::string_view body, double latencyMs)
    {
        std::lock_guard lock(m_mutex);
        m_latencies[kind].push_back(latencyMs);
        ++m_statuses[kind][status];
        User &user = m_users[i];
        const int64_t now = steadyMs();
        if (status == 0) { // connection failure: the same request again (a hold with the same key replays its answer)
            schedule(i, now + 100);
            return;
        }
        const QJsonObject json = status == 304 ? QJsonObject() : parseObject(body);
        switch (user.step) {
        case Step::Join:
            if (status == 200) {
                user.queueToken = text(json, "queue_token");
                const size_t dot = user.queueToken.find('.', 2);
                user.entryId = std::atoll(user.queueToken.c_str() + dot + 1);
                user.step = Step::Poll;
                schedule(i, now + pollDelay(json));
            } else if (status == 409) {
                finish(i, Outcome::SoldOut);
            } else {
                finish(i, Outcome::Failed);
            }
            return;
        case Step::Poll: {
            const std::string state = text(json, "state");
            if (status != 200) {
                finish(i, Outcome::Failed);
            } else if (state == "admitted") {
                if (user.admissionToken.empty())
                    ++m_admitted;
                user.admissionToken = text(json, "admission_token");
                chooseSeats(i, now);
            } else if (state == "sold_out") {
                finish(i, Outcome::SoldOut);
            } else if (state == "expired" || state == "closed") {
                finish(i, Outcome::Expired);
            } else if (m_options.longPollClients > 0 && state == "waiting"
                       && json.value(QStringLiteral("eta_s")).toInteger(INT_MAX) <= m_options.longPollSeconds) {
                m_parkTasks.push({now, i}); // near the front: wait on a long poll instead of polling
            } else {
                schedule(i, now + pollDelay(json));
            }
            return;
        }
        case Step::SeatMap:
            if (status == 200) {
                m_view.load(body, false);
                m_view.etag = std::string(headerOf(head, "ETag"));
                m_view.fetchedMs = now;
            } else if (status == 304) {
                m_view.fetchedMs = now;
            }
            chooseSeats(i, now);
            return;
        case Step::Hold:
            ++user.attempt;
            if (status == 200) {
                user.holdId = text(json, "hold_id");
                for (uint32_t seat : user.seats)
                    m_view.taken[seat] = 1;
                user.step = Step::Order;
                schedule(i, now);
            } else if (status == 409 && text(json, "error") == "seats_unavailable") {
                // Someone was faster: what the answer says is taken is taken; look at a fresh map and try again.
                for (const QJsonValue &seat : json.value(QStringLiteral("held_seats")).toArray()) {
                    const auto it = m_view.index.find(seat.toString().toStdString());
                    if (it != m_view.index.end())
                        m_view.taken[it->second] = 1;
                }
                ++m_conflicts;
                if (now - m_view.fetchedMs > 200) {
                    user.step = Step::SeatMap;
                    schedule(i, now);
                } else {
                    chooseSeats(i, now);
                }
            } else if (status == 403 && text(json, "error") == "admission_expired") {
                finish(i, Outcome::Expired);
            } else if (status == 422 && text(json, "error") == "sales_closed") {
                finish(i, Outcome::Failed);
            } else {
                ++m_holdErrors;
                if (m_holdErrors <= 5)
                    std::fprintf(stderr, "flash-sale: hold answered %d %.*s\n", status, int(body.size()), body.data());
                finish(i, Outcome::Failed);
            }
            return;
        case Step::Order:
            if (status == 201) {
                user.orderId = text(json, "order_id");
                user.intentId = text(json, "payment_intent_id");
                user.step = Step::Pay;
                m_payTasks.push({now, i});
            } else {
                report("order", status, body);
                finish(i, Outcome::Failed);
            }
            return;
        case Step::Pay:
            if (status == 200 && text(json, "status") == "succeeded") {
                user.step = Step::Confirm;
                schedule(i, now);
            } else {
                report("pay", status, body);
                finish(i, Outcome::Failed);
            }
            return;
        case Step::Confirm:
            if (status == 200) {
                for (const QJsonValue &seat : json.value(QStringLiteral("seats")).toArray())
                    m_bought.push_back(seat.isObject() ? seat.toObject().value(QStringLiteral("seat_id")).toString().toStdString()
                                                       : seat.toString().toStdString());
                finish(i, Outcome::Bought);
            } else if ((status == 409 && text(json, "error") == "payment_pending") || status == 503) {
                schedule(i, now + 50);
            } else {
                report("confirm", status, body);
                finish(i, Outcome::Failed);
            }
            return;
        case Step::Done:
            return;
        }
    }

    bool finished() const { return m_done.load() >= m_users.size(); }
    size_t doneCount() const { return m_done.load(); }

    // Results, read after both engines stopped.
    std::vector<User> &users() { return m_users; }
    std::vector<double> &latencies(Kind kind) { return m_latencies[kind]; }
    std::map<int, uint64_t> &statuses(Kind kind) { return m_statuses[kind]; }
    const std::vector<std::string> &bought() const { return m_bought; }
    uint64_t conflicts() const { return m_conflicts; }
    uint64_t admitted() const { return m_admitted; }

private:
    static std::string_view headerOf(std::string_view head, std::string_view name)
    {
        const std::string needle = "\r\n" + std::string(name) + ": ";
        const size_t at = head.find(needle);
        if (at == std::string_view::npos)
            return {};
        const size_t start = at + needle.size();
        const size_t end = head.find("\r\n", start);
        return head.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    }
    int64_t pollDelay(const QJsonObject &json) const
    {
        const int64_t suggested = std::max<int64_t>(json.value(QStringLiteral("poll_after_ms")).toInteger(1000), 100);
        return m_options.maxPollMs > 0 ? std::min<int64_t>(suggested, m_options.maxPollMs) : suggested;
    }
    void schedule(uint32_t i, int64_t dueMs)
    {
        const Step step = m_users[i].step;
        (step == Step::Join || step == Step::Poll ? m_serverTasks : m_buyerTasks).push({dueMs, i});
    }
    void chooseSeats(uint32_t i, int64_t now)
    {
        User &user = m_users[i];
        const int group = std::uniform_int_distribution<int>(m_options.groupMin, m_options.groupMax)(m_random);
        user.seats = m_view.pick(group, m_random);
        if (!user.seats.empty()) {
            user.step = Step::Hold;
            schedule(i, now);
        } else if (now - m_view.fetchedMs > 200) {
            user.step = Step::SeatMap;
            schedule(i, now);
        } else {
            // Nothing free right now (all held): held seats may come back, or the room says sold out.
            user.step = Step::Poll;
            schedule(i, now + 500);
        }
    }
    void finish(uint32_t i, Outcome outcome)
    {
        User &user = m_users[i];
        user.step = Step::Done;
        user.outcome = outcome;
        user.doneMs = QDateTime::currentMSecsSinceEpoch();
        ++m_done;
    }
    void report(const char *what, int status, std::string_view body)
    {
        if (++m_otherErrors <= 5)
            std::fprintf(stderr, "flash-sale: %s answered %d %.*s\n", what, status, int(std::min<size_t>(body.size(), 300)), body.data());
    }

    const FlashSaleOptions &m_options;
    std::mutex m_mutex;
    std::vector<User> m_users;
    TaskQueue m_joinTasks;   ///< arrivals
    TaskQueue m_serverTasks; ///< polls (and a join retried after a connection failure)
    bool m_joinTurn = false;
    TaskQueue m_buyerTasks;  ///< seat maps, holds, orders, confirms of admitted users
    TaskQueue m_payTasks;
    TaskQueue m_parkTasks;   ///< users near the front, for the long-poll connections
    SeatView m_view;
    std::mt19937_64 m_random;
    std::string m_showPath;
    std::string m_queuePath;
    std::vector<double> m_latencies[kKinds];
    std::map<int, uint64_t> m_statuses[kKinds];
    std::vector<std::string> m_bought;
    std::atomic<size_t> m_done{0};
    uint64_t m_conflicts = 0;
    uint64_t m_admitted = 0;
    uint64_t m_holdErrors = 0;
    uint64_t m_otherErrors = 0;
};

/** @brief One connection's worth of users: asks the sale for whatever is due. */
class SaleSession : public Session
{
public:
    SaleSession(Sale &sale, Pool pool)
        : m_sale(sale)
        , m_pool(pool)
    {
    }
    void request(std::string &out) override
    {
        if (m_sale.next(m_pool, out, &m_user, &m_kind))
            m_sentNs = std::chrono::steady_clock::now();
    }
    void response(int status, std::string_view head, std::string_view body, bool) override
    {
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_sentNs).count();
        m_sale.answer(m_user, m_kind, status, head, body, ms);
    }

private:
    Sale &m_sale;
    Pool m_pool;
    uint32_t m_user = 0;
    Kind m_kind = kJoin;
    std::chrono::steady_clock::time_point m_sentNs;
};

double percentile(std::vector<double> &values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t at = std::min(values.size() - 1, size_t(std::ceil(p / 100 * double(values.size()))) - (p > 0 ? 1 : 0));
    return values[at];
}

bool putJson(const EngineOptions &engine, const std::string &path, const std::string &token, const QJsonObject &body, QString *answer)
{
    std::string response;
    const int status = blockingRequest(engine.host, engine.port, "PUT", path, token,
                                       QJsonDocument(body).toJson(QJsonDocument::Compact).toStdString(), &response);
    *answer = QStringLiteral("HTTP %1 %2").arg(status).arg(QString::fromStdString(response.substr(0, 300)));
    return status == 200;
}

} // namespace

int runFlashSale(const EngineOptions &engine, const FlashSaleOptions &options)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    if (options.tokens.empty() || options.users < 1 || options.paysimPort == 0) {
        err << "marquee-load flash-sale: needs --tokens (or --token), --users and --paysim\n";
        return 2;
    }
    std::string mapBody;
    const int mapStatus = blockingGet(engine.host, engine.port, "/api/v1/shows/" + std::to_string(options.showId) + "/seatmap",
                                      options.tokens.front(), &mapBody);
    SeatView view;
    if (mapStatus != 200 || !view.load(mapBody, true)) {
        err << "marquee-load flash-sale: seat map of show " << options.showId << ": HTTP " << mapStatus << "\n";
        return 2;
    }
    view.fetchedMs = steadyMs();
    const size_t totalSeats = view.ids.size();

    std::optional<InvariantChecker> checker;
    if (!options.databaseUrl.isEmpty()) {
        checker.emplace(options.databaseUrl);
        QString error;
        if (!checker->open(&error)) {
            err << "marquee-load flash-sale: database: " << error << "\n";
            return 2;
        }
    }
    if (!options.managerToken.empty()) {
        const QString opensAt = QDateTime::currentDateTimeUtc().addMSecs(qint64(options.openAfterSeconds * 1000)).toString(Qt::ISODateWithMs);
        QString answer;
        if (!putJson(engine, "/api/v1/shows/" + std::to_string(options.showId) + "/waiting-room", options.managerToken,
                     QJsonObject{{QStringLiteral("enabled"), true},
                                 {QStringLiteral("opens_at"), opensAt},
                                 {QStringLiteral("admission_ttl_s"), options.admissionTtlSeconds},
                                 {QStringLiteral("min_admit_per_s"), options.minAdmitPerSecond},
                                 {QStringLiteral("max_in_flight"), options.maxInFlight},
                                 {QStringLiteral("reason"), QStringLiteral("marquee-load flash-sale")}},
                     &answer)) {
            err << "marquee-load flash-sale: switching the waiting room on: " << answer << "\n";
            return 2;
        }
    }
    out << "flash-sale: show " << options.showId << " with " << totalSeats << " seats, " << options.users << " users over "
        << options.tokens.size() << " device tokens, " << options.serverClients << "+" << options.paysimClients
        << " connections, opening in " << options.openAfterSeconds << " s" << Qt::endl;

    Sale sale(options, std::move(view));
    std::vector<std::unique_ptr<Session>> serverSessions, paysimSessions, longPollSessions;
    for (int i = 0; i < options.serverClients; ++i)
        serverSessions.push_back(std::make_unique<SaleSession>(sale, Pool::Server));
    for (int i = 0; i < options.paysimClients; ++i)
        paysimSessions.push_back(std::make_unique<SaleSession>(sale, Pool::Paysim));
    for (int i = 0; i < options.longPollClients; ++i)
        longPollSessions.push_back(std::make_unique<SaleSession>(sale, Pool::LongPoll));
    EngineOptions serverEngine = engine;
    serverEngine.warmupSeconds = 0;
    serverEngine.durationSeconds = options.timeoutSeconds;
    serverEngine.finished = [&sale] { return sale.finished(); };
    EngineOptions paysimEngine = serverEngine;
    paysimEngine.host = options.paysimHost;
    paysimEngine.port = options.paysimPort;
    paysimEngine.threads = 1;

    const auto started = std::chrono::steady_clock::now();
    const qint64 startedWallMs = QDateTime::currentMSecsSinceEpoch();
    Stats paysimStats;
    std::thread paysimThread([&] {
        LoadEngine loadEngine(paysimEngine);
        paysimStats = loadEngine.run(paysimSessions);
    });
    Stats longPollStats;
    std::thread longPollThread;
    if (!longPollSessions.empty()) {
        EngineOptions longPollEngine = serverEngine;
        longPollEngine.threads = 1;
        longPollThread = std::thread([&, longPollEngine] {
            LoadEngine loadEngine(longPollEngine);
            longPollStats = loadEngine.run(longPollSessions);
        });
    }
    LoadEngine loadEngine(serverEngine);
    Stats serverStats = loadEngine.run(serverSessions);
    paysimThread.join();
    if (longPollThread.joinable())
        longPollThread.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    // What happened to the users.
    std::map<Outcome, size_t> outcomes;
    for (const User &user : sale.users())
        ++outcomes[user.outcome];
    const size_t requests = serverStats.count() + paysimStats.count() + longPollStats.count();
    out << QStringLiteral("  finished     %1 of %2 users in %3 s; %4 requests (%5/s)\n")
               .arg(sale.doneCount())
               .arg(options.users)
               .arg(seconds, 0, 'f', 1)
               .arg(requests)
               .arg(double(requests) / seconds, 0, 'f', 0);
    out << QStringLiteral("  users        bought %1, told sold out %2, admission expired %3, failed %4, unfinished %5; admitted %6; "
                          "seats bought %7 of %8; hold conflicts (409) %9\n")
               .arg(outcomes[Outcome::Bought])
               .arg(outcomes[Outcome::SoldOut])
               .arg(outcomes[Outcome::Expired])
               .arg(outcomes[Outcome::Failed])
               .arg(outcomes[Outcome::None])
               .arg(sale.admitted())
               .arg(sale.bought().size())
               .arg(totalSeats)
               .arg(sale.conflicts());
    for (int kind = 0; kind < kKinds; ++kind) {
        auto &latencies = sale.latencies(Kind(kind));
        QString codes;
        for (const auto &[status, count] : sale.statuses(Kind(kind)))
            codes += QStringLiteral(" %1:%2").arg(status).arg(count);
        out << QStringLiteral("  %1 %2 requests, p50 %3 ms, p95 %4 ms, p99 %5 ms, max %6 ms; statuses%7\n")
                   .arg(QString::fromLatin1(kKindNames[kind]).leftJustified(8))
                   .arg(latencies.size(), 8)
                   .arg(percentile(latencies, 50), 0, 'f', 2)
                   .arg(percentile(latencies, 95), 0, 'f', 2)
                   .arg(percentile(latencies, 99), 0, 'f', 2)
                   .arg(percentile(latencies, 100), 0, 'f', 2)
                   .arg(codes);
    }

    int rc = outcomes[Outcome::None] == 0 && outcomes[Outcome::Failed] == 0 ? 0 : 1;
    if (rc)
        out << "  FAIL: users unfinished or failed\n";
    QString extra;
    if (checker) {
        SaleReport report;
        std::vector<std::pair<qint64, qint64>> soldOutNotices; // entry id, wall ms the user saw sold out
        for (const User &user : sale.users())
            if (user.outcome == Outcome::SoldOut && user.entryId)
                soldOutNotices.emplace_back(user.entryId, user.doneMs);
        const bool ok = checker->checkSale(options.showId, sale.bought(), soldOutNotices, startedWallMs, &report);
        extra = QStringLiteral(" sell_out_s=%1 fairness_out_of_queue_order=%2 fifo_out_of_arrival_order=%3 early_rank_rho=%4 "
                               "oversold=%5 invariants=%6")
                    .arg(report.sellOutSeconds, 0, 'f', 2)
                    .arg(report.outOfQueueOrderShare, 0, 'f', 4)
                    .arg(report.lateOutOfArrivalShare, 0, 'f', 4)
                    .arg(report.earlyRankRho, 0, 'f', 3)
                    .arg(report.oversold)
                    .arg(ok ? QStringLiteral("ok") : QStringLiteral("FAIL"));
        if (!ok)
            rc = 1;
    }
    out << QStringLiteral("RESULT scenario=flash-sale users=%1 seats=%2 seconds=%3 requests_per_s=%4 bought_seats=%5 buyers=%6 sold_out_told=%7")
               .arg(options.users)
               .arg(totalSeats)
               .arg(seconds, 0, 'f', 2)
               .arg(double(requests) / seconds, 0, 'f', 0)
               .arg(sale.bought().size())
               .arg(outcomes[Outcome::Bought])
               .arg(outcomes[Outcome::SoldOut])
        << extra << Qt::endl;
    return rc;
}

} // namespace marquee::bench
