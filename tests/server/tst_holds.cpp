// SPDX-License-Identifier: AGPL-3.0-or-later
// Integration tests of seat holds: the all-or-nothing claim, every rejection, reading and
// releasing, Idempotency-Key semantics and hold expiry, over real HTTP against a real PostgreSQL.
#include "servertesthelpers.h"

#include "store/database.h"

#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>
#include <functional>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

const QStringList kTwoSeats{QStringLiteral("A2"), QStringLiteral("A3")};

QByteArray holdUrl(const QString &holdId)
{
    return "/api/v1/holds/" + holdId.toLatin1();
}

QString ownerOf(TestServer &server, const QString &token)
{
    return server.context().auth.authenticate(token)->owner();
}

/** @brief Poll @p condition until it holds or @p seconds pass; for states that arrive eventually (expiry, sweeps). */
bool eventually(const std::function<bool()> &condition, int seconds = 15)
{
    QDeadlineTimer deadline(seconds * 1000);
    while (!deadline.hasExpired()) {
        if (condition())
            return true;
        QThread::msleep(50);
    }
    return condition();
}

/**
 * @brief Ends every connection of the server's database but the test's own, as a database restart, a failover or
 * an idle timeout would, and waits until those backends are gone: pg_terminate_backend only signals, and a request
 * racing a backend's exit fails on a link that is still dying (nothing can tell that one apart beforehand).
 */
bool endServerConnections(TestServer &server)
{
    const QString backends = server.scalar(QStringLiteral("SELECT string_agg(pid::text, ',') FROM pg_stat_activity "
                                                          " WHERE datname = current_database() AND pid <> pg_backend_pid()"))
                                 .toString();
    if (backends.isEmpty())
        return false;
    server.scalar(QStringLiteral("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid IN (%1)").arg(backends));
    return eventually([&] {
        return server.scalar(QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE pid IN (%1)").arg(backends)).toInt() == 0;
    });
}
} // namespace

TEST(Holds, PlaceReadAndRelease)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 10);
    const QString tokenA = server.deviceToken();
    auto a = server.client(tokenA);
    auto b = server.client(server.deviceToken());

    // Seats come back in canonical order, whatever order the request named them in.
    const HttpResult placed = a->post(holdPath(showId), seatsBody({QStringLiteral("B1"), QStringLiteral("A3"), QStringLiteral("A10")}));
    ASSERT_EQ(placed.status, 200) << placed.body.constData();
    const QJsonObject hold = placed.json();
    const QString holdId = hold[QStringLiteral("hold_id")].toString();
    EXPECT_FALSE(QUuid::fromString(holdId).isNull()) << qPrintable(holdId);
    EXPECT_EQ(hold[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_EQ(stringList(hold[QStringLiteral("seat_ids")]), (QStringList{QStringLiteral("A10"), QStringLiteral("A3"), QStringLiteral("B1")}));
    const QDateTime expiresAt = QDateTime::fromString(hold[QStringLiteral("expires_at")].toString(), Qt::ISODateWithMs);
    ASSERT_TRUE(expiresAt.isValid());
    // Default TTL is 8 minutes (generous bounds: this checks the setting, not the speed).
    EXPECT_GT(expiresAt, QDateTime::currentDateTimeUtc().addSecs(7 * 60));
    EXPECT_LT(expiresAt, QDateTime::currentDateTimeUtc().addSecs(9 * 60));

    // The table agrees: exactly these seats, held by this hold, owned by this device.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(seat_id, ',' ORDER BY seat_id) FROM show_seats WHERE held_by = '%1' AND status = 'held'")
                                .arg(holdId))
                  .toString(),
              QStringLiteral("A10,A3,B1"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT owner FROM holds WHERE hold_id = '%1'").arg(holdId)).toString(), ownerOf(server, tokenA));
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 3);

    const HttpResult read = a->get(holdUrl(holdId));
    ASSERT_EQ(read.status, 200) << read.body.constData();
    EXPECT_EQ(read.json()[QStringLiteral("state")].toString(), QStringLiteral("active"));
    EXPECT_EQ(read.json()[QStringLiteral("hold_id")].toString(), holdId);
    EXPECT_EQ(read.json()[QStringLiteral("seat_ids")], hold[QStringLiteral("seat_ids")]);
    EXPECT_EQ(read.json()[QStringLiteral("expires_at")].toString(), hold[QStringLiteral("expires_at")].toString());

    // Another device cannot see or release it, and trying changes nothing.
    const QString before = databaseState(server);
    EXPECT_API_ERROR(b->get(holdUrl(holdId)), 404, "hold_not_found");
    EXPECT_API_ERROR(b->del(holdUrl(holdId)), 404, "hold_not_found");
    EXPECT_API_ERROR(a->get(holdUrl(QUuid::createUuid().toString(QUuid::WithoutBraces))), 404, "hold_not_found");
    EXPECT_API_ERROR(a->del(holdUrl(QUuid::createUuid().toString(QUuid::WithoutBraces))), 404, "hold_not_found");
    EXPECT_API_ERROR(a->get(holdUrl(QStringLiteral("not-a-uuid"))), 404, "hold_not_found");
    EXPECT_EQ(databaseState(server), before);
    EXPECT_EQ(b->post(holdPath(showId), seatsBody({QStringLiteral("A3")})).status, 409);
    // A staff session is another owner too (signing in is a write of its own, so compare after it).
    auto staff = server.client(server.staffToken());
    const QString withSession = databaseState(server);
    EXPECT_API_ERROR(staff->del(holdUrl(holdId)), 404, "hold_not_found");
    EXPECT_API_ERROR(staff->get(holdUrl(holdId)), 404, "hold_not_found");
    EXPECT_EQ(databaseState(server), withSession);

    // Release: at once, and idempotent.
    const HttpResult released = a->del(holdUrl(holdId));
    ASSERT_EQ(released.status, 200) << released.body.constData();
    EXPECT_EQ(released.json()[QStringLiteral("state")].toString(), QStringLiteral("released"));
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1'").arg(holdId)).toInt(), 0);
    const QString afterRelease = databaseState(server);
    EXPECT_EQ(a->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(databaseState(server), afterRelease);
    EXPECT_EQ(a->get(holdUrl(holdId)).json()[QStringLiteral("state")].toString(), QStringLiteral("released"));

    // The released seats are available to anyone again.
    const QMap<QString, QString> statuses = seatStatuses(*b, showId);
    EXPECT_EQ(statuses.value(QStringLiteral("A3")), QStringLiteral("available"));
    const HttpResult again = b->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A10"), QStringLiteral("B1")}));
    ASSERT_EQ(again.status, 200) << again.body.constData();
    EXPECT_NE(again.json()[QStringLiteral("hold_id")].toString(), holdId);
    // Releasing the old hold once more must not touch the new holder's seats.
    EXPECT_EQ(a->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 3);
}

TEST(Holds, ConflictIsAllOrNothing)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 8);
    auto a = server.client(server.deviceToken());
    auto b = server.client(server.deviceToken());
    ASSERT_EQ(a->post(holdPath(showId), seatsBody(kTwoSeats)).status, 200);
    const QString before = databaseState(server);

    const HttpResult refused = b->post(holdPath(showId), seatsBody({QStringLiteral("A4"), QStringLiteral("A3"), QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_API_ERROR(refused, 409, "seats_unavailable");
    // Exactly the taken seats are named, and none of the free ones was held.
    EXPECT_EQ(stringList(refused.json()[QStringLiteral("held_seats")]), kTwoSeats);
    EXPECT_EQ(databaseState(server), before);
    const QMap<QString, QString> statuses = seatStatuses(*b, showId);
    EXPECT_EQ(statuses.value(QStringLiteral("A1")), QStringLiteral("available"));
    EXPECT_EQ(statuses.value(QStringLiteral("A4")), QStringLiteral("available"));

    // Also when only one of several is taken, and when the caller already holds it itself.
    const HttpResult one = b->post(holdPath(showId), seatsBody({QStringLiteral("A5"), QStringLiteral("A3")}));
    EXPECT_EQ(one.status, 409);
    EXPECT_EQ(stringList(one.json()[QStringLiteral("held_seats")]), QStringList{QStringLiteral("A3")});
    const HttpResult own = a->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A6")}));
    EXPECT_EQ(own.status, 409);
    EXPECT_EQ(stringList(own.json()[QStringLiteral("held_seats")]), QStringList{QStringLiteral("A2")});
    EXPECT_EQ(databaseState(server), before);

    // The free seats can then be held.
    const HttpResult rest = b->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A4")}));
    EXPECT_EQ(rest.status, 200) << rest.body.constData();
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 4);
}

TEST(Holds, RejectsBadRequestsAndChangesNothing)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 8);
    auto client = server.client(server.deviceToken());
    const QByteArray path = holdPath(showId);
    const QString before = databaseState(server);
    const QList<QPair<QByteArray, QByteArray>> keyed{{"Idempotency-Key", "bad-input-key"}};

    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": [\"A1\""), 400, "malformed_json");
    EXPECT_API_ERROR(client->request("POST", path, "", keyed), 400, "malformed_json");
    EXPECT_API_ERROR(client->request("POST", path, "[\"A1\"]"), 400, "invalid_body");
    EXPECT_API_ERROR(client->request("POST", path, "{}", keyed), 400, "missing_field");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": null}"), 400, "missing_field");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seats\": [\"A1\"]}"), 400, "missing_field");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": \"A1\"}"), 400, "invalid_type");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": [1, 2]}"), 400, "invalid_type");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": [\"A1\", {\"id\": \"A2\"}]}"), 400, "invalid_type");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": [\"\"]}"), 400, "invalid_type");
    EXPECT_API_ERROR(client->request("POST", path, "{\"seat_ids\": []}", keyed), 400, "empty_seat_ids");
    EXPECT_API_ERROR(client->post(path, seatsBody({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A1")})), 400, "duplicate_seat_ids");

    QStringList eleven;
    for (int i = 1; i <= 8; ++i)
        eleven << QStringLiteral("A%1").arg(i);
    eleven << QStringLiteral("B1") << QStringLiteral("B2") << QStringLiteral("B3");
    EXPECT_API_ERROR(client->post(path, seatsBody(eleven), keyed), 400, "too_many_seats");

    const HttpResult unknown = client->post(path, seatsBody({QStringLiteral("A1"), QStringLiteral("Z99"), QStringLiteral("A2")}), keyed);
    EXPECT_API_ERROR(unknown, 400, "unknown_seat");
    EXPECT_EQ(stringList(unknown.json()[QStringLiteral("unknown_seats")]), QStringList{QStringLiteral("Z99")});
    EXPECT_EQ(databaseState(server), before);
    // A seat of another show is unknown in this one.
    const qint64 otherShow = server.createShow(3, 9);
    const QString beforeOther = databaseState(server);
    EXPECT_API_ERROR(client->post(path, seatsBody({QStringLiteral("C9")})), 400, "unknown_seat");

    EXPECT_API_ERROR(client->post("/api/v1/shows/777777/hold", seatsBody({QStringLiteral("A1")}), keyed), 404, "show_not_found");
    EXPECT_API_ERROR(client->post("/api/v1/shows/abc/hold", seatsBody({QStringLiteral("A1")})), 400, "invalid_id");
    EXPECT_API_ERROR(client->post(path, seatsBody({QStringLiteral("A1")}), {{"Idempotency-Key", QByteArray(256, 'k')}}), 400,
                     "invalid_idempotency_key");
    EXPECT_EQ(databaseState(server), beforeOther);
    EXPECT_EQ(seatsInStatus(server, showId, "held") + seatsInStatus(server, otherShow, "held"), 0);

    // The limits are inclusive: ten seats and a 255-character key are fine.
    eleven.removeLast();
    const HttpResult ten = client->post(path, seatsBody(eleven), {{"Idempotency-Key", QByteArray(255, 'k')}});
    EXPECT_EQ(ten.status, 200) << ten.body.constData();
    EXPECT_EQ(stringList(ten.json()[QStringLiteral("seat_ids")]).size(), 10);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 10);
}

TEST(Holds, PerHoldLimitIsConfigurable)
{
    TestServer::Options options;
    options.maxSeatsPerHold = 2;
    TestServer server(options);
    const qint64 showId = server.createShow(1, 5);
    auto client = server.client(server.deviceToken());
    EXPECT_API_ERROR(client->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")})), 400,
                     "too_many_seats");
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
    EXPECT_EQ(client->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")})).status, 200);
}

TEST(Holds, SalesWindow)
{
    TestServer server;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qint64 started = server.createShow(1, 4, now.addSecs(-3600));
    const qint64 notOpen = server.createShow(1, 4, now.addDays(2), now.addSecs(3600));
    const qint64 closed = server.createShow(1, 4, now.addDays(1));
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE shows SET sales_close_at = now() - interval '1 minute' WHERE show_id = %1 RETURNING 1").arg(closed)).isValid());
    auto client = server.client(server.deviceToken());
    const QString before = databaseState(server);

    for (const qint64 show : {started, notOpen, closed}) {
        const HttpResult refused = client->post(holdPath(show), seatsBody({QStringLiteral("A1")}));
        EXPECT_API_ERROR(refused, 422, "sales_closed");
        if (show == notOpen) {
            EXPECT_TRUE(refused.json()[QStringLiteral("message")].toString().contains(QStringLiteral("not opened"))) << refused.body.constData();
        }
    }
    EXPECT_EQ(databaseState(server), before);

    // Once the window opens, the same request goes through.
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE shows SET sales_open_at = now() - interval '1 minute' WHERE show_id = %1 RETURNING 1").arg(notOpen)).isValid());
    EXPECT_EQ(client->post(holdPath(notOpen), seatsBody({QStringLiteral("A1")})).status, 200);
}

TEST(Holds, IdempotencyKeyReplaysTheStoredResponse)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 8);
    const QString token = server.deviceToken();
    auto client = server.client(token);
    const QList<QPair<QByteArray, QByteArray>> key{{"Idempotency-Key", "order-7f3a"}};

    const HttpResult first = client->post(holdPath(showId), seatsBody(kTwoSeats), key);
    ASSERT_EQ(first.status, 200) << first.body.constData();
    const QString state = databaseState(server);
    // The same request again, and with the seats in another order (same meaning): the stored answer.
    const HttpResult retry = client->post(holdPath(showId), seatsBody(kTwoSeats), key);
    EXPECT_EQ(retry.status, 200);
    EXPECT_EQ(retry.json(), first.json());
    const HttpResult reordered = client->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A2")}), key);
    EXPECT_EQ(reordered.status, 200);
    EXPECT_EQ(reordered.json()[QStringLiteral("hold_id")], first.json()[QStringLiteral("hold_id")]);
    EXPECT_EQ(databaseState(server), state);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 1);

    // The same key with another body: refused, nothing held.
    EXPECT_API_ERROR(client->post(holdPath(showId), seatsBody({QStringLiteral("A5")}), key), 422, "idempotency_key_reused");
    EXPECT_EQ(databaseState(server), state);
    EXPECT_EQ(seatStatuses(*client, showId).value(QStringLiteral("A5")), QStringLiteral("available"));

    // Keys belong to their caller: another device's identical key is a different request.
    auto other = server.client(server.deviceToken());
    const HttpResult otherFirst = other->post(holdPath(showId), seatsBody({QStringLiteral("A5")}), key);
    EXPECT_EQ(otherFirst.status, 200) << otherFirst.body.constData();

    // A stored refusal is replayed too, even after the seats became free.
    const QList<QPair<QByteArray, QByteArray>> conflictKey{{"Idempotency-Key", "conflict-1"}};
    const HttpResult conflict = other->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A4")}), conflictKey);
    ASSERT_EQ(conflict.status, 409);
    ASSERT_EQ(client->del(holdUrl(first.json()[QStringLiteral("hold_id")].toString())).status, 200);
    const HttpResult conflictRetry = other->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A4")}), conflictKey);
    EXPECT_EQ(conflictRetry.status, 409);
    EXPECT_EQ(conflictRetry.json(), conflict.json());

    // The released hold's key still replays its original answer (it does not hold the seats again). A refusal
    // decided from memory (the 409 above) reaches idempotency_keys through the fast path's background journal:
    // wait for it, or the snapshot below races that write (seen in CI).
    ASSERT_TRUE(eventually([&] { return server.scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys WHERE key = 'conflict-1'")).toInt() == 1; }));
    const QString afterRelease = databaseState(server);
    const HttpResult replayReleased = client->post(holdPath(showId), seatsBody(kTwoSeats), key);
    EXPECT_EQ(replayReleased.json()[QStringLiteral("hold_id")], first.json()[QStringLiteral("hold_id")]);
    EXPECT_EQ(databaseState(server), afterRelease);

    // After 24 hours the key is forgotten: the same key and body are processed anew.
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' "
                                             "WHERE key = 'order-7f3a' AND owner = '%1' RETURNING 1")
                                  .arg(ownerOf(server, token)))
                    .isValid());
    const HttpResult anew = client->post(holdPath(showId), seatsBody(kTwoSeats), key);
    ASSERT_EQ(anew.status, 200) << anew.body.constData();
    EXPECT_NE(anew.json()[QStringLiteral("hold_id")], first.json()[QStringLiteral("hold_id")]);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 3);
    // ... and the fresh answer is what the key replays from now on, with a fresh expiry.
    EXPECT_EQ(client->post(holdPath(showId), seatsBody(kTwoSeats), key).json(), anew.json());
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT expires_at > now() + interval '23 hours' FROM idempotency_keys WHERE key = 'order-7f3a' AND owner = '%1'")
                                .arg(ownerOf(server, token)))
                  .toBool(),
              true);
}

TEST(Holds, RetryWhileInFlightGets409)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    const QString token = server.deviceToken();
    auto client = server.client(token);
    const QString owner = ownerOf(server, token);
    const QString key = QStringLiteral("in-flight-key");

    // Stand in for the first request: its transaction holds the key's advisory lock until it commits.
    store::Database blocker(server.databaseConfig());
    {
        QSqlDatabase db = blocker.connection();
        ASSERT_TRUE(db.isOpen()) << qPrintable(db.lastError().text());
        ASSERT_TRUE(db.transaction());
        QSqlQuery lock(db);
        ASSERT_TRUE(lock.prepare(QStringLiteral("SELECT pg_advisory_xact_lock(hashtextextended(? || E'\\x1f' || ?, 7))")));
        lock.addBindValue(owner);
        lock.addBindValue(key);
        ASSERT_TRUE(lock.exec()) << qPrintable(lock.lastError().text());

        const QString before = databaseState(server);
        const HttpResult busy = client->post(holdPath(showId), seatsBody({QStringLiteral("A1")}), {{"Idempotency-Key", key.toLatin1()}});
        EXPECT_API_ERROR(busy, 409, "request_in_progress");
        EXPECT_EQ(databaseState(server), before);
        // Another key of the same caller, and the same key of another caller, are not blocked.
        EXPECT_EQ(client->post(holdPath(showId), seatsBody({QStringLiteral("A2")}), {{"Idempotency-Key", "another-key"}}).status, 200);
        EXPECT_EQ(server.client(server.deviceToken())->post(holdPath(showId), seatsBody({QStringLiteral("A3")}), {{"Idempotency-Key", key.toLatin1()}}).status,
                  200);
        ASSERT_TRUE(db.rollback());
    }
    blocker.closeThreadConnection();

    // Once the first request is done, the retry is processed (nothing was stored for the refused one).
    const HttpResult retry = client->post(holdPath(showId), seatsBody({QStringLiteral("A1")}), {{"Idempotency-Key", key.toLatin1()}});
    EXPECT_EQ(retry.status, 200) << retry.body.constData();
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 3);
}

TEST(Holds, WithoutKeyHoldsWorkButAreNotDeduplicated)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    auto client = server.client(server.deviceToken());
    const HttpResult first = client->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(first.status, 200);
    // The identical request is a new request: the seat is taken (by the first one), so it is refused.
    const HttpResult second = client->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_EQ(second.status, 409);
    ASSERT_EQ(client->del(holdUrl(first.json()[QStringLiteral("hold_id")].toString())).status, 200);
    const HttpResult third = client->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(third.status, 200);
    EXPECT_NE(third.json()[QStringLiteral("hold_id")], first.json()[QStringLiteral("hold_id")]);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys")).toInt(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 2);
}

TEST(Holds, ExpiredHoldFreesSeatsBeforeAnySweep)
{
    // No sweep during this test: the claim itself must see the expiry.
    TestServer server(TestServer::Options::withHolds(1, 3600 * 1000));
    const qint64 showId = server.createShow(1, 6);
    auto a = server.client(server.deviceToken());
    auto b = server.client(server.deviceToken());
    // The reaper sweeps once when it starts; let that pass before placing the hold.
    QThread::msleep(200);

    const HttpResult placed = a->post(holdPath(showId), seatsBody(kTwoSeats));
    ASSERT_EQ(placed.status, 200) << placed.body.constData();
    const QString holdId = placed.json()[QStringLiteral("hold_id")].toString();
    const QDateTime expiresAt = QDateTime::fromString(placed.json()[QStringLiteral("expires_at")].toString(), Qt::ISODateWithMs);
    EXPECT_LE(expiresAt, QDateTime::currentDateTimeUtc().addSecs(2));
    EXPECT_EQ(b->post(holdPath(showId), seatsBody(kTwoSeats)).status, 409);

    ASSERT_TRUE(eventually([&] { return a->get(holdUrl(holdId)).json()[QStringLiteral("state")].toString() == QLatin1String("expired"); }));
    EXPECT_GE(QDateTime::currentDateTimeUtc(), expiresAt);
    // The seat map reports them free (its snapshot is refreshed at least every 200 ms)...
    ASSERT_TRUE(eventually([&] {
        const QMap<QString, QString> statuses = seatStatuses(*b, showId);
        return statuses.value(QStringLiteral("A2")) == QLatin1String("available") && statuses.value(QStringLiteral("A3")) == QLatin1String("available");
    }));
    // ... while the rows still say held: no sweep has run.
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 2);

    const HttpResult taken = b->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A2"), QStringLiteral("A4")}));
    ASSERT_EQ(taken.status, 200) << taken.body.constData();
    const QString newHold = taken.json()[QStringLiteral("hold_id")].toString();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1'").arg(newHold)).toInt(), 3);
    EXPECT_EQ(a->get(holdUrl(holdId)).json()[QStringLiteral("state")].toString(), QStringLiteral("expired"));
    // Releasing the expired hold late succeeds and leaves the new holder's seats alone.
    EXPECT_EQ(a->del(holdUrl(holdId)).status, 200);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1' AND status = 'held'").arg(newHold)).toInt(), 3);
}

TEST(Holds, ReaperSweepsExpiredHolds)
{
    TestServer server(TestServer::Options::withHolds(1, 50));
    const qint64 showId = server.createShow(1, 6);
    auto a = server.client(server.deviceToken());
    const HttpResult placed = a->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")}));
    ASSERT_EQ(placed.status, 200) << placed.body.constData();
    const QString holdId = placed.json()[QStringLiteral("hold_id")].toString();
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 3);

    ASSERT_TRUE(eventually([&] { return seatsInStatus(server, showId, "held") == 0; }));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE held_by = '%1' OR hold_expires_at IS NOT NULL").arg(holdId)).toInt(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'hold.expired' AND aggregate_id = '%1'").arg(holdId)).toInt(), 1);
    EXPECT_EQ(a->get(holdUrl(holdId)).json()[QStringLiteral("state")].toString(), QStringLiteral("expired"));
}

TEST(Holds, ReaperSurvivesALostDatabaseConnection)
{
    TestServer server(TestServer::Options::withHolds(1, 50));
    const qint64 showId = server.createShow(1, 4);
    // Let the reaper open its connection, then cut every connection of the server (as a database restart or
    // an idle timeout would). The reaper must reconnect on its own, not fail forever.
    QThread::msleep(300);
    ASSERT_TRUE(endServerConnections(server));
    auto client = server.client(server.deviceToken());
    const HttpResult placed = client->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}));
    ASSERT_EQ(placed.status, 200) << placed.body.constData();
    EXPECT_TRUE(eventually([&] { return seatsInStatus(server, showId, "held") == 0; })) << "the reaper never swept again";
}

TEST(Holds, EveryWorkerAnswersAtOnceAfterTheDatabaseEndedItsIdleConnections)
{
    TestServer server;
    const qint64 showId = server.createShow(4, 10);
    const QString token = server.deviceToken();
    // The worker threads open their connections at start. End every one of them (a database restart, a failover,
    // an idle timeout) and wait until those backends are gone, so that each worker holds a connection that looks
    // open to Qt but is closed.
    ASSERT_TRUE(endServerConnections(server));
    // Fresh clients spread over the workers; not one request may fail for the connection its worker lost.
    QStringList holdIds;
    for (int row = 0; row < 4; ++row) {
        for (int number = 1; number <= 10; ++number) {
            auto client = server.client(token);
            const QString seat = QStringLiteral("%1%2").arg(QChar(u'A' + row)).arg(number);
            const HttpResult placed = client->post(holdPath(showId), seatsBody({seat}));
            ASSERT_EQ(placed.status, 200) << qPrintable(seat) << " " << placed.body.constData();
            const QString holdId = placed.json()[QStringLiteral("hold_id")].toString();
            const HttpResult read = server.client(token)->get(holdUrl(holdId));
            ASSERT_EQ(read.status, 200) << read.body.constData();
            holdIds << holdId;
        }
    }
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 40);
    EXPECT_EQ(holdIds.size(), 40);
}

TEST(Holds, ATokenThatCannotBeCheckedForAnUnreachableDatabaseGets503NotUnauthorized)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    const QString token = server.deviceToken(); // never used yet: not in the server's token cache
    // The database refuses new connections and has ended the server's: nothing can check the token. A 401 would
    // tell the kiosk its token is revoked (and a till signs its cashier out); the truth is "try again".
    const QString database = server.scalar(QStringLiteral("SELECT current_database()")).toString();
    // PostgreSQL does not let a connection shut its own database: this is done from the maintenance database.
    store::DatabaseConfig maintenanceConfig = server.context().database.config();
    maintenanceConfig.database = QStringLiteral("postgres");
    const store::Database maintenance(maintenanceConfig);
    const auto allowConnections = [&](bool allow) {
        QSqlQuery alter(maintenance.connection());
        return alter.exec(QStringLiteral("ALTER DATABASE \"%1\" ALLOW_CONNECTIONS %2").arg(database, allow ? u"true" : u"false"));
    };
    ASSERT_TRUE(allowConnections(false));
    ASSERT_TRUE(endServerConnections(server));
    for (int attempt = 0; attempt < 4; ++attempt)
        EXPECT_API_ERROR(server.client(token)->post(holdPath(showId), seatsBody({QStringLiteral("A1")})), 503, "unavailable");

    ASSERT_TRUE(allowConnections(true));
    maintenance.closeThreadConnection();
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0) << "nothing was held while the token could not be checked";
    const HttpResult placed = server.client(token)->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_EQ(placed.status, 200) << placed.body.constData();
}

TEST(Holds, CommitModeIsAnOptionAndNeverLeaksIntoTheConnectionsOtherTransactions)
{
    QString error;
    EXPECT_TRUE(ServerConfig::fromArguments({}, &error)->asyncHoldCommit) << "async is the default";
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--hold-commit"), QStringLiteral("sync")}, &error)->asyncHoldCommit);
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--hold-commit"), QStringLiteral("maybe")}, &error).has_value());
    EXPECT_TRUE(error.contains(QStringLiteral("--hold-commit"))) << qPrintable(error);
    EXPECT_EQ(ServerConfig::fromArguments({}, &error)->holdBatchSize, 64);
    EXPECT_EQ(ServerConfig::fromArguments({QStringLiteral("--hold-batch-size"), QStringLiteral("8")}, &error)->holdBatchSize, 8);
    for (const char *outOfRange : {"0", "65", "x"}) {
        error.clear();
        EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--hold-batch-size"), QString::fromLatin1(outOfRange)}, &error).has_value()) << outOfRange;
        EXPECT_TRUE(error.contains(QStringLiteral("--hold-batch-size"))) << qPrintable(error);
    }

    for (const bool async : {true, false}) {
        TestServer::Options options;
        options.configure = [async](ServerConfig &config) { config.asyncHoldCommit = async; };
        TestServer server(options);
        const qint64 showId = server.createShow(1, 4);
        // The repository on this thread's connection, as a worker thread uses it.
        const store::HoldDecision placed = server.context().holds.placeHold(QStringLiteral("device:commit-mode"), {}, "hash", showId,
                                                                            {QStringLiteral("A1")}, 60);
        ASSERT_TRUE(placed.ok);
        EXPECT_EQ(placed.verdict, store::HoldVerdict::Granted);
        EXPECT_EQ(seatsInStatus(server, showId, "held"), 1);
        // set_config(..., true) ended with the hold's transaction: orders and payments on this connection still
        // wait for their flush.
        QSqlQuery show(server.context().database.connection());
        ASSERT_TRUE(show.exec(QStringLiteral("SHOW synchronous_commit")) && show.next());
        EXPECT_EQ(show.value(0).toString(), QStringLiteral("on")) << (async ? "async" : "sync");
    }
}
