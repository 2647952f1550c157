// SPDX-License-Identifier: AGPL-3.0-or-later
// Several servers on one database: each background job (outbox relay, hold reaper, order reconciler) is run by
// one instance at a time (store::JobLease), so a webhook subscriber gets each event once and not once per
// instance, and a killed instance's job is taken over by another within seconds; and two servers never share
// one listening port by accident.
#include "serverprocess.h"
#include "testserver.h"
#include "webhooksink.h"

#include "store/database.h"
#include "store/joblease.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <functional>
#include <iostream>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

bool eventually(const std::function<bool()> &condition, int milliseconds = 30000)
{
    QDeadlineTimer deadline(milliseconds);
    while (!deadline.hasExpired()) {
        if (condition())
            return true;
        QThread::msleep(20);
    }
    return condition();
}

QList<qint64> insertEvents(TestServer &server, int count)
{
    QList<qint64> ids;
    QSqlQuery query(server.context().database.connection());
    query.prepare(QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) "
                                 "SELECT 'test.fleet', 'fleet', jsonb_build_object('n', n) FROM generate_series(1, ?) AS n RETURNING event_id"));
    query.addBindValue(count);
    if (!query.exec()) {
        ADD_FAILURE() << query.lastError().text().toStdString();
        return ids;
    }
    while (query.next())
        ids << query.value(0).toLongLong();
    return ids;
}

/** @brief The application names (marquee-<pid>-<thread>) of the sessions holding @p job's lease. */
QStringList leaseHolders(TestServer &server, store::FleetJob job)
{
    QStringList names;
    QSqlQuery query(server.context().database.connection());
    query.prepare(QStringLiteral("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                                 "WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                                 "AND l.classid = 19793 AND l.objid = ? AND l.objsubid = 2"));
    query.addBindValue(int(job));
    if (!query.exec())
        ADD_FAILURE() << query.lastError().text().toStdString();
    while (query.next())
        names << query.value(0).toString();
    return names;
}

/** @brief How many times each event id was acknowledged by the subscriber. */
QHash<qint64, int> acknowledgements(WebhookSink &sink)
{
    QHash<qint64, int> counts;
    for (qint64 id : sink.acknowledged())
        ++counts[id];
    return counts;
}

} // namespace

TEST(Fleet, LeaseIsHeldByOneSessionAndPassesOnWhenItEnds)
{
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000;
    TestServer server(options);
    const store::Database &database = server.context().database;

    // Two "instances": two threads, each with its own connection (as two processes would have).
    std::atomic<int> step{0};
    std::atomic<bool> firstHeld{false}, secondHeldWhileFirstLives{true}, secondTookOver{false}, firstStillHeldAfterRecheck{false};
    std::thread first([&] {
        store::JobLease lease(database, store::FleetJob::OrderReconciler);
        firstHeld = lease.holdOrTake();
        firstStillHeldAfterRecheck = lease.holdOrTake(); // checking again neither loses nor stacks it
        step = 1;
        while (step < 2)
            QThread::msleep(5);
        database.closeThreadConnection(); // the session ends without a word, as a killed process's would
        step = 3;
    });
    std::thread second([&] {
        store::JobLease lease(database, store::FleetJob::OrderReconciler);
        while (step < 1)
            QThread::msleep(5);
        secondHeldWhileFirstLives = lease.holdOrTake();
        step = 2;
        while (step < 3)
            QThread::msleep(5);
        secondTookOver = eventually([&] { return lease.holdOrTake(); }, 10000);
        lease.release();
        database.closeThreadConnection();
    });
    first.join();
    second.join();
    EXPECT_TRUE(firstHeld);
    EXPECT_TRUE(firstStillHeldAfterRecheck);
    EXPECT_FALSE(secondHeldWhileFirstLives) << "two sessions held one job's lease";
    EXPECT_TRUE(secondTookOver) << "the lease did not pass on after its session ended";
    EXPECT_TRUE(leaseHolders(server, store::FleetJob::OrderReconciler).isEmpty()) << "release() did not let it go";
}

TEST(Fleet, ThreeInstancesDeliverEachEventOnceAndSurviveTheKillOfTheDeliveringOne)
{
    // The in-process server provides the migrated database and inserts the events; it has no webhook subscriber,
    // so it never takes the relay's lease.
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000;
    TestServer setup(options);
    WebhookSink sink(0);

    std::vector<std::unique_ptr<ServerProcess>> instances;
    for (int i = 0; i < 3; ++i)
        instances.push_back(std::make_unique<ServerProcess>(
            setup.databaseUrl(), freePort(), setup.dataDirectory(),
            QStringList{QStringLiteral("--event-webhook"), sink.url(), QStringLiteral("--relay-interval-ms"), QStringLiteral("50"),
                        QStringLiteral("--reconciler-interval-ms"), QStringLiteral("100")}));
    for (auto &instance : instances)
        ASSERT_TRUE(instance->waitReady()) << instance->output().constData();

    const QList<qint64> before = insertEvents(setup, 150);
    ASSERT_EQ(before.size(), 150);
    ASSERT_TRUE(eventually([&] {
        const auto counts = acknowledgements(sink);
        for (qint64 id : before)
            if (!counts.contains(id))
                return false;
        return true;
    })) << sink.acknowledged().size() << " acknowledged";
    QThread::msleep(300); // a second deliverer, if there were one, would show up now
    {
        const auto counts = acknowledgements(sink);
        int duplicated = 0;
        for (qint64 id : before)
            duplicated += counts.value(id) > 1;
        EXPECT_EQ(duplicated, 0) << "events delivered more than once by a healthy fleet";
    }

    // One instance holds each lease; the relay's holder is one of the three.
    const QStringList relayHolders = leaseHolders(setup, store::FleetJob::OutboxRelay);
    ASSERT_EQ(relayHolders.size(), 1) << relayHolders.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(leaseHolders(setup, store::FleetJob::OrderReconciler).size(), 1);
    EXPECT_EQ(leaseHolders(setup, store::FleetJob::HoldReaper).size(), 1);
    int deliverer = -1;
    for (int i = 0; i < 3; ++i)
        if (relayHolders[0].startsWith(QStringLiteral("marquee-%1-").arg(instances[i]->process().processId())))
            deliverer = i;
    ASSERT_GE(deliverer, 0) << "the relay lease is not held by one of the instances: " << relayHolders[0].toStdString();

    // Kill the delivering instance while events keep coming: another takes the relay over and nothing is lost.
    const QList<qint64> during = insertEvents(setup, 50);
    instances[deliverer]->kill9();
    QElapsedTimer sinceKill;
    sinceKill.start();
    const QList<qint64> after = insertEvents(setup, 100);
    QList<qint64> all = before + during + after;
    ASSERT_TRUE(eventually([&] {
        const auto counts = acknowledgements(sink);
        for (qint64 id : all)
            if (!counts.contains(id))
                return false;
        return true;
    })) << "events lost after the kill";
    const qint64 takeoverMs = sinceKill.elapsed();
    EXPECT_LT(takeoverMs, 10000) << "the relay was taken over too slowly";
    std::cout << "[          ] every event delivered " << takeoverMs << " ms after the kill of the delivering instance\n";

    const QStringList newHolders = leaseHolders(setup, store::FleetJob::OutboxRelay);
    ASSERT_EQ(newHolders.size(), 1);
    EXPECT_NE(newHolders[0], relayHolders[0]);
    EXPECT_EQ(leaseHolders(setup, store::FleetJob::OrderReconciler).size(), 1);
    // At least once: an event being delivered at the kill may arrive twice (the subscriber dedupes by X-Event-Id),
    // never more than the one in flight.
    const auto counts = acknowledgements(sink);
    int duplicated = 0;
    for (qint64 id : all)
        duplicated += counts.value(id) > 1;
    EXPECT_LE(duplicated, 1);
}

TEST(Fleet, ASecondServerOnAPortInUseRefusesToStart)
{
    TestServer::Options options;
    options.reaperIntervalMs = 3600 * 1000;
    TestServer setup(options);
    const quint16 port = freePort();
    ServerProcess first(setup.databaseUrl(), port, setup.dataDirectory());
    ASSERT_TRUE(first.waitReady()) << first.output().constData();

    // Same user, same port: SO_REUSEPORT alone would let the kernel split the connections between the two.
    ServerProcess second(setup.databaseUrl(), port, setup.dataDirectory());
    ASSERT_TRUE(second.process().waitForFinished(30000)) << "the second server kept running on a port in use";
    EXPECT_NE(second.process().exitCode(), 0);
    EXPECT_TRUE(second.output().contains("another process is already listening there")) << second.output().constData();

    // The first one still serves every request.
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(client.get("/readyz").status, 200);
        client.disconnect();
    }
}
