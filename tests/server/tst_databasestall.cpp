// SPDX-License-Identifier: AGPL-3.0-or-later
// A database that stops answering (its postmaster and every backend SIGSTOPped, as a frozen host or a stalled
// storage would leave it): requests answer within the statement timeout and a second, 503 `unavailable` with
// Retry-After, instead of hanging until it wakes up; /healthz answers 200 throughout, /readyz 503 while it is
// silent and 200 again after; and no seat ends up held twice or half-held.
#include "serverprocess.h"
#include "servertesthelpers.h"
#include "testserver.h"

#include "store/databasewatchdog.h"
#include "store/embeddedpostgres.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <csignal>
#include <gtest/gtest.h>
#include <iostream>
#include <mutex>
#include <sys/types.h>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

constexpr int kStatementTimeoutMs = 2000;
// When the server must know the database is silent: the watchdog counts from the first question left unanswered,
// which its probe asks within one probe interval of the stop; the silence (--database-silence, 1 s by default) runs
// from then; and a loaded test machine gets 250 ms more for the probe thread to be scheduled.
constexpr int kKnownSilentAfterStopMs = 1000 + store::DatabaseWatchdog::kProbeIntervalMs + 250;

/** @brief The postmaster of the cluster in @p pgdata and its children (every backend and auxiliary process). */
QList<pid_t> clusterProcesses(const QString &pgdata)
{
    QList<pid_t> pids;
    QFile pidFile(pgdata + QStringLiteral("/postmaster.pid"));
    if (!pidFile.open(QIODevice::ReadOnly))
        return pids;
    const pid_t postmaster = pid_t(pidFile.readLine().trimmed().toInt());
    if (postmaster <= 0)
        return pids;
    pids << postmaster;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const pid_t pid = pid_t(entry.toInt(&numeric));
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // pid (comm) state ppid ...: the command may hold spaces and parentheses, so read after the last ')'.
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1].toInt() == postmaster)
            pids << pid;
    }
    return pids;
}

void signalAll(const QList<pid_t> &pids, int signal)
{
    for (pid_t pid : pids)
        ::kill(pid, signal);
}

struct Answer {
    qint64 startedMs = 0;
    qint64 tookMs = 0;
    int status = 0;
    QByteArray code;
    QByteArray retryAfter;
    QString holdId;
    QStringList seats;
};

} // namespace

TEST(DatabaseStall, RequestsFailFastWhileTheDatabaseIsStoppedAndSeatsStaySound)
{
    // A cluster of this test's own: the shared test cluster must not stop under the other tests.
    QTemporaryDir clusterDirectory(QStringLiteral("/tmp/mqstall-XXXXXX"));
    store::EmbeddedPostgres cluster(clusterDirectory.path());
    ASSERT_TRUE(cluster.start()) << cluster.errorString().toStdString();
    QList<pid_t> stopped;
    struct Resume {
        QList<pid_t> &pids;
        ~Resume() { signalAll(pids, SIGCONT); } // never leave the cluster stopped, whatever fails
    } resume{stopped};

    TestServer::Options options = TestServer::Options::withConfig([](ServerConfig &config) {
        config.databaseStatementTimeoutMs = kStatementTimeoutMs;
        config.databaseConnectTimeoutSeconds = 2;
    });
    options.database = cluster.config();
    TestServer server(options);
    const qint64 showId = server.createShow(20, 25);
    const QString token = server.deviceToken();
    server.context().database.closeThreadConnection(); // the test thread asks nothing while the database is stopped

    QElapsedTimer clock;
    clock.start();
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::vector<Answer> holds;  // hold attempts and seat-map reads
    std::vector<Answer> health; // /healthz
    std::vector<Answer> ready;  // /readyz

    auto record = [&](std::vector<Answer> &into, qint64 started, const HttpResult &result, Answer answer) {
        answer.startedMs = started;
        answer.tookMs = clock.elapsed() - started;
        answer.status = result.status;
        answer.retryAfter = result.header("Retry-After");
        if (result.status >= 400)
            answer.code = result.json().value(QStringLiteral("error")).toString().toUtf8();
        std::lock_guard lock(mutex);
        into.push_back(std::move(answer));
    };
    std::vector<std::thread> clients;
    for (int c = 0; c < 3; ++c) {
        clients.emplace_back([&, c] {
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(token);
            while (!stop) {
                const qint64 started = clock.elapsed();
                if (c == 2) {
                    const HttpResult map = client.get("/api/v1/shows/" + QByteArray::number(showId) + "/seatmap");
                    record(holds, started, map, {});
                } else {
                    QStringList seats;
                    const int row = int(QRandomGenerator::global()->bounded(20));
                    const int first = 1 + int(QRandomGenerator::global()->bounded(24));
                    const QString rowLabel(QChar(u'A' + row));
                    seats << rowLabel + QString::number(first) << rowLabel + QString::number(first + 1);
                    const HttpResult hold = client.post(holdPath(showId), seatsBody(seats));
                    Answer answer;
                    if (hold.status == 200) {
                        answer.holdId = hold.json().value(QStringLiteral("hold_id")).toString();
                        answer.seats = stringList(hold.json().value(QStringLiteral("seat_ids")));
                    }
                    record(holds, started, hold, answer);
                }
                if (client.get("/healthz").status == 0) // keeps the connection honest: a fresh one after a failure
                    client.disconnect();
                QThread::msleep(20);
            }
        });
    }
    clients.emplace_back([&] {
        HttpClient client(QStringLiteral("127.0.0.1"), server.port());
        while (!stop) {
            qint64 started = clock.elapsed();
            record(health, started, client.get("/healthz"), {});
            started = clock.elapsed();
            record(ready, started, client.get("/readyz"), {});
            QThread::msleep(100);
        }
    });

    QThread::msleep(1500);
    const qint64 stoppedAt = clock.elapsed();
    stopped = clusterProcesses(cluster.pgdataDirectory());
    ASSERT_GE(stopped.size(), 2) << "cannot find the cluster's processes";
    signalAll(stopped, SIGSTOP);
    QThread::msleep(8000);
    const qint64 resumedAt = clock.elapsed();
    signalAll(stopped, SIGCONT);
    stopped.clear();

    // Ready again soon after, and holds are granted again.
    qint64 readyAgainAt = -1;
    for (int i = 0; i < 100 && readyAgainAt < 0; ++i) {
        QThread::msleep(100);
        std::lock_guard lock(mutex);
        for (const Answer &answer : ready)
            if (answer.startedMs > resumedAt && answer.status == 200)
                readyAgainAt = answer.startedMs;
    }
    QThread::msleep(1500);
    stop = true;
    for (std::thread &client : clients)
        client.join();
    ASSERT_GE(readyAgainAt, 0) << "/readyz did not say 200 again after the database woke up";
    std::cout << "[          ] ready again " << readyAgainAt - resumedAt << " ms after SIGCONT\n";

    const qint64 bound = kStatementTimeoutMs + 1000;
    int refusedWhileStopped = 0, grantedBefore = 0, grantedAfter = 0;
    for (const Answer &answer : holds) {
        EXPECT_NE(answer.status, 0) << "a request got no answer (started " << answer.startedMs - stoppedAt << " ms after the stop)";
        EXPECT_LT(answer.tookMs, bound) << "a request took " << answer.tookMs << " ms (started " << answer.startedMs - stoppedAt
                                        << " ms after the stop, answered " << answer.status << ")";
        const bool whileSilent = answer.startedMs > stoppedAt + kKnownSilentAfterStopMs && answer.startedMs + answer.tookMs < resumedAt;
        if (whileSilent) {
            EXPECT_EQ(answer.status, 503) << "answered while the database was stopped";
            EXPECT_EQ(answer.code, QByteArray("unavailable"));
            EXPECT_EQ(answer.retryAfter, QByteArray("1"));
            ++refusedWhileStopped;
        }
        if (answer.status == 503)
            EXPECT_EQ(answer.retryAfter, QByteArray("1")) << "a 503 without Retry-After";
        if (answer.status == 200 && !answer.holdId.isEmpty()) {
            grantedBefore += answer.startedMs < stoppedAt;
            grantedAfter += answer.startedMs > resumedAt;
        }
    }
    EXPECT_GT(refusedWhileStopped, 20) << "too few requests while the database was stopped";
    EXPECT_GT(grantedBefore, 0);
    EXPECT_GT(grantedAfter, 0) << "no hold granted after the database woke up";

    int healthWhileStopped = 0, readyWhileStopped = 0;
    for (const Answer &answer : health) {
        EXPECT_EQ(answer.status, 200) << "/healthz answered " << answer.status << " at " << answer.startedMs - stoppedAt << " ms";
        EXPECT_LT(answer.tookMs, bound);
        healthWhileStopped += answer.startedMs > stoppedAt + kKnownSilentAfterStopMs && answer.startedMs < resumedAt;
    }
    for (const Answer &answer : ready) {
        EXPECT_LT(answer.tookMs, 1500) << "/readyz took " << answer.tookMs << " ms at " << answer.startedMs - stoppedAt << " ms";
        if (answer.startedMs < stoppedAt)
            EXPECT_EQ(answer.status, 200);
        if (answer.startedMs > stoppedAt + kKnownSilentAfterStopMs && answer.startedMs + answer.tookMs < resumedAt) {
            EXPECT_EQ(answer.status, 503) << "/readyz at " << answer.startedMs - stoppedAt << " ms after the stop";
            ++readyWhileStopped;
        }
    }
    EXPECT_GT(healthWhileStopped, 20);
    EXPECT_GT(readyWhileStopped, 20);

    // Seats: every hold granted holds exactly its seats, no seat was granted to two holds (none expires or is
    // released in this test), and no hold has only some of its seats.
    QSet<QString> grantedSeats;
    for (const Answer &answer : holds) {
        if (answer.holdId.isEmpty())
            continue;
        for (const QString &seat : answer.seats) {
            EXPECT_FALSE(grantedSeats.contains(seat)) << "seat " << seat.toStdString() << " granted to two holds";
            grantedSeats.insert(seat);
        }
        EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held' AND held_by = '%2'")
                                    .arg(showId)
                                    .arg(answer.holdId))
                      .toInt(),
                  answer.seats.size())
            << "granted hold " << answer.holdId.toStdString() << " does not hold its seats";
    }
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds h WHERE h.show_id = %1 AND (SELECT count(*) FROM show_seats ss "
                                           "WHERE ss.show_id = h.show_id AND ss.held_by = h.hold_id AND ss.status = 'held') NOT IN (0, cardinality(h.seat_ids))")
                                .arg(showId))
                  .toInt(),
              0)
        << "a hold with only some of its seats";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats ss WHERE ss.show_id = %1 AND ss.status = 'held' AND NOT EXISTS "
                                           "(SELECT 1 FROM holds h WHERE h.hold_id = ss.held_by AND ss.seat_id = ANY (h.seat_ids))")
                                .arg(showId))
                  .toInt(),
              0)
        << "a held seat without its hold";
    EXPECT_GT(server.context().databaseWatchdog.connectionsEnded(), 0) << "no connection was waiting when the database stopped";
}

TEST(DatabaseStall, TheTimeoutOptionsParseDurationsAndRefuseNonsense)
{
    QString error;
    const auto defaults = ServerConfig::fromArguments({}, &error);
    ASSERT_TRUE(defaults) << error.toStdString();
    EXPECT_EQ(defaults->databaseStatementTimeoutMs, 5000);
    EXPECT_EQ(defaults->databaseConnectTimeoutSeconds, 5);
    EXPECT_EQ(defaults->databaseKeepaliveSeconds, 10);
    for (const auto &[text, ms] : std::vector<std::pair<QString, int>>{{QStringLiteral("5s"), 5000}, {QStringLiteral("1500ms"), 1500},
                                                                       {QStringLiteral("3"), 3000}, {QStringLiteral("0"), 0}}) {
        const auto config = ServerConfig::fromArguments({QStringLiteral("--database-statement-timeout"), text}, &error);
        ASSERT_TRUE(config) << text.toStdString() << ": " << error.toStdString();
        EXPECT_EQ(config->databaseStatementTimeoutMs, ms) << text.toStdString();
    }
    for (const QString &bad : {QStringLiteral("5x"), QStringLiteral("-1s"), QStringLiteral("s"), QStringLiteral("3601s")}) {
        EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--database-statement-timeout"), bad}, &error)) << bad.toStdString();
        EXPECT_TRUE(error.contains(QStringLiteral("--database-statement-timeout"))) << error.toStdString();
    }
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--database-connect-timeout"), QStringLiteral("1")}, &error));
    const auto keepalive = ServerConfig::fromArguments({QStringLiteral("--database-keepalive"), QStringLiteral("0"),
                                                        QStringLiteral("--database-connect-timeout"), QStringLiteral("7")},
                                                       &error);
    ASSERT_TRUE(keepalive) << error.toStdString();
    EXPECT_EQ(keepalive->databaseKeepaliveSeconds, 0);
    EXPECT_EQ(keepalive->databaseConnectTimeoutSeconds, 7);

    EXPECT_EQ(defaults->databaseSilenceMs, 1000);
    const auto silence = ServerConfig::fromArguments({QStringLiteral("--database-silence"), QStringLiteral("2500ms")}, &error);
    ASSERT_TRUE(silence) << error.toStdString();
    EXPECT_EQ(silence->databaseSilenceMs, 2500);
    for (const QString &bad : {QStringLiteral("50ms"), QStringLiteral("0"), QStringLiteral("61s"), QStringLiteral("soon")}) {
        EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--database-silence"), bad}, &error)) << bad.toStdString();
        EXPECT_TRUE(error.contains(QStringLiteral("--database-silence"))) << error.toStdString();
    }
}

TEST(DatabaseStall, AServerThatDidNotRunIsNotTakenForASilentDatabase)
{
    // A starved machine (load 15-20 on two cores) may leave the probe thread unscheduled for over a second while
    // the database answers every question at once. Stopping the whole server process does the same to all its
    // threads: once it runs again, the last question was answered and the next not asked yet, so the server is
    // ready at once. (It used to count the time since the last answer, and answered 503 for up to a quarter of a
    // second after every such pause.)
    TestServer setup;
    const quint16 port = freePort();
    ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory());
    ASSERT_TRUE(server.waitReady()) << server.output().constData();
    const pid_t pid = pid_t(server.process().processId());
    ASSERT_GT(pid, 0);
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    int notReady = 0;
    QByteArray lastRefusal;
    for (int pause = 0; pause < 5; ++pause) {
        ASSERT_EQ(client.get("/readyz").status, 200);
        ::kill(pid, SIGSTOP);
        QThread::msleep(1500);
        ::kill(pid, SIGCONT);
        const HttpResult ready = client.get("/readyz");
        if (ready.status != 200) {
            ++notReady;
            lastRefusal = ready.body;
        }
        QThread::msleep(300);
    }
    EXPECT_EQ(notReady, 0) << "not ready right after a pause of the server itself; last answer: " << lastRefusal.constData();
    // And the database really stopping still trips it: RequestsFailFastWhileTheDatabaseIsStoppedAndSeatsStaySound.
}
