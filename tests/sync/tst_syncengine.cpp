// SPDX-License-Identifier: AGPL-3.0-or-later
// The sync engine against a real in-process server, through the fault-injecting proxy.
#include "faultproxy.h"
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

namespace {

class SyncEngineTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        server = std::make_unique<TestServer>();
        token = server->deviceToken();
        showId = server->createShow(10, 10);
        proxy = std::make_unique<FaultProxy>(server->port());
        api = std::make_unique<ApiClient>(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(proxy->port())));
        api->setToken(token);
        api->setTimeoutMs(1500);
        ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db")))) << store.errorString().toStdString();
        options.probeIntervalMs = 100;
        options.recoveryProbeMs = 20;
        options.probeTimeoutMs = 700;
        options.backoffBaseMs = 20;
        options.backoffMaxMs = 400;
        options.followFeeds = false;
        options.maxInFlight = 4;
        // Batches on (as in the app), small enough that a replay takes several of them.
        options.batchActions = 5;
        options.batchesInFlight = 2;
    }
    void TearDown() override
    {
        engine.reset();
        api.reset();
        proxy.reset();
        server.reset();
    }

    void startEngine()
    {
        engine = std::make_unique<SyncEngine>(store, *api, options);
        QObject::connect(engine.get(), &SyncEngine::onlineChanged, [this](bool online) { (online ? onlineTransitions : offlineTransitions)++; });
        engine->start();
        ASSERT_TRUE(waitUntil([&] { return engine->isOnline(); }, 20000));
    }

    NewAction hold(const QString &seat, const QString &group = {})
    {
        NewAction a;
        a.kind = QStringLiteral("hold");
        a.path = ApiClient::holdPath(showId);
        a.body = QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{seat}}};
        a.idempotencyKey = QUuid::createUuid().toString(QUuid::WithoutBraces);
        a.group = group;
        return a;
    }

    QStringList enqueueHolds(int count, int firstSeat = 0)
    {
        QStringList keys;
        for (int i = 0; i < count; ++i) {
            const int n = firstSeat + i;
            NewAction a = hold(QStringLiteral("%1%2").arg(QChar(u'A' + n / 10)).arg(n % 10 + 1));
            keys.append(a.idempotencyKey);
            if (engine)
                EXPECT_TRUE(engine->enqueue(a));
            else
                EXPECT_TRUE(store.enqueue(a));
        }
        return keys;
    }

    bool waitDrained(int limitMs = 60000)
    {
        return waitUntil([&] { return store.pendingCount() == 0 && engine->inFlight() == 0; }, limitMs);
    }

    // Nothing lost, nothing applied twice: every action answered 200 once, each hold exists once on the server.
    void expectExactlyOnce(const QStringList &keys)
    {
        QSet<QString> holdIds;
        for (const QString &key : keys) {
            const auto action = store.actionByKey(key);
            ASSERT_TRUE(action.has_value());
            EXPECT_EQ(action->state, ActionState::Done) << action->lastError.toStdString();
            EXPECT_EQ(action->resultStatus, 200);
            holdIds.insert(QJsonDocument::fromJson(action->resultBody).object().value(QStringLiteral("hold_id")).toString());
        }
        EXPECT_EQ(holdIds.size(), keys.size());
        EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), keys.size());
        EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE status = 'held'")).toInt(), keys.size());
        for (const QString &id : holdIds)
            EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM holds WHERE hold_id = '%1'").arg(id)).toInt(), 1) << id.toStdString();
    }

    QTemporaryDir dir;
    std::unique_ptr<TestServer> server;
    QString token;
    qint64 showId = 0;
    std::unique_ptr<FaultProxy> proxy;
    std::unique_ptr<ApiClient> api;
    LocalStore store;
    SyncEngine::Options options;
    std::unique_ptr<SyncEngine> engine;
    int onlineTransitions = 0;
    int offlineTransitions = 0;
};

} // namespace

TEST(SyncBackoff, GrowsExponentiallyWithJitterAndIsCapped)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("k.db"))));
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:1")));
    SyncEngine::Options options;
    options.backoffBaseMs = 100;
    options.backoffMaxMs = 10000;
    options.jitter = 0.25;
    SyncEngine engine(store, api, options);
    for (int attempts = 0; attempts < 12; ++attempts) {
        const double nominal = std::min(100.0 * (1 << attempts), 10000.0);
        const int delay = engine.backoffMs(attempts);
        EXPECT_GE(delay, nominal * 0.75 - 1) << attempts;
        EXPECT_LE(delay, nominal * 1.25 + 1) << attempts;
    }
    QSet<int> distinct;
    for (int i = 0; i < 20; ++i)
        distinct.insert(engine.backoffMs(5));
    EXPECT_GT(distinct.size(), 1); // jitter spreads retries of many kiosks
}

TEST_F(SyncEngineTest, ReplaysAQueueFilledOffline)
{
    proxy->setRefusing(true);
    const QStringList keys = enqueueHolds(12);
    engine = std::make_unique<SyncEngine>(store, *api, options);
    engine->start();
    // Refused: stays offline, sends nothing, loses nothing.
    ASSERT_TRUE(waitUntil([&] { return proxy->connectionsAccepted() == 0 && engine->pendingCount() == 12; }, 5000));
    EXPECT_FALSE(engine->isOnline());
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 0);
    proxy->setRefusing(false);
    ASSERT_TRUE(waitUntil([&] { return engine->isOnline(); }, 20000));
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(engine->pendingCount(), 0);
    expectExactlyOnce(keys);
}

TEST_F(SyncEngineTest, CutMidRequestLosesNothing)
{
    startEngine();
    proxy->setMode(FaultProxy::Mode::CutRequest, 6);
    const QStringList keys = enqueueHolds(20);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(proxy->faultsInjected(), 6);
    expectExactlyOnce(keys);
}

TEST_F(SyncEngineTest, CutMidResponseAppliesNothingTwice)
{
    startEngine();
    proxy->setMode(FaultProxy::Mode::CutResponse, 6);
    const QStringList keys = enqueueHolds(20);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(proxy->faultsInjected(), 6);
    // The server applied some requests whose answers were cut: the retries got the stored answers.
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys")).toInt(), keys.size());
    expectExactlyOnce(keys);
}

TEST_F(SyncEngineTest, BatchWhoseAnswerIsCutIsResentAndAppliesNothingTwice)
{
    // Once online, no probe crosses the proxy for a minute: the cuts below hit batches, never a probe.
    options.probeIntervalMs = 60000;
    options.batchActions = 10;
    startEngine();
    proxy->setMode(FaultProxy::Mode::CutResponse, 2);
    const QStringList keys = enqueueHolds(30);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(proxy->faultsInjected(), 2);
    // The server committed the batches whose answers were cut; their resends got the stored answers.
    int resent = 0;
    for (const QString &key : keys)
        resent += store.actionByKey(key)->attempts > 1 ? 1 : 0;
    EXPECT_GE(resent, 10) << "a whole batch should have gone again";
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys")).toInt(), keys.size());
    expectExactlyOnce(keys);
    // Invariants: every held seat belongs to exactly one live hold, and no seat is in two holds.
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM show_seats ss WHERE ss.status = 'held' AND NOT EXISTS "
                                            "(SELECT 1 FROM holds h WHERE h.hold_id = ss.held_by AND ss.seat_id = ANY (h.seat_ids))"))
                  .toInt(),
              0);
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM (SELECT s FROM holds, unnest(seat_ids) s GROUP BY s HAVING count(*) > 1) d")).toInt(), 0);
}

TEST_F(SyncEngineTest, OneRequestPerActionWhenBatchingIsOff)
{
    options.batchActions = 1;
    startEngine();
    proxy->setMode(FaultProxy::Mode::CutResponse, 3);
    const QStringList keys = enqueueHolds(12);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(proxy->faultsInjected(), 3);
    expectExactlyOnce(keys);
}

TEST_F(SyncEngineTest, DropForSecondsGoesOfflineAndResumes)
{
    startEngine();
    const QStringList first = enqueueHolds(10);
    proxy->dropFor(2000);
    const QStringList second = enqueueHolds(10, 10);
    ASSERT_TRUE(waitUntil([&] { return offlineTransitions > 0; }, 10000));
    ASSERT_TRUE(waitUntil([&] { return engine->isOnline(); }, 20000));
    ASSERT_TRUE(waitDrained());
    EXPECT_GE(onlineTransitions, 2);
    expectExactlyOnce(first + second);
}

TEST_F(SyncEngineTest, BlackholeTimesOutGoesOfflineAndResumes)
{
    startEngine();
    proxy->setMode(FaultProxy::Mode::Blackhole);
    const QStringList keys = enqueueHolds(8);
    ASSERT_TRUE(waitUntil([&] { return !engine->isOnline(); }, 20000));
    EXPECT_GT(proxy->faultsInjected(), 0);
    EXPECT_GT(engine->pendingCount(), 0);
    const auto waiting = store.actionByKey(keys.first());
    proxy->setMode(FaultProxy::Mode::Pass);
    ASSERT_TRUE(waitDrained());
    EXPECT_TRUE(engine->isOnline());
    expectExactlyOnce(keys);
    // At least one action had to be retried after a timeout, and said so while it waited.
    int retried = 0;
    for (const QString &key : keys)
        retried += store.actionByKey(key)->attempts > 1 ? 1 : 0;
    EXPECT_GT(retried, 0);
}

TEST_F(SyncEngineTest, PoisonActionIsParkedWithItsReasonAndDoesNotBlockItsGroup)
{
    startEngine();
    QList<qint64> parked;
    QObject::connect(engine.get(), &SyncEngine::actionParked, [&](qint64 id, const QString &, const QString &) { parked.append(id); });
    NewAction poison = hold(QStringLiteral("A1"), QStringLiteral("order:1"));
    poison.path = ApiClient::holdPath(987654);
    NewAction good = hold(QStringLiteral("A2"), QStringLiteral("order:1"));
    const qint64 poisonId = *engine->enqueue(poison);
    const qint64 goodId = *engine->enqueue(good);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(parked, QList<qint64>{poisonId});
    EXPECT_EQ(engine->parkedCount(), 1);
    const auto stored = store.action(poisonId);
    EXPECT_EQ(stored->state, ActionState::Parked);
    EXPECT_EQ(stored->resultStatus, 404);
    EXPECT_TRUE(stored->lastError.contains(QStringLiteral("show_not_found"))) << stored->lastError.toStdString();
    EXPECT_EQ(stored->attempts, 1); // not retried: retrying cannot fix it
    EXPECT_EQ(store.action(goodId)->state, ActionState::Done);
    // A seat conflict is a definite answer as well.
    NewAction taken = hold(QStringLiteral("A2"));
    const qint64 takenId = *engine->enqueue(taken);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(store.action(takenId)->resultStatus, 409);
    EXPECT_EQ(store.action(takenId)->state, ActionState::Parked);
    // So is bad input: HTTP 400, which Qt reports as a protocol error, is parked at once and not taken for a
    // broken link.
    NewAction malformed = hold(QStringLiteral("A3"));
    malformed.body = QJsonObject{{QStringLiteral("seat_ids"), QStringLiteral("A3")}};
    const qint64 malformedId = *engine->enqueue(malformed);
    ASSERT_TRUE(waitDrained());
    EXPECT_EQ(store.action(malformedId)->resultStatus, 400);
    EXPECT_EQ(store.action(malformedId)->state, ActionState::Parked);
    EXPECT_EQ(store.action(malformedId)->attempts, 1);
    EXPECT_TRUE(engine->isOnline());
}

TEST_F(SyncEngineTest, KillNineMidReplayAndRestartGivesTheSameResult)
{
    constexpr int kActions = 100;
    const QStringList keys = enqueueHolds(kActions);
    const QString worker = QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-sync-worker");
    const QStringList args{QStringLiteral("--db"), store.path(), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1").arg(server->port()),
                           QStringLiteral("--token"), token, QStringLiteral("--in-flight"), QStringLiteral("4"),
                           // small batches, so that both kills land while batches are on the wire
                           QStringLiteral("--batch"), QStringLiteral("2")};
    auto doneCount = [&] { return store.actions(ActionState::Done, 100000).size(); };

    int kills = 0;
    for (int threshold : {15, 45}) {
        QProcess child;
        child.start(worker, args);
        ASSERT_TRUE(child.waitForStarted());
        ASSERT_TRUE(waitUntil([&] { return doneCount() >= threshold || child.state() == QProcess::NotRunning; }, 60000));
        ASSERT_EQ(child.state(), QProcess::Running) << "the worker finished before it could be killed";
        child.kill(); // SIGKILL mid-replay: requests in flight, answers not yet committed
        ASSERT_TRUE(child.waitForFinished(10000));
        EXPECT_EQ(child.exitStatus(), QProcess::CrashExit);
        ++kills;
        EXPECT_LT(doneCount(), kActions);
    }
    EXPECT_EQ(kills, 2);

    QProcess child;
    child.start(worker, args);
    ASSERT_TRUE(child.waitForStarted());
    ASSERT_TRUE(waitUntil([&] { return child.state() == QProcess::NotRunning; }, 120000));
    EXPECT_EQ(child.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(child.exitCode(), 0) << child.readAllStandardError().toStdString();
    EXPECT_EQ(store.pendingCount(), 0);
    // Same result as an uninterrupted run: every hold placed exactly once.
    QSet<QString> holdIds;
    for (const QString &key : keys) {
        const auto action = store.actionByKey(key);
        EXPECT_EQ(action->state, ActionState::Done);
        EXPECT_EQ(action->resultStatus, 200);
        holdIds.insert(QJsonDocument::fromJson(action->resultBody).object().value(QStringLiteral("hold_id")).toString());
    }
    EXPECT_EQ(holdIds.size(), kActions);
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), kActions);
}

TEST_F(SyncEngineTest, ConcurrentReplayKeepsEachGroupInOrderAndAppliesEachActionOnceThroughCutLinks)
{
    // Ten groups (one per row) of ten holds each, queued interleaved; several groups replay at once over several
    // connections while the proxy cuts requests and answers. Within a group every hold must reach the server
    // after the previous one was answered: seat 1 before seat 2 ... before seat 10.
    constexpr int kGroups = 10;
    constexpr int kPerGroup = 10;
    options.maxInFlight = 6;
    api->setConnectionPools(2);
    QStringList keys;
    QHash<qint64, QString> groupOf;
    for (int seat = 1; seat <= kPerGroup; ++seat) {
        for (int g = 0; g < kGroups; ++g) {
            const QString row = QString(QChar(u'A' + g));
            NewAction a = hold(row + QString::number(seat), QStringLiteral("order:") + row);
            const auto id = store.enqueue(a);
            ASSERT_TRUE(id.has_value());
            keys.append(a.idempotencyKey);
            groupOf.insert(*id, a.group);
        }
    }
    proxy->setMode(FaultProxy::Mode::CutResponse, 5);
    engine = std::make_unique<SyncEngine>(store, *api, options);
    QHash<QString, QList<qint64>> finishedByGroup;
    QObject::connect(engine.get(), &SyncEngine::actionFinished,
                     [&](qint64 id, const QString &, int, const QByteArray &) { finishedByGroup[groupOf.value(id)].append(id); });
    engine->start();
    int mostInFlight = 0;
    bool cutRequestsToo = false;
    ASSERT_TRUE(waitUntil(
        [&] {
            mostInFlight = std::max(mostInFlight, engine->inFlight());
            if (!cutRequestsToo && proxy->faultsInjected() >= 5) {
                cutRequestsToo = true;
                proxy->setMode(FaultProxy::Mode::CutRequest, 5);
            }
            return cutRequestsToo && store.pendingCount() == 0 && engine->inFlight() == 0;
        },
        90000));
    EXPECT_EQ(proxy->faultsInjected(), 10);
    EXPECT_GT(mostInFlight, 1) << "the replay never had two groups in flight";
    expectExactlyOnce(keys);
    EXPECT_EQ(server->scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys")).toInt(), keys.size());

    // Server side: in each row the holds were created in seat order (created_at is taken after the claim).
    for (int g = 0; g < kGroups; ++g) {
        const QString row = QString(QChar(u'A' + g));
        const QString order = server->scalar(QStringLiteral("SELECT string_agg(seat_ids[1], ',' ORDER BY created_at) FROM holds "
                                                            "WHERE show_id = %1 AND seat_ids[1] LIKE '%2%%'")
                                                 .arg(showId)
                                                 .arg(row))
                                  .toString();
        QStringList expected;
        for (int seat = 1; seat <= kPerGroup; ++seat)
            expected.append(row + QString::number(seat));
        EXPECT_EQ(order, expected.join(QLatin1Char(','))) << row.toStdString();
    }
    // Client side: each group's answers were recorded in queue order, once each.
    ASSERT_EQ(finishedByGroup.size(), kGroups);
    for (auto it = finishedByGroup.cbegin(); it != finishedByGroup.cend(); ++it) {
        QList<qint64> sorted = it.value();
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(it.value(), sorted) << it.key().toStdString();
        EXPECT_EQ(it.value().size(), kPerGroup) << it.key().toStdString();
    }
}
