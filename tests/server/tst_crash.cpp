// SPDX-License-Identifier: AGPL-3.0-or-later
// A crash of the server process (kill -9 in the middle of a load of holds and releases) leaves no
// half-claimed hold: every hold has all of its seats or none, every held seat names a hold that contains it,
// every hold the clients were told about survived, and a restarted server on the same database works.
#include "serverprocess.h"
#include "servertesthelpers.h"

#include "store/database.h"
#include "store/embeddedpostgres.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTcpServer>
#include <QThread>
#include <atomic>
#include <gtest/gtest.h>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief Wait until no other session of this database is running a statement (the killed server's backends). */
void waitForOrphanedStatements(TestServer &server)
{
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired()
           && server.scalar(QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                            "AND pid <> pg_backend_pid() AND state <> 'idle'"))
                   .toInt()
               > 0)
        QThread::msleep(50);
}

/** @brief Check the tables for half-claimed holds, and that every hold of @p durableHolds survived. */
void expectNoHalfClaimedHold(TestServer &server, qint64 showId, const QStringList &durableHolds)
{
    // No expiry happens in this test (default TTL of 8 minutes), so a hold not released has all its seats and
    // a released hold none: anything in between is a partial claim or a partial release.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds h WHERE h.show_id = %1 AND "
                                           "(SELECT count(*) FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.held_by = h.hold_id "
                                           "   AND ss.status = 'held') NOT IN (0, cardinality(h.seat_ids))")
                                  .arg(showId))
                  .toInt(),
              0)
        << "a hold with only some of its seats";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds h WHERE h.show_id = %1 AND (h.released_at IS NULL) <> "
                                           "((SELECT count(*) FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.held_by = h.hold_id "
                                           "   AND ss.status = 'held') = cardinality(h.seat_ids))")
                                  .arg(showId))
                  .toInt(),
              0)
        << "a live hold without its seats, or a released hold still holding seats";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats ss WHERE ss.show_id = %1 AND ss.status = 'held' AND NOT EXISTS "
                                           "(SELECT 1 FROM holds h WHERE h.hold_id = ss.held_by AND h.show_id = ss.show_id "
                                           "   AND ss.seat_id = ANY (h.seat_ids))")
                                  .arg(showId))
                  .toInt(),
              0)
        << "a held seat whose hold does not exist or does not contain it";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held' AND held_by IS NULL").arg(showId)).toInt(), 0);
    // Durability: a hold the server confirmed with 200 was committed before the answer left (a server crash),
    // and a hold whose commit preceded a durable commit is on disk (a database crash, see the test below).
    int lost = 0;
    for (const QString &holdId : durableHolds) {
        if (server.scalar(QStringLiteral("SELECT count(*) FROM holds WHERE hold_id = '%1'").arg(holdId)).toInt() != 1)
            ++lost;
    }
    EXPECT_EQ(lost, 0) << "confirmed holds missing after the crash";
}

} // namespace

TEST(Crash, KillDuringHoldsLeavesNoHalfClaimedHold)
{
    // The in-process server only provides a migrated database of the test cluster, the show and the tokens;
    // its own reaper is parked so that the child process is the only writer.
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000;
    options.threads = 1;
    TestServer setup(options);
    const qint64 showId = setup.createShow(20, 25);
    constexpr int kClients = 16;
    std::vector<QString> tokens;
    for (int i = 0; i < kClients; ++i)
        tokens.push_back(setup.deviceToken());
    const QString program = QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-server");
    ASSERT_TRUE(QFileInfo(program).isExecutable()) << qPrintable(program);

    std::mutex acknowledgedMutex;
    QStringList acknowledged;
    int totalGranted = 0;
    for (int round = 0; round < 2; ++round) {
        const quint16 port = freePort();
        ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory());
        ASSERT_TRUE(server.waitReady()) << server.output().constData();

        std::atomic<bool> stop{false};
        std::atomic<int> granted{0};
        std::vector<std::thread> threads;
        for (int c = 0; c < kClients; ++c) {
            threads.emplace_back([&, c] {
                HttpClient client(QStringLiteral("127.0.0.1"), port);
                client.setToken(tokens[size_t(c)]);
                std::mt19937 random(77u * unsigned(round + 1) + unsigned(c));
                while (!stop.load()) {
                    const QString row(QChar(u'A' + int(random() % 20)));
                    const int count = 1 + int(random() % 4);
                    const int first = 1 + int(random() % (25 - count + 1));
                    QStringList seats;
                    for (int i = 0; i < count; ++i)
                        seats << row + QString::number(first + i);
                    const HttpResult result = client.post(holdPath(showId), seatsBody(seats));
                    if (result.status == 0) {
                        // The server is gone (or a connection was refused): stop once told to, else retry.
                        client.disconnect();
                        QThread::msleep(5);
                        continue;
                    }
                    if (result.status == 200) {
                        ++granted;
                        const QString holdId = result.json()[QStringLiteral("hold_id")].toString();
                        {
                            std::lock_guard lock(acknowledgedMutex);
                            acknowledged << holdId;
                        }
                        // Release about half again, so that releases are in flight at the kill too.
                        if (random() % 2)
                            client.del("/api/v1/holds/" + holdId.toLatin1());
                    }
                }
            });
        }
        // Kill once the load is well under way: some holds granted, more in flight. (500 seats: half the
        // holds are kept for the whole test, so a small show would fill up and the load would stall.)
        QDeadlineTimer deadline(30000);
        while (granted.load() < 80 && !deadline.hasExpired())
            QThread::msleep(10);
        server.kill9();
        stop = true;
        for (auto &thread : threads)
            thread.join();
        EXPECT_GE(granted.load(), 80) << "the load never got going: " << server.output().constData();
        totalGranted += granted.load();

        // The killed server's backends finish or abort their transactions on their own; then check.
        waitForOrphanedStatements(setup);
        expectNoHalfClaimedHold(setup, showId, acknowledged);
    }

    // A restarted server on the same database holds, refuses and releases as before.
    const quint16 port = freePort();
    ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory());
    ASSERT_TRUE(server.waitReady()) << server.output().constData();
    auto client = std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), port);
    client->setToken(setup.deviceToken());
    const QString freeSeat = setup.scalar(QStringLiteral("SELECT min(seat_id) FROM show_seats WHERE show_id = %1 AND status = 'available'").arg(showId)).toString();
    const QString heldSeat = setup.scalar(QStringLiteral("SELECT min(seat_id) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(showId)).toString();
    ASSERT_FALSE(freeSeat.isEmpty());
    const HttpResult hold = client->post(holdPath(showId), seatsBody({freeSeat}));
    EXPECT_EQ(hold.status, 200) << hold.body.constData();
    if (!heldSeat.isEmpty()) {
        const HttpResult refused = client->post(holdPath(showId), seatsBody({heldSeat}));
        EXPECT_EQ(refused.status, 409) << refused.body.constData();
        EXPECT_EQ(stringList(refused.json()[QStringLiteral("held_seats")]), QStringList{heldSeat});
    }
    EXPECT_EQ(client->del("/api/v1/holds/" + hold.json()[QStringLiteral("hold_id")].toString().toLatin1()).status, 200);
    expectNoHalfClaimedHold(setup, showId, acknowledged);
    std::printf("[          ] %d holds granted across two crashes\n", totalGranted);
}

TEST(Crash, DatabaseCrashForgetsOnlyHoldsNoDurableCommitFollowed)
{
    // Holds commit asynchronously (--hold-commit async, the default): an immediate PostgreSQL shutdown — a crash
    // as far as the WAL is concerned — may forget the last acknowledged holds, and nothing else. Every hold
    // acknowledged before a later synchronous commit (an order, a payment; here a marker row) must survive,
    // no hold may survive half-claimed, and the server must carry on once the database is back.
    QTemporaryDir directory(QStringLiteral("/tmp/mqcrash-XXXXXX")); // short: unix socket paths are limited
    ASSERT_TRUE(directory.isValid());
    store::EmbeddedPostgres cluster(directory.path());
    ASSERT_TRUE(cluster.start()) << qPrintable(cluster.errorString());
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000; // no expiry sweeps: a hold not released keeps its seats
    options.configure = [&cluster](ServerConfig &config) {
        config.databaseUrl = cluster.config().toUrl(true);
        config.asyncHoldCommit = true;
    };
    TestServer server(options);
    const qint64 showId = server.createShow(20, 25);
    constexpr int kClients = 8;
    std::vector<QString> tokens;
    for (int i = 0; i < kClients; ++i)
        tokens.push_back(server.deviceToken());

    std::mutex mutex;
    QStringList acknowledged;   // in the order the answers arrived
    qsizetype durablePrefix = 0; // acknowledged[0, durablePrefix) preceded a committed synchronous marker
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c) {
        threads.emplace_back([&, c] {
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(tokens[size_t(c)]);
            std::mt19937 random(991u + unsigned(c));
            while (!stop.load()) {
                const QString row(QChar(u'A' + int(random() % 20)));
                const int count = 1 + int(random() % 3);
                const int first = 1 + int(random() % (25 - count + 1));
                QStringList seats;
                for (int i = 0; i < count; ++i)
                    seats << row + QString::number(first + i);
                const HttpResult result = client.post(holdPath(showId), seatsBody(seats));
                if (result.status == 200) {
                    const QString holdId = result.json()[QStringLiteral("hold_id")].toString();
                    if (random() % 3 == 0) // some releases in flight too
                        client.del("/api/v1/holds/" + holdId.toLatin1());
                    else {
                        std::lock_guard lock(mutex);
                        acknowledged << holdId;
                    }
                } else if (result.status == 0) {
                    client.disconnect();
                    QThread::msleep(5);
                }
            }
        });
    }
    // The marker: a synchronous commit on its own connection, like an order's. Whatever was acknowledged before
    // it began had its commit record written earlier in the WAL, so the marker's flush made it durable.
    std::thread marker([&] {
        store::Database database(cluster.config());
        {
            QSqlQuery sync(database.connection());
            EXPECT_TRUE(sync.exec(QStringLiteral("SET synchronous_commit = on")));
            while (!stop.load()) {
                qsizetype before;
                {
                    std::lock_guard lock(mutex);
                    before = acknowledged.size();
                }
                if (sync.exec(QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) VALUES ('test.marker', 'crash', '{}')"))) {
                    std::lock_guard lock(mutex);
                    durablePrefix = before;
                }
                QThread::msleep(20);
            }
        }
        database.closeThreadConnection();
    });
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired()) {
        {
            std::lock_guard lock(mutex);
            if (acknowledged.size() >= 150)
                break;
        }
        QThread::msleep(10);
    }
    cluster.kill(); // pg_ctl stop -m immediate: no shutdown checkpoint, WAL not yet written is gone
    stop = true;
    for (auto &thread : threads)
        thread.join();
    marker.join();
    QStringList durable;
    qsizetype acknowledgedCount = 0;
    {
        std::lock_guard lock(mutex);
        durable = acknowledged.mid(0, durablePrefix);
        acknowledgedCount = acknowledged.size();
    }
    ASSERT_GE(durable.size(), 50) << "the load never got going before the crash";

    ASSERT_TRUE(cluster.start()) << qPrintable(cluster.errorString()); // crash recovery replays the WAL
    // The server's connections died with the cluster; each reconnects on its next use.
    QDeadlineTimer reconnect(30000);
    while (!reconnect.hasExpired() && !server.context().database.ping())
        QThread::msleep(100);
    ASSERT_TRUE(server.context().database.ping());
    expectNoHalfClaimedHold(server, showId, durable);
    const int survived = server.scalar(QStringLiteral("SELECT count(*) FROM holds WHERE show_id = %1 AND released_at IS NULL").arg(showId)).toInt();
    std::printf("[          ] %lld holds acknowledged, %lld before the last durable commit, %d live after recovery\n",
                static_cast<long long>(acknowledgedCount), static_cast<long long>(durable.size()), survived);

    // The server sells on: a hold on a free seat is granted, one on a held seat refused.
    auto client = server.client(server.deviceToken());
    const QString freeSeat = server.scalar(QStringLiteral("SELECT min(seat_id) FROM show_seats WHERE show_id = %1 AND status = 'available'").arg(showId)).toString();
    ASSERT_FALSE(freeSeat.isEmpty());
    HttpResult hold;
    QDeadlineTimer serving(30000);
    do { // a worker thread whose connection died answers 503 once, then reconnects
        hold = client->post(holdPath(showId), seatsBody({freeSeat}));
    } while (hold.status != 200 && !serving.hasExpired() && (QThread::msleep(100), true));
    EXPECT_EQ(hold.status, 200) << hold.body.constData();
    const QString heldSeat = server.scalar(QStringLiteral("SELECT min(seat_id) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(showId)).toString();
    EXPECT_EQ(client->post(holdPath(showId), seatsBody({heldSeat})).status, 409);
}
