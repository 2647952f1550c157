// SPDX-License-Identifier: AGPL-3.0-or-later
// The outbox feed and relay: ordered and resumable, never skipping an event whose transaction
// commits late; webhook delivery at least once with retries and signatures; the notification spool.
#include "testserver.h"
#include "webhooksink.h"

#include "core/tokenhash.h"
#include "core/ticketcodec.h"
#include "jobs/outboxrelay.h"
#include "store/database.h"
#include "store/eventrepository.h"
#include "store/ticketrepository.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <QUuid>
#include <atomic>
#include <functional>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

using namespace marquee;
using namespace marquee::test;

namespace {

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

bool eventually(const std::function<bool()> &condition, int seconds = 30)
{
    QDeadlineTimer deadline(seconds * 1000);
    while (!deadline.hasExpired()) {
        if (condition())
            return true;
        QThread::msleep(20);
    }
    return condition();
}

qint64 insertEvent(QSqlDatabase db, const QString &type)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) VALUES (?, 'test', '{\"n\":1}') RETURNING event_id"));
    query.addBindValue(type);
    if (!query.exec() || !query.next()) {
        ADD_FAILURE() << query.lastError().text().toStdString();
        return 0;
    }
    return query.value(0).toLongLong();
}

/** @brief A second connection to @p config's database, named @p name, beside the server's own: a writer or
 *  publisher whose transaction the test keeps open. Check isOpen(); remove it with QSqlDatabase::removeDatabase. */
QSqlDatabase openSecondConnection(const store::DatabaseConfig &config, const QString &name)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
    db.setHostName(config.host);
    db.setPort(config.port);
    db.setDatabaseName(config.database);
    db.setUserName(config.user);
    db.setPassword(config.password);
    db.open();
    return db;
}

/** @brief Read the whole feed from @p after to its current end, page by page; returns the event ids in order. */
QList<qint64> readFeed(HttpClient &client, qint64 *cursor, int pageSize = 2)
{
    QList<qint64> ids;
    for (;;) {
        const HttpResult page = client.get("/api/v1/events?after=" + QByteArray::number(*cursor) + "&limit=" + QByteArray::number(pageSize));
        EXPECT_EQ(page.status, 200) << page.body.constData();
        if (page.status != 200)
            return ids;
        const QJsonArray events = page.json()[QStringLiteral("events")].toArray();
        for (const QJsonValue &event : events)
            ids << event[QStringLiteral("event_id")].toInteger();
        const qint64 next = page.json()[QStringLiteral("next_cursor")].toInteger();
        if (events.isEmpty()) {
            EXPECT_EQ(next, *cursor);
            return ids;
        }
        EXPECT_GT(next, *cursor);
        *cursor = next;
    }
}

} // namespace

TEST(Events, FeedIsOrderedResumableAndValidated)
{
    TestServer server;
    auto client = server.client(server.staffToken(QStringLiteral("manager"))); // the whole feed: a manager's
    QSqlDatabase db = server.context().database.connection();
    QList<qint64> inserted;
    for (int i = 0; i < 5; ++i)
        inserted << insertEvent(db, QStringLiteral("test.event"));

    qint64 cursor = 0;
    const QList<qint64> firstRead = readFeed(*client, &cursor);
    ASSERT_EQ(firstRead, inserted);
    // Resuming from the stored cursor gives nothing old, then exactly what is new.
    EXPECT_TRUE(readFeed(*client, &cursor).isEmpty());
    const qint64 more = insertEvent(db, QStringLiteral("test.event"));
    EXPECT_EQ(readFeed(*client, &cursor), QList<qint64>{more});

    const HttpResult one = client->get("/api/v1/events?after=0&limit=1");
    ASSERT_EQ(one.status, 200);
    const QJsonObject event = one.json()[QStringLiteral("events")].toArray()[0].toObject();
    EXPECT_EQ(event[QStringLiteral("event_id")].toInteger(), inserted[0]);
    EXPECT_EQ(event[QStringLiteral("type")].toString(), QStringLiteral("test.event"));
    EXPECT_EQ(event[QStringLiteral("aggregate_id")].toString(), QStringLiteral("test"));
    EXPECT_EQ(event[QStringLiteral("payload")].toObject()[QStringLiteral("n")].toInt(), 1);
    EXPECT_FALSE(event[QStringLiteral("created_at")].toString().isEmpty());

    for (const QByteArray &bad : {QByteArray("after=-1"), QByteArray("after=abc"), QByteArray("limit=0"), QByteArray("limit=100000"), QByteArray("limit=x")}) {
        const HttpResult r = client->get("/api/v1/events?" + bad);
        EXPECT_EQ(r.status, 400) << bad.constData();
        EXPECT_FALSE(r.json()[QStringLiteral("error")].toString().isEmpty());
    }
    EXPECT_EQ(server.client()->get("/api/v1/events").status, 401);
}

TEST(Events, FeedNeverSkipsAnEventWhoseTransactionCommitsLate)
{
    TestServer server;
    auto client = server.client(server.staffToken(QStringLiteral("manager"))); // the whole feed: a manager's
    const store::DatabaseConfig config = server.databaseConfig();
    const QString name = QStringLiteral("slow-writer-") + uuid();
    qint64 slowId = 0;
    {
        QSqlDatabase slow = openSecondConnection(config, name);
        ASSERT_TRUE(slow.isOpen()) << slow.lastError().text().toStdString();

        // The slow transaction takes the smaller event id first and keeps it uncommitted...
        ASSERT_TRUE(slow.transaction());
        slowId = insertEvent(slow, QStringLiteral("test.slow"));
        // ...while a fast one takes a larger id and commits.
        const qint64 fastId = insertEvent(server.context().database.connection(), QStringLiteral("test.fast"));
        ASSERT_LT(slowId, fastId);

        qint64 cursor = 0;
        QList<qint64> seen = readFeed(*client, &cursor);
        EXPECT_EQ(seen, QList<qint64>{fastId}) << "only committed events are served";

        ASSERT_TRUE(slow.commit());
        seen += readFeed(*client, &cursor);
        // A reader paging by event id would have stepped over slowId for ever; the feed serves it after its commit.
        EXPECT_EQ(seen, (QList<qint64>{fastId, slowId}));

        // And a rolled-back event never appears.
        ASSERT_TRUE(slow.transaction());
        insertEvent(slow, QStringLiteral("test.rolledback"));
        ASSERT_TRUE(slow.rollback());
        const qint64 last = insertEvent(server.context().database.connection(), QStringLiteral("test.last"));
        EXPECT_EQ(readFeed(*client, &cursor), QList<qint64>{last});
        slow.close();
    }
    QSqlDatabase::removeDatabase(name);
}

TEST(Events, ReadQueuesBehindABusyPublisherAndServesWhatCommittedBeforeIt)
{
    // The outbox relay numbers the feed in the background. A reader that arrived while it held the publisher lock
    // used to page at once and miss an event committed before the read began (a CI failure of the test above).
    TestServer server;
    auto client = server.client(server.staffToken(QStringLiteral("manager"))); // the whole feed: a manager's
    const store::DatabaseConfig config = server.databaseConfig();
    const QString name = QStringLiteral("busy-publisher-") + uuid();
    {
        QSqlDatabase busy = openSecondConnection(config, name);
        ASSERT_TRUE(busy.isOpen()) << busy.lastError().text().toStdString();
        // A publisher that has taken the lock and not yet committed (the relay, caught mid-call). It waits for the
        // lock itself: the server's own relay may be publishing at this moment.
        ASSERT_TRUE(busy.transaction());
        QSqlQuery publishing(busy);
        ASSERT_TRUE(publishing.exec(QStringLiteral("SELECT mq_publish_feed(1000, true)")));
        ASSERT_TRUE(publishing.next());
        ASSERT_GE(publishing.value(0).toInt(), 0) << "the test's publisher must hold the lock";

        const qint64 committed = insertEvent(server.context().database.connection(), QStringLiteral("test.committed"));
        std::atomic<bool> readReturned{false};
        QList<qint64> seen;
        std::thread reader([&] {
            qint64 cursor = 0;
            seen = readFeed(*client, &cursor);
            readReturned = true;
        });
        QThread::msleep(300);
        EXPECT_FALSE(readReturned) << "the read must wait for the running publisher instead of paging early";
        ASSERT_TRUE(busy.commit());
        reader.join();
        EXPECT_EQ(seen, QList<qint64>{committed});
        busy.close();
    }
    QSqlDatabase::removeDatabase(name);
}

TEST(Events, RevocationListNeverSkipsALateCommit)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    auto client = server.client(server.deviceToken());
    QStringList bookings;
    for (int i = 0; i < 2; ++i) {
        bookings << uuid();
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        ASSERT_TRUE(server.context().tickets.issueTickets(db, bookings.last(), showId, {QStringLiteral("A%1").arg(i + 1)}));
        ASSERT_TRUE(transaction.commit());
    }
    const store::DatabaseConfig config = server.databaseConfig();
    const QString name = QStringLiteral("slow-revoker-") + uuid();
    {
        QSqlDatabase slow = openSecondConnection(config, name);
        ASSERT_TRUE(slow.isOpen());
        ASSERT_TRUE(slow.transaction());
        ASSERT_TRUE(server.context().tickets.revokeTicketsOfBooking(slow, bookings[0], QStringLiteral("slow")));
        {
            QSqlDatabase db = server.context().database.connection();
            store::Transaction transaction(db);
            ASSERT_TRUE(server.context().tickets.revokeTicketsOfBooking(db, bookings[1], QStringLiteral("fast")));
            ASSERT_TRUE(transaction.commit());
        }
        const HttpResult first = client->get("/api/v1/revocations?after=0");
        ASSERT_EQ(first.status, 200);
        const QJsonArray firstList = first.json()[QStringLiteral("revocations")].toArray();
        ASSERT_EQ(firstList.size(), 1);
        EXPECT_EQ(firstList[0][QStringLiteral("reason")].toString(), QStringLiteral("fast"));
        const qint64 cursor = first.json()[QStringLiteral("next_cursor")].toInteger();
        ASSERT_TRUE(slow.commit());
        const HttpResult second = client->get("/api/v1/revocations?after=" + QByteArray::number(cursor));
        const QJsonArray secondList = second.json()[QStringLiteral("revocations")].toArray();
        ASSERT_EQ(secondList.size(), 1);
        EXPECT_EQ(secondList[0][QStringLiteral("reason")].toString(), QStringLiteral("slow"));
        EXPECT_GT(secondList[0][QStringLiteral("cursor")].toInteger(), cursor);
        slow.close();
    }
    QSqlDatabase::removeDatabase(name);
    EXPECT_EQ(client->get("/api/v1/revocations?after=x").status, 400);
    EXPECT_EQ(server.client()->get("/api/v1/revocations").status, 401);
}

TEST(Events, RelayDeliversEveryEventAtLeastOnceSignedInOrderAndSpoolsTickets)
{
    TestServer server;
    WebhookSink sink(2); // the subscriber is down for the first two attempts
    QTemporaryDir spool;
    ASSERT_TRUE(spool.isValid());

    const qint64 showId = server.createShow(1, 4);
    const QString booking = uuid();
    {
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        ASSERT_TRUE(server.context().tickets.issueTickets(db, booking, showId, {QStringLiteral("A1"), QStringLiteral("A2")}));
        // What the orders code writes when it confirms a booking.
        QSqlQuery confirmed(db);
        confirmed.prepare(QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) VALUES ('booking.confirmed', ?, ?::jsonb)"));
        confirmed.addBindValue(booking);
        confirmed.addBindValue(QStringLiteral("{\"booking_id\":\"%1\",\"email\":\"ana@example.org\"}").arg(booking));
        ASSERT_TRUE(confirmed.exec());
        ASSERT_TRUE(transaction.commit());
    }
    const QList<qint64> expected = [&] {
        QList<qint64> ids;
        QSqlQuery all(server.context().database.connection());
        all.exec(QStringLiteral("SELECT event_id FROM outbox ORDER BY event_id"));
        while (all.next())
            ids << all.value(0).toLongLong();
        return ids;
    }();
    ASSERT_GE(expected.size(), 2);

    jobs::OutboxRelayConfig config;
    config.webhookUrls = {sink.url()};
    config.webhookSecret = "event-secret";
    config.spoolDirectory = spool.path();
    config.intervalMs = 20;
    config.initialBackoffMs = 20;
    config.maxBackoffMs = 100;
    {
        jobs::OutboxRelay relay(server.context().events, server.context().tickets, server.context().database, config);
        relay.start();
        ASSERT_TRUE(eventually([&] { return sink.acknowledged().size() >= expected.size(); })) << sink.requests().size();
        EXPECT_TRUE(eventually([&] { return !QDir(spool.path()).entryList({QStringLiteral("event-*.json")}).isEmpty(); }));
        relay.stopAndWait();
        EXPECT_GE(relay.failures(), 2);
    }
    // Every event, in order, once acknowledged; the failed attempts were retried with the same event first.
    EXPECT_EQ(sink.acknowledged(), expected);
    const QList<WebhookSink::Request> requests = sink.requests();
    EXPECT_EQ(requests[0].eventId, requests[1].eventId);
    EXPECT_EQ(requests[1].eventId, requests[2].eventId);
    for (const WebhookSink::Request &request : requests) {
        EXPECT_EQ(request.signature, "sha256=" + hmacSha256Hex("event-secret", request.body));
        EXPECT_EQ(QJsonDocument::fromJson(request.body).object()[QStringLiteral("event_id")].toInteger(), request.eventId.toLongLong());
    }

    // The spool has one message for the confirmed booking, with verifiable tickets.
    const QStringList files = QDir(spool.path()).entryList({QStringLiteral("event-*.json")});
    ASSERT_EQ(files.size(), 1);
    QFile file(QDir(spool.path()).filePath(files[0]));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject message = QJsonDocument::fromJson(file.readAll()).object();
    EXPECT_EQ(message[QStringLiteral("booking_id")].toString(), booking);
    EXPECT_EQ(message[QStringLiteral("channels")].toArray()[0][QStringLiteral("to")].toString(), QStringLiteral("ana@example.org"));
    const QJsonArray tickets = message[QStringLiteral("tickets")].toArray();
    ASSERT_EQ(tickets.size(), 2);
    QHash<quint32, QByteArray> keys;
    const auto publicKeys = server.context().tickets.publicKeys();
    ASSERT_TRUE(publicKeys);
    for (const auto &key : *publicKeys)
        keys.insert(quint32(key.keyId), key.publicKey);
    for (const QJsonValue &ticket : tickets)
        EXPECT_EQ(TicketCodec::verify(ticket[QStringLiteral("qr")].toString(), keys).result, TicketCheck::Ok);

    // A new relay (a restarted server) resumes from the stored cursors: only the new event is delivered.
    const qint64 later = insertEvent(server.context().database.connection(), QStringLiteral("test.later"));
    {
        jobs::OutboxRelay relay(server.context().events, server.context().tickets, server.context().database, config);
        relay.start();
        ASSERT_TRUE(eventually([&] { return sink.acknowledged().contains(later); }));
        ASSERT_TRUE(eventually([&] {
            return server.scalar(QStringLiteral("SELECT count(*) FROM outbox_deliveries WHERE consumer = 'notification-spool'")).toInt() == expected.size() + 1;
        }));
        relay.stopAndWait();
    }
    QList<qint64> all = expected;
    all << later;
    EXPECT_EQ(sink.acknowledged(), all) << "nothing delivered twice";
    EXPECT_EQ(QDir(spool.path()).entryList({QStringLiteral("event-*.json")}).size(), 1);
}
