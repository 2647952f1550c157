// SPDX-License-Identifier: AGPL-3.0-or-later
// Several servers on one database: each background job (outbox relay, hold reaper, order reconciler) is run by
// one instance at a time (store::JobLease), so a webhook subscriber gets each event once and not once per
// instance, and an expired hold is reaped and announced once; a killed instance's job is taken over by another
// within seconds; two servers never share one listening port by accident; and a server whose key-encryption key
// is not the fleet's refuses to start.
#include "serverprocess.h"
#include "testserver.h"
#include "webhooksink.h"

#include "store/database.h"
#include "store/joblease.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
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

TEST(Fleet, ThreeInstancesReapEachExpiredHoldOnceAndTheReaperPassesOnWhenItsInstanceIsKilled)
{
    // The in-process server places the holds (they expire after a second) and reaps nothing itself: it has no
    // reaper, so it never takes the reaper's lease.
    TestServer setup(TestServer::Options::withHolds(1, 0));
    const qint64 showId = setup.createShow(10, 12);
    auto client = setup.client(setup.deviceToken());
    auto placeHolds = [&](int firstRow, int rows) {
        QStringList holdIds;
        for (int r = firstRow; r < firstRow + rows; ++r) {
            const QString row(QChar(u'A' + r));
            for (int s = 1; s <= 12; s += 2) {
                const HttpResult hold = client->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                                     QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{row + QString::number(s), row + QString::number(s + 1)}}});
                EXPECT_EQ(hold.status, 200) << hold.body.constData();
                holdIds << hold.json().value(QStringLiteral("hold_id")).toString();
            }
        }
        return holdIds;
    };
    const auto expiredEvents = [&](const QStringList &holdIds) {
        // hold id → how many hold.expired events name it
        QHash<QString, int> counts;
        QSqlQuery query(setup.context().database.connection());
        query.exec(QStringLiteral("SELECT aggregate_id, count(*) FROM outbox WHERE event_type = 'hold.expired' GROUP BY 1"));
        while (query.next())
            counts.insert(query.value(0).toString(), query.value(1).toInt());
        int missing = 0, repeated = 0;
        for (const QString &id : holdIds) {
            missing += counts.value(id) == 0;
            repeated += counts.value(id) > 1;
        }
        return std::make_pair(missing, repeated);
    };
    const auto allSwept = [&](const QStringList &holdIds) {
        return setup.scalar(QStringLiteral("SELECT count(*) FROM holds WHERE show_id = %1 AND swept_at IS NULL").arg(showId)).toInt() == 0
            && expiredEvents(holdIds).first == 0;
    };

    const QStringList first = placeHolds(0, 4); // 24 holds of two seats
    ASSERT_EQ(first.size(), 24);
    std::vector<std::unique_ptr<ServerProcess>> instances;
    for (int i = 0; i < 3; ++i)
        instances.push_back(std::make_unique<ServerProcess>(setup.databaseUrl(), freePort(), setup.dataDirectory(),
                                                            QStringList{QStringLiteral("--reaper-interval-ms"), QStringLiteral("50")}));
    for (auto &instance : instances)
        ASSERT_TRUE(instance->waitReady()) << instance->output().constData();
    ASSERT_TRUE(eventually([&] { return allSwept(first); })) << "expired holds not reaped";
    QThread::msleep(300); // a second reaper, if there were one, would have had its turns
    EXPECT_EQ(expiredEvents(first).second, 0) << "an expired hold reaped (and announced) more than once";
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status <> 'available'").arg(showId)).toInt(), 0);

    const QStringList reapers = leaseHolders(setup, store::FleetJob::HoldReaper);
    ASSERT_EQ(reapers.size(), 1) << reapers.join(QLatin1Char(' ')).toStdString();
    int reaper = -1;
    for (int i = 0; i < 3; ++i)
        if (reapers[0].startsWith(QStringLiteral("marquee-%1-").arg(instances[i]->process().processId())))
            reaper = i;
    ASSERT_GE(reaper, 0) << "the reaper lease is not held by one of the instances: " << reapers[0].toStdString();

    // The reaping instance dies: another takes the reaper over, and the next holds are reaped once each too.
    instances[reaper]->kill9();
    QElapsedTimer sinceKill;
    sinceKill.start();
    const QStringList second = placeHolds(4, 4);
    ASSERT_EQ(second.size(), 24);
    ASSERT_TRUE(eventually([&] { return allSwept(second); })) << "expired holds not reaped after the reaper's instance was killed";
    EXPECT_LT(sinceKill.elapsed(), 10000) << "the reaper was taken over too slowly";
    QThread::msleep(300);
    EXPECT_EQ(expiredEvents(first + second).second, 0) << "an expired hold reaped more than once after the takeover";
    const QStringList newReapers = leaseHolders(setup, store::FleetJob::HoldReaper);
    ASSERT_EQ(newReapers.size(), 1);
    EXPECT_NE(newReapers[0], reapers[0]);
}

TEST(Fleet, AServerWithAnotherKeyEncryptionKeyRefusesToStartEvenBeforeAnyTicketWasSigned)
{
    // A fresh database: no signing key exists yet, so only the check the first server left can tell the KEKs apart.
    TestServer::Options options;
    options.reaperIntervalMs = 0;
    TestServer setup(options);
    ASSERT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM signing_keys")).toInt(), 0);
    ASSERT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM key_encryption_check")).toInt(), 1);

    QTemporaryDir otherDirectory; // its own signing-kek, created on start: another key
    ServerProcess other(setup.databaseUrl(), freePort(), otherDirectory.path());
    ASSERT_TRUE(other.process().waitForFinished(30000)) << "a server with another KEK kept running";
    EXPECT_NE(other.process().exitCode(), 0);
    const QByteArray output = other.output();
    EXPECT_TRUE(output.contains("key-encryption key is not the one the other servers of this database use")) << output.constData();
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM key_encryption_check")).toInt(), 1);

    // The same KEK file: starts and is ready.
    QFile::copy(setup.dataDirectory() + QStringLiteral("/signing-kek"), otherDirectory.path() + QStringLiteral("/signing-kek.copy"));
    QFile::remove(otherDirectory.path() + QStringLiteral("/signing-kek"));
    QFile::rename(otherDirectory.path() + QStringLiteral("/signing-kek.copy"), otherDirectory.path() + QStringLiteral("/signing-kek"));
    QFile::setPermissions(otherDirectory.path() + QStringLiteral("/signing-kek"), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ServerProcess same(setup.databaseUrl(), freePort(), otherDirectory.path());
    EXPECT_TRUE(same.waitReady()) << same.output().constData();
}
