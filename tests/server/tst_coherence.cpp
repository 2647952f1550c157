// SPDX-License-Identifier: AGPL-3.0-or-later
// Several servers on one database keep one picture of the seats: a seat written on one instance, by marquee-admin or
// by a manual UPDATE reaches the live subscribers and the seat maps of every instance (channel marquee_seats), once;
// a new subscriber anywhere starts from the current statuses; a listener whose connection is killed reconnects and
// re-reads; waiting-room switches and price edits take effect on every instance at once; and every instance ends
// agreeing with the database.
#include "instances.h"
#include "liveclient.h"
#include "serverprocess.h"
#include "servertesthelpers.h"

#include "store/changelistener.h"
#include "store/database.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>
#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief Another instance on @p first's database, without the per-caller held-seat bounds (the tests hold many seats). */
std::unique_ptr<MarqueeServer> unboundedInstanceOn(const TestServer &first, const std::function<void(ServerConfig &)> &configure)
{
    return instanceOn(first, [&](ServerConfig &config) {
        config.occupancyWarmShows = 0;
        config.maxHeldSeatsKiosk = config.maxHeldSeatsTill = config.maxHeldSeatsStaff = 0;
        if (configure)
            configure(config);
    });
}

bool listening(const MarqueeServer &server)
{
    return server.changeListener() && server.changeListener()->isListening();
}

/** @brief A connection of its own, as psql or another program would have: not any instance's. */
class ManualSql
{
public:
    explicit ManualSql(const TestServer &server)
        : m_database(server.databaseConfig())
    {
    }
    ~ManualSql() { m_database.closeThreadConnection(); }
    bool exec(const QString &sql)
    {
        QSqlQuery query(m_database.connection());
        if (!query.exec(sql)) {
            ADD_FAILURE() << sql.toStdString() << ": " << query.lastError().text().toStdString();
            return false;
        }
        return true;
    }

private:
    store::Database m_database;
};

/** @brief The status letters of a show in canonical order as the database has them (lapsed holds as available). */
QString databaseLetters(TestServer &server, qint64 showId)
{
    return server
        .scalar(QStringLiteral("SELECT string_agg(CASE WHEN status = 'held' AND hold_expires_at <= now() THEN 'a' ELSE left(status::text, 1) END, "
                               "'' ORDER BY seat_id) FROM show_seats WHERE show_id = %1")
                    .arg(showId))
        .toString();
}

/** @brief The status letters of GET …/availability on the server at @p port. */
QString availabilityLetters(quint16 port, const QString &token, qint64 showId)
{
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    client.setToken(token);
    const HttpResult answer = client.get("/api/v1/shows/" + QByteArray::number(showId) + "/availability");
    return answer.status == 200 ? answer.json().value(QStringLiteral("statuses")).toString() : QString();
}

/** @brief How many deltas @p client was sent that set @p seat to @p status. */
int deltasSetting(const LiveClient &client, const QString &seat, const QString &status)
{
    int count = 0;
    for (const QJsonObject &message : client.messages()) {
        if (message.value(QStringLiteral("type")).toString() != QLatin1String("delta"))
            continue;
        for (const QJsonValue &change : message.value(QStringLiteral("changes")).toArray())
            count += change[QStringLiteral("seat_id")].toString() == seat && change[QStringLiteral("status")].toString() == status;
    }
    return count;
}

double percentile(std::vector<qint64> samples, double p)
{
    if (samples.empty())
        return -1;
    std::sort(samples.begin(), samples.end());
    return double(samples[std::min(samples.size() - 1, size_t(p * double(samples.size())))]);
}

/**
 * @brief Once settled, no instance shows a seat available that the database has held or sold (nor the reverse):
 * the availability of every instance equals the database's letters.
 */
void expectEveryInstanceAgrees(TestServer &database, const std::vector<quint16> &ports, const QString &token, qint64 showId)
{
    const QString expected = databaseLetters(database, showId);
    ASSERT_FALSE(expected.isEmpty());
    for (const quint16 port : ports) {
        EXPECT_TRUE(pumpUntil([&] { return availabilityLetters(port, token, showId) == expected; }, 5000))
            << "instance on port " << port << " shows " << availabilityLetters(port, token, showId).toStdString() << ", the database "
            << expected.toStdString();
    }
}

/**
 * @brief Instance A (a TestServer) and @p others more on its database, every one listening, and a show of @p rows ×
 * @p seatsPerRow seats with a kiosk token and a client of A.
 */
struct Instances {
    Instances(int others, int rows, int seatsPerRow, const std::function<void(ServerConfig &)> &configure = {})
    {
        for (int i = 0; i < others; ++i)
            more.push_back(unboundedInstanceOn(a, configure));
        EXPECT_TRUE(pumpUntil([&] { return a.listensForRevocations() && std::all_of(more.begin(), more.end(), [](const auto &m) { return listening(*m); }); }, 10000))
            << "not every instance listens";
        showId = a.createShow(rows, seatsPerRow);
        token = a.deviceToken();
        kiosk = a.client(token);
        order = seatOrder(*kiosk, showId);
        EXPECT_EQ(order.size(), rows * seatsPerRow);
    }
    MarqueeServer &b() { return *more.at(0); }
    MarqueeServer &c() { return *more.at(1); }

    TestServer a;
    std::vector<std::unique_ptr<MarqueeServer>> more;
    qint64 showId = 0;
    QString token;
    std::unique_ptr<HttpClient> kiosk;
    QStringList order;
};

} // namespace

TEST(Coherence, AHoldOnOneInstanceReachesTheSubscribersOfEveryInstanceOnceAndWithinTheBound)
{
    Instances fleet(2, 5, 20);
    auto &[a, more, showId, token, kiosk, order] = fleet;
    MarqueeServer *b = &fleet.b();
    MarqueeServer *c = &fleet.c();

    LiveClient onA(a.port(), livePath(showId), token);
    LiveClient onB(b->port(), livePath(showId), token);
    LiveClient onC(c->port(), livePath(showId), token);
    for (LiveClient *client : {&onA, &onB, &onC}) {
        client->setSeatOrder(order);
        ASSERT_TRUE(client->waitFor([&] { return !client->messages().empty(); })) << "no snapshot";
    }

    // Each hold on A, one seat at a time: the time from sending it until B's and C's subscribers were told.
    QElapsedTimer clock;
    clock.start();
    QString awaited;
    qint64 sentAt = 0;
    std::vector<qint64> latencies;
    QSet<const LiveClient *> told; // of the awaited seat
    const auto timeArrival = [&](LiveClient &client) {
        client.setOnMessage([&](const QJsonObject &) {
            if (!awaited.isEmpty() && !told.contains(&client) && client.status(awaited) == QLatin1String("held")) {
                told.insert(&client);
                latencies.push_back(clock.elapsed() - sentAt);
            }
        });
    };
    timeArrival(onB);
    timeArrival(onC);
    QStringList holdIds;
    constexpr int kHolds = 60;
    for (int i = 0; i < kHolds; ++i) {
        const QString seat = order[i];
        awaited = seat;
        told.clear();
        const size_t before = latencies.size();
        sentAt = clock.elapsed();
        const HttpResult held = kiosk->post(holdPath(showId), seatsBody({seat}));
        ASSERT_EQ(held.status, 200) << held.body.constData();
        holdIds << held.json()[QStringLiteral("hold_id")].toString();
        ASSERT_TRUE(pumpUntil([&] { return latencies.size() >= before + 2; }, 5000)) << "seat " << seat.toStdString() << " not seen on B and C";
        ASSERT_TRUE(onA.waitForStatus(seat, QStringLiteral("held")));
    }
    awaited.clear();
    const double p50 = percentile(latencies, 0.50);
    const double p99 = percentile(latencies, 0.99);
    std::cout << "[ measured ] a hold on A seen by subscribers on B and C: " << latencies.size() << " samples, p50 " << p50 << " ms, p99 "
              << p99 << " ms, max " << percentile(latencies, 1.0) << " ms (from sending the hold)" << std::endl;
    EXPECT_LT(p99, 2000);

    // Releases on A, then every seat settles; nobody was told any seat's hold twice — A, whose own write also comes
    // back to it as a notification, included.
    for (const QString &holdId : std::as_const(holdIds))
        ASSERT_EQ(kiosk->del("/api/v1/holds/" + holdId.toLatin1()).status, 200);
    for (LiveClient *client : {&onA, &onB, &onC})
        ASSERT_TRUE(client->waitFor([&] { return client->status(order[kHolds - 1]) == QLatin1String("available"); }));
    pumpUntil([] { return false; }, 300); // anything late (a doubled delta) would arrive now
    for (LiveClient *client : {&onA, &onB, &onC}) {
        for (int i = 0; i < kHolds; ++i) {
            EXPECT_EQ(deltasSetting(*client, order[i], QStringLiteral("held")), 1) << order[i].toStdString();
            EXPECT_EQ(deltasSetting(*client, order[i], QStringLiteral("available")), 1) << order[i].toStdString();
        }
    }
    expectEveryInstanceAgrees(a, {a.port(), b->port(), c->port()}, token, showId);
}

TEST(Coherence, AManualUpdateReachesEverySubscriberAndSeatMapAndABigBatchIsReadAgain)
{
    Instances fleet(1, 50, 50); // 2,500 seats: one UPDATE of all of them does not fit one notification
    auto &[a, more, showId, token, kiosk, order] = fleet;
    MarqueeServer *b = &fleet.b();
    // Both instances have rendered the seat map (cached) and have a subscriber.
    ASSERT_EQ(availabilityLetters(a.port(), token, showId), QString(2500, u'a'));
    ASSERT_EQ(availabilityLetters(b->port(), token, showId), QString(2500, u'a'));
    LiveClient onA(a.port(), livePath(showId), token);
    LiveClient onB(b->port(), livePath(showId), token);
    for (LiveClient *client : {&onA, &onB}) {
        client->setSeatOrder(order);
        ASSERT_TRUE(client->waitFor([&] { return !client->messages().empty(); }));
    }

    // An operator sells two seats by hand in psql: no server wrote them.
    ManualSql sql(a);
    ASSERT_TRUE(sql.exec(QStringLiteral("UPDATE show_seats SET status = 'booked', booking_id = gen_random_uuid(), version = version + 1 "
                                        "WHERE show_id = %1 AND seat_id IN ('A1', 'A2')")
                             .arg(showId)));
    for (LiveClient *client : {&onA, &onB}) {
        EXPECT_TRUE(client->waitFor([&] { return client->status(QStringLiteral("A1")) == QLatin1String("booked")
                                                 && client->status(QStringLiteral("A2")) == QLatin1String("booked"); },
                                    2000));
    }
    for (const quint16 port : {a.port(), b->port()}) {
        const QString letters = availabilityLetters(port, token, showId);
        ASSERT_EQ(letters.size(), 2500);
        EXPECT_EQ((QString(letters[order.indexOf(QStringLiteral("A1"))]) + letters[order.indexOf(QStringLiteral("A2"))]), QStringLiteral("bb"))
            << "the seat map of port " << port << " is stale";
    }

    // Every seat at once (2,500 ids are more than one notification's 8,000 bytes): the instances re-read the show.
    ASSERT_TRUE(sql.exec(QStringLiteral("UPDATE show_seats SET status = 'held', held_by = gen_random_uuid(), hold_expires_at = now() + interval "
                                        "'10 minutes', booking_id = NULL, version = version + 1 WHERE show_id = %1")
                             .arg(showId)));
    for (LiveClient *client : {&onA, &onB}) {
        EXPECT_TRUE(client->waitFor([&] { return client->status(order.front()) == QLatin1String("held") && client->status(order.back()) == QLatin1String("held"); }, 2000));
    }
    expectEveryInstanceAgrees(a, {a.port(), b->port()}, token, showId);
    for (LiveClient *client : {&onA, &onB})
        EXPECT_EQ(client->statuses().values().count(QStringLiteral("held")), 2500);
}

TEST(Coherence, ANewSubscriberOnAnotherInstanceStartsFromTheCurrentStatuses)
{
    Instances fleet(1, 4, 10);
    auto &[a, more, showId, token, kiosk, order] = fleet;
    MarqueeServer *b = &fleet.b();
    {
        // B has followed the show before: its feed knows the show.
        LiveClient earlier(b->port(), livePath(showId), token);
        ASSERT_TRUE(earlier.waitFor([&] { return !earlier.messages().empty(); }));
    }
    for (int round = 0; round < 5; ++round) {
        const QString seat = order[round];
        const qint64 heard = b->changeListener()->notifications();
        const HttpResult held = kiosk->post(holdPath(showId), seatsBody({seat}));
        ASSERT_EQ(held.status, 200) << held.body.constData();
        // Once B has heard of the hold (about a millisecond; no poll, no read), the first message of a new subscriber
        // on B has it.
        ASSERT_TRUE(pumpUntil([&] { return b->changeListener()->notifications() > heard; }, 2000));
        LiveClient fresh(b->port(), livePath(showId), token);
        fresh.setSeatOrder(order);
        ASSERT_TRUE(fresh.waitFor([&] { return !fresh.messages().empty(); }));
        const QJsonObject first = fresh.messages().front();
        ASSERT_EQ(first.value(QStringLiteral("type")).toString(), QStringLiteral("snapshot"));
        const QString letters = first.value(QStringLiteral("statuses")).toString();
        EXPECT_EQ(letters, databaseLetters(a, showId)) << "round " << round;
    }
}

TEST(Coherence, AListenerWhoseConnectionIsKilledReconnectsAndReadsWhatItMissed)
{
    Instances fleet(1, 4, 10);
    auto &[a, more, showId, token, kiosk, order] = fleet;
    MarqueeServer *b = &fleet.b();
    ASSERT_EQ(availabilityLetters(b->port(), token, showId), QString(40, u'a')); // B caches the seat map
    LiveClient onB(b->port(), livePath(showId), token);
    onB.setSeatOrder(order);
    ASSERT_TRUE(onB.waitFor([&] { return !onB.messages().empty(); }));

    const qint64 subscriptions = b->changeListener()->subscriptions();
    const qint64 pid = b->changeListener()->backendPid();
    ASSERT_GT(pid, 0);
    ManualSql sql(a);
    // The listening connection dies; while B is not listening, seats are written by hand (nobody tells B).
    ASSERT_TRUE(sql.exec(QStringLiteral("SELECT pg_terminate_backend(%1)").arg(pid)));
    ASSERT_TRUE(sql.exec(QStringLiteral("UPDATE show_seats SET status = 'booked', booking_id = gen_random_uuid(), version = version + 1 "
                                        "WHERE show_id = %1 AND seat_id IN ('B1', 'B2', 'B3')")
                             .arg(showId)));
    ASSERT_TRUE(pumpUntil([&] { return b->changeListener()->subscriptions() > subscriptions && listening(*b); }, 5000))
        << "the listener did not reconnect";
    EXPECT_NE(b->changeListener()->backendPid(), pid);
    // What was missed is read again: the subscriber, the seat map and a new subscriber on B all have it.
    EXPECT_TRUE(onB.waitFor([&] { return onB.status(QStringLiteral("B3")) == QLatin1String("booked"); }, 2000));
    const QString expected = databaseLetters(a, showId);
    EXPECT_EQ(availabilityLetters(b->port(), token, showId), expected);
    LiveClient fresh(b->port(), livePath(showId), token);
    ASSERT_TRUE(fresh.waitFor([&] { return !fresh.messages().empty(); }));
    EXPECT_EQ(fresh.messages().front().value(QStringLiteral("statuses")).toString(), expected);

    // And it listens again: the next write on A reaches B's subscriber by notification.
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("C1")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    EXPECT_TRUE(onB.waitForStatus(QStringLiteral("C1"), QStringLiteral("held")));
    expectEveryInstanceAgrees(a, {a.port(), b->port()}, token, showId);
}

TEST(Coherence, AWaitingRoomSwitchAndAPriceEditOnOneInstanceTakeEffectOnTheOthersAtOnce)
{
    // B's own refresh of the rooms comes only once a minute: what it enforces sooner it was told.
    Instances fleet(1, 4, 10, [](ServerConfig &config) { config.waitingRoomTickMs = 60000; });
    auto &[a, more, showId, token, kiosk, order] = fleet;
    MarqueeServer *b = &fleet.b();
    HttpClient kioskOnB(QStringLiteral("127.0.0.1"), b->port());
    kioskOnB.setToken(token);
    auto manager = a.client(a.staffToken(QStringLiteral("manager")));
    const QByteArray roomPath = "/api/v1/shows/" + QByteArray::number(showId) + "/waiting-room";

    // Without a room, B holds for the kiosk.
    const HttpResult before = kioskOnB.post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(before.status, 200) << before.body.constData();

    // The manager switches the room on at A: B refuses the kiosk's next hold without an admission.
    const HttpResult on = manager->request("PUT", roomPath, QJsonDocument(QJsonObject{{QStringLiteral("enabled"), true}}).toJson());
    ASSERT_EQ(on.status, 200) << on.body.constData();
    QElapsedTimer sinceSwitch;
    sinceSwitch.start();
    int status = 0;
    EXPECT_TRUE(pumpUntil([&] { return (status = kioskOnB.post(holdPath(showId), seatsBody({QStringLiteral("A2")})).status) == 403; }, 1000))
        << "B still answered " << status;
    std::cout << "[ measured ] waiting room switched on at A, enforced by B after " << sinceSwitch.elapsed() << " ms" << std::endl;

    // And off again.
    const HttpResult off = manager->request("PUT", roomPath, QJsonDocument(QJsonObject{{QStringLiteral("enabled"), false}}).toJson());
    ASSERT_EQ(off.status, 200) << off.body.constData();
    HttpResult last;
    EXPECT_TRUE(pumpUntil([&] { return last.status == 200 || (last = kioskOnB.post(holdPath(showId), seatsBody({QStringLiteral("A3")}))).status == 200; }, 1000))
        << "B still answered " << last.status << " " << last.body.constData();

    // A price edit at A: B's availability (its cached layout and prices) has the new price on the next read.
    const auto standardPrice = [&](quint16 port) {
        HttpClient client(QStringLiteral("127.0.0.1"), port);
        client.setToken(token);
        for (const QJsonValue &tier : client.get("/api/v1/shows/" + QByteArray::number(showId) + "/availability").json().value(QStringLiteral("tiers")).toArray())
            if (tier[QStringLiteral("tier")].toString() == QLatin1String("standard"))
                return tier[QStringLiteral("price_minor")].toInteger();
        return qint64(-1);
    };
    const qint64 oldPrice = standardPrice(b->port());
    ASSERT_GE(oldPrice, 0);
    const HttpResult edited = manager->request("PATCH", "/api/v1/shows/" + QByteArray::number(showId),
                                               QJsonDocument(QJsonObject{{QStringLiteral("price_tiers"), QJsonObject{{QStringLiteral("standard"), oldPrice + 111}}},
                                                                         {QStringLiteral("reason"), QStringLiteral("coherence test")}})
                                                   .toJson());
    ASSERT_EQ(edited.status, 200) << edited.body.constData();
    EXPECT_TRUE(pumpUntil([&] { return standardPrice(b->port()) == oldPrice + 111; }, 1000));
}

TEST(Coherence, TwoServersStartedAtOnceOnOnePortLeaveExactlyOneServing)
{
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000;
    TestServer setup(options);
    for (int round = 0; round < 2; ++round) {
        const quint16 port = freePort();
        // Both start in the same instant: a check before the bind could pass for both; the claim of the port cannot.
        ServerProcess first(setup.databaseUrl(), port, setup.dataDirectory());
        ServerProcess second(setup.databaseUrl(), port, setup.dataDirectory());
        ServerProcess *refused = nullptr;
        QDeadlineTimer deadline(30000);
        while (!refused && !deadline.hasExpired()) {
            if (first.process().waitForFinished(50))
                refused = &first;
            else if (second.process().waitForFinished(50))
                refused = &second;
        }
        ASSERT_NE(refused, nullptr) << "both servers kept running on one port";
        ServerProcess &serving = refused == &first ? second : first;
        EXPECT_NE(refused->process().exitCode(), 0);
        EXPECT_TRUE(refused->output().contains("another process is already listening there")) << refused->output().constData();
        ASSERT_TRUE(serving.waitReady()) << serving.output().constData();
        HttpClient client(QStringLiteral("127.0.0.1"), port);
        EXPECT_EQ(client.get("/readyz").status, 200);
    }
}
