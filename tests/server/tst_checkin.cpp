// SPDX-License-Identifier: AGPL-3.0-or-later
// Check-in: every result, nonce replay, first scan wins under concurrency, a scan racing a cancellation, bad input,
// key rotation.
#include "testserver.h"

#include "core/isotime.h"
#include "core/keyseal.h"
#include "core/ticketcodec.h"
#include "store/database.h"
#include "store/ticketrepository.h"

#include <QCoreApplication>
#include <QFile>
#include <QSqlQuery>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QUuid>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <thread>

using namespace marquee;
using namespace marquee::test;

namespace {

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

struct Booked {
    QString bookingId;
    QList<store::IssuedTicket> tickets;
};

Booked book(TestServer &server, qint64 showId, const QStringList &seats)
{
    Booked booked{uuid(), {}};
    QSqlDatabase db = server.context().database.connection();
    store::Transaction transaction(db);
    const auto tickets = server.context().tickets.issueTickets(db, booked.bookingId, showId, seats);
    EXPECT_TRUE(tickets);
    EXPECT_TRUE(transaction.commit());
    if (tickets)
        booked.tickets = *tickets;
    return booked;
}

QJsonObject scan(const QString &qr, const QString &nonce, const QDateTime &at = QDateTime::currentDateTimeUtc())
{
    return QJsonObject{{QStringLiteral("qr"), qr}, {QStringLiteral("nonce"), nonce}, {QStringLiteral("scanned_at"), toIsoUtc(at)}};
}

QString checkinState(TestServer &server)
{
    return server.scalar(QStringLiteral("SELECT (SELECT count(*) FROM checkins) || '/' || (SELECT count(*) FROM checkin_firsts)")).toString();
}

/** @brief A show starting in an hour: its tickets are valid now (doors opened two hours ago). */
qint64 showStartingSoon(TestServer &server)
{
    return server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600), QDateTime::currentDateTimeUtc().addSecs(-60));
}

} // namespace

TEST(Checkin, FirstScanIsOkLaterScansAreAlreadyRedeemed)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    auto door = server.client(server.deviceToken(QStringLiteral("till")));

    const QDateTime firstAt = QDateTime::currentDateTimeUtc().addSecs(-30);
    const HttpResult first = door->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid(), firstAt));
    ASSERT_EQ(first.status, 200) << first.body.constData();
    const QJsonObject body = first.json();
    EXPECT_EQ(body[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    const QJsonObject ticket = body[QStringLiteral("ticket")].toObject();
    EXPECT_EQ(ticket[QStringLiteral("ticket_id")].toString(), booked.tickets[0].ticketId);
    EXPECT_EQ(ticket[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_EQ(ticket[QStringLiteral("seat_id")].toString(), QStringLiteral("A1"));
    EXPECT_TRUE(ticket[QStringLiteral("screen")].toString().startsWith(QStringLiteral("Screen ")));
    EXPECT_TRUE(fromIso(ticket[QStringLiteral("starts_at")].toString()).isValid());
    EXPECT_EQ(fromIso(body[QStringLiteral("first_scanned_at")].toString()).toSecsSinceEpoch(), firstAt.toSecsSinceEpoch());

    // Another door, another nonce, later: already redeemed, with the time of the first scan. Staff may scan too.
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    const HttpResult again = manager->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid()));
    ASSERT_EQ(again.status, 200);
    EXPECT_EQ(again.json()[QStringLiteral("result")].toString(), QStringLiteral("already_redeemed"));
    EXPECT_EQ(again.json()[QStringLiteral("first_scanned_at")].toString(), body[QStringLiteral("first_scanned_at")].toString());
}

TEST(Checkin, SameNonceGetsTheStoredAnswer)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    auto door = server.client(server.deviceToken());
    const QString nonce = uuid();
    const QJsonObject request = scan(booked.tickets[0].qr, nonce);

    const HttpResult first = door->post("/api/v1/checkin", request);
    ASSERT_EQ(first.status, 200);
    EXPECT_EQ(first.json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    // An offline scanner uploads the same scan again (it never saw the answer): the same answer, not
    // already_redeemed, and nothing new stored.
    const QString before = checkinState(server);
    for (int i = 0; i < 3; ++i) {
        const HttpResult retry = door->post("/api/v1/checkin", request);
        ASSERT_EQ(retry.status, 200);
        EXPECT_EQ(retry.json(), first.json());
    }
    EXPECT_EQ(checkinState(server), before);

    // The same nonce for a different scan is refused and changes nothing.
    const HttpResult reused = door->post("/api/v1/checkin", scan(booked.tickets[1].qr, nonce));
    EXPECT_EQ(reused.status, 422);
    EXPECT_EQ(reused.json()[QStringLiteral("error")].toString(), QStringLiteral("nonce_reused"));
    EXPECT_EQ(checkinState(server), before);
    EXPECT_EQ(door->post("/api/v1/checkin", scan(booked.tickets[1].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
}

TEST(Checkin, RevokedWrongShowAndValidityWindow)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked cancelled = book(server, showId, {QStringLiteral("A1")});
    const Booked kept = book(server, showId, {QStringLiteral("A2")});
    {
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        ASSERT_TRUE(server.context().tickets.revokeTicketsOfBooking(db, cancelled.bookingId, QStringLiteral("cancelled")));
        ASSERT_TRUE(transaction.commit());
    }
    auto door = server.client(server.deviceToken());
    auto resultOf = [&](const QJsonObject &body) {
        const HttpResult r = door->post("/api/v1/checkin", body);
        EXPECT_EQ(r.status, 200) << r.body.constData();
        return r.json()[QStringLiteral("result")].toString();
    };

    EXPECT_EQ(resultOf(scan(cancelled.tickets[0].qr, uuid())), QStringLiteral("revoked"));

    QJsonObject otherDoor = scan(kept.tickets[0].qr, uuid());
    otherDoor.insert(QStringLiteral("show_id"), showId + 1);
    EXPECT_EQ(resultOf(otherDoor), QStringLiteral("wrong_show"));

    // Scanned (offline) five hours before the start: doors had not opened.
    EXPECT_EQ(resultOf(scan(kept.tickets[0].qr, uuid(), QDateTime::currentDateTimeUtc().addSecs(-4 * 3600))), QStringLiteral("not_yet_valid"));

    // None of these redeemed the ticket: the right door now admits it.
    QJsonObject rightDoor = scan(kept.tickets[0].qr, uuid());
    rightDoor.insert(QStringLiteral("show_id"), showId);
    EXPECT_EQ(resultOf(rightDoor), QStringLiteral("ok"));

    // A show that ended (started 3 h ago, 100 min long).
    const qint64 past = server.createShow(1, 2, QDateTime::currentDateTimeUtc().addSecs(-3 * 3600), QDateTime::currentDateTimeUtc().addDays(-1));
    const Booked late = book(server, past, {QStringLiteral("A1")});
    // The door above is of the first show's venue (the only one when it was enrolled): the past show's venue needs
    // a door of its own, or one of no venue (enrolled now, among two venues).
    EXPECT_EQ(resultOf(scan(late.tickets[0].qr, uuid())), QStringLiteral("wrong_venue"));
    door = server.client(server.deviceToken());
    EXPECT_EQ(resultOf(scan(late.tickets[0].qr, uuid())), QStringLiteral("expired"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM checkin_firsts")).toInt(), 1);
}

TEST(Checkin, ForgedAndForeignCodes)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    auto door = server.client(server.deviceToken());
    const auto verified = TicketCodec::verify(booked.tickets[0].qr, {});
    ASSERT_EQ(verified.result, TicketCheck::UnknownKey);

    // Signed by an attacker's key under the venue's key id (a seat upgrade): invalid signature.
    const auto attacker = TicketCodec::generateKeyPair();
    TicketPayload forged = verified.payload;
    forged.seatId = QStringLiteral("B4");
    const HttpResult bad = door->post("/api/v1/checkin", scan(TicketCodec::sign(forged, attacker->privateKey), uuid()));
    ASSERT_EQ(bad.status, 200);
    EXPECT_EQ(bad.json()[QStringLiteral("result")].toString(), QStringLiteral("invalid_signature"));
    EXPECT_TRUE(bad.json()[QStringLiteral("ticket")].isNull());

    // Under a key id nobody published: unknown key.
    forged.keyId = 999999;
    const HttpResult unknown = door->post("/api/v1/checkin", scan(TicketCodec::sign(forged, attacker->privateKey), uuid()));
    EXPECT_EQ(unknown.json()[QStringLiteral("result")].toString(), QStringLiteral("unknown_key"));

    // A correctly signed code for a ticket that was never committed (its transaction rolled back): not valid.
    QString ghostQr;
    {
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        const auto ghost = server.context().tickets.issueTickets(db, uuid(), showId, {QStringLiteral("A2")});
        ASSERT_TRUE(ghost);
        ghostQr = ghost->first().qr;
    }
    EXPECT_EQ(door->post("/api/v1/checkin", scan(ghostQr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("revoked"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM checkin_firsts")).toInt(), 0);

    // The genuine one still works.
    EXPECT_EQ(door->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
}

TEST(Checkin, BadInputIsRefusedAndChangesNothing)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    const QString qr = booked.tickets[0].qr;
    auto door = server.client(server.deviceToken());
    const QString before = checkinState(server);

    auto expectError = [&](int status, const QByteArray &body, const QString &code) {
        const HttpResult r = door->request("POST", "/api/v1/checkin", body, {{"Content-Type", "application/json"}});
        EXPECT_EQ(r.status, status) << body.constData() << " -> " << r.body.constData();
        EXPECT_EQ(r.json()[QStringLiteral("error")].toString(), code) << body.constData();
        EXPECT_FALSE(r.json()[QStringLiteral("message")].toString().isEmpty());
    };
    const QByteArray now = toIsoUtc(QDateTime::currentDateTimeUtc()).toLatin1();
    expectError(400, "{not json", QStringLiteral("malformed_json"));
    expectError(400, "[1,2]", QStringLiteral("invalid_body"));
    const QByteArray goodQr = qr.toLatin1();
    const HttpResult missing = door->post("/api/v1/checkin", QJsonObject{{QStringLiteral("nonce"), uuid()}, {QStringLiteral("scanned_at"), QString::fromLatin1(now)}});
    EXPECT_EQ(missing.status, 400);
    const HttpResult wrongType = door->post("/api/v1/checkin", QJsonObject{{QStringLiteral("qr"), 42}, {QStringLiteral("nonce"), uuid()}, {QStringLiteral("scanned_at"), QString::fromLatin1(now)}});
    EXPECT_EQ(wrongType.status, 400);
    expectError(400, "{\"qr\":\"" + goodQr + "\",\"nonce\":\"n1\",\"scanned_at\":\"yesterday\"}", QStringLiteral("invalid_scanned_at"));
    expectError(400, "{\"qr\":\"" + goodQr + "\",\"nonce\":\"n1\",\"scanned_at\":\"2026-01-01T10:00:00\"}", QStringLiteral("invalid_scanned_at"));
    expectError(400, "{\"qr\":\"" + goodQr + "\",\"nonce\":\"n1\",\"scanned_at\":\"" + toIsoUtc(QDateTime::currentDateTimeUtc().addDays(1)).toLatin1() + "\"}",
                QStringLiteral("invalid_scanned_at"));
    expectError(400, "{\"qr\":\"MQ1.garbage.garbage\",\"nonce\":\"n1\",\"scanned_at\":\"" + now + "\"}", QStringLiteral("malformed_qr"));
    expectError(400, "{\"qr\":\"" + goodQr.left(goodQr.size() - 3) + "\",\"nonce\":\"n1\",\"scanned_at\":\"" + now + "\"}", QStringLiteral("malformed_qr"));
    const HttpResult badShow = door->post("/api/v1/checkin", QJsonObject{{QStringLiteral("qr"), qr}, {QStringLiteral("nonce"), uuid()},
                                                                         {QStringLiteral("scanned_at"), QString::fromLatin1(now)}, {QStringLiteral("show_id"), QStringLiteral("7")}});
    EXPECT_EQ(badShow.status, 400);
    const HttpResult longNonce = door->post("/api/v1/checkin", scan(qr, QString(129, QLatin1Char('n'))));
    EXPECT_EQ(longNonce.status, 400);
    const HttpResult anonymous = server.client()->post("/api/v1/checkin", scan(qr, uuid()));
    EXPECT_EQ(anonymous.status, 401);
    EXPECT_EQ(anonymous.json()[QStringLiteral("error")].toString().isEmpty(), false);
    EXPECT_EQ(checkinState(server), before);
}

TEST(Checkin, ConcurrentScansOfOneTicketAdmitExactlyOnce)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    constexpr int kDoors = 8;
    QStringList tokens;
    for (int i = 0; i < kDoors; ++i)
        tokens << server.deviceToken();
    std::atomic<int> ok{0};
    std::atomic<int> redeemed{0};
    std::atomic<int> other{0};
    QList<QString> firstTimes(kDoors);
    std::vector<std::thread> threads;
    std::atomic<bool> go{false};
    for (int i = 0; i < kDoors; ++i) {
        threads.emplace_back([&, i] {
            auto client = server.client(tokens[i]);
            while (!go)
                std::this_thread::yield();
            const HttpResult r = client->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid(), QDateTime::currentDateTimeUtc().addSecs(-i)));
            const QString result = r.json()[QStringLiteral("result")].toString();
            if (result == QLatin1String("ok"))
                ++ok;
            else if (result == QLatin1String("already_redeemed"))
                ++redeemed;
            else
                ++other;
            firstTimes[i] = r.json()[QStringLiteral("first_scanned_at")].toString();
        });
    }
    go = true;
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(ok.load(), 1);
    EXPECT_EQ(redeemed.load(), kDoors - 1);
    EXPECT_EQ(other.load(), 0);
    EXPECT_EQ(QSet<QString>(firstTimes.begin(), firstTimes.end()).size(), 1) << "every answer names the same first scan";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM checkins")).toInt(), kDoors);
}

TEST(Checkin, RotatedKeysKeepVerifyingOldTickets)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked before = book(server, showId, {QStringLiteral("A1")});
    const qint64 venueId = server.scalar(QStringLiteral("SELECT sc.venue_id FROM shows s JOIN screens sc USING (screen_id) WHERE s.show_id = %1").arg(showId)).toLongLong();

    // Rotate with the real admin tool against the server's database.
    QProcess admin;
    admin.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory(), QStringLiteral("keys"),
                 QStringLiteral("rotate"), QStringLiteral("--venue"), QString::number(venueId)});
    ASSERT_TRUE(admin.waitForFinished(60000));
    ASSERT_EQ(admin.exitCode(), 0) << admin.readAllStandardError().constData();
    EXPECT_TRUE(admin.readAllStandardOutput().contains("now signs tickets with key"));

    // A bad venue is refused with a message and a non-zero exit.
    QProcess bad;
    bad.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
              {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory(), QStringLiteral("keys"),
               QStringLiteral("rotate"), QStringLiteral("--venue"), QStringLiteral("999999")});
    ASSERT_TRUE(bad.waitForFinished(60000));
    EXPECT_NE(bad.exitCode(), 0);

    const Booked after = book(server, showId, {QStringLiteral("A2")});
    const auto oldKey = TicketCodec::verify(before.tickets[0].qr, {}).payload.keyId;
    const auto newKey = TicketCodec::verify(after.tickets[0].qr, {}).payload.keyId;
    EXPECT_NE(oldKey, newKey);

    const HttpResult keys = server.client(server.deviceToken())->get("/api/v1/keys");
    ASSERT_EQ(keys.status, 200);
    QHash<quint32, QByteArray> published;
    for (const QJsonValue &key : keys.jsonArray()) {
        published.insert(quint32(key[QStringLiteral("key_id")].toInteger()), QByteArray::fromBase64(key[QStringLiteral("public_key")].toString().toLatin1()));
        EXPECT_EQ(key[QStringLiteral("venue_id")].toInteger(), venueId);
        EXPECT_EQ(key[QStringLiteral("signing")].toBool(), key[QStringLiteral("key_id")].toInteger() == newKey);
    }
    EXPECT_EQ(published.size(), 2);
    EXPECT_EQ(TicketCodec::verify(before.tickets[0].qr, published).result, TicketCheck::Ok);
    EXPECT_EQ(TicketCodec::verify(after.tickets[0].qr, published).result, TicketCheck::Ok);

    auto door = server.client(server.deviceToken());
    EXPECT_EQ(door->post("/api/v1/checkin", scan(before.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    EXPECT_EQ(door->post("/api/v1/checkin", scan(after.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
}

namespace {
/** @brief The venue's signing seed, as an attacker who got the KEK and the database would have it. */
QByteArray stolenSigningKey(TestServer &server, quint32 keyId)
{
    QFile kekFile(server.dataDirectory() + QStringLiteral("/signing-kek"));
    if (!kekFile.open(QIODevice::ReadOnly))
        return {};
    const QByteArray kek = kekFile.readAll();
    QSqlQuery q(server.context().database.connection());
    q.prepare(QStringLiteral("SELECT venue_id, public_key, private_key_sealed FROM signing_keys WHERE key_id = ?"));
    q.addBindValue(qint64(keyId));
    if (!q.exec() || !q.next())
        return {};
    return KeySeal::open(kek, q.value(2).toByteArray(), store::TicketRepository::sealContext(q.value(0).toLongLong(), q.value(1).toByteArray()))
        .value_or(QByteArray());
}
} // namespace

TEST(Checkin, RealTicketReSignedForAnotherSeatShowOrWindowIsRefused)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const qint64 otherShow = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    const TicketPayload genuine = TicketCodec::verify(booked.tickets[0].qr, {}).payload;
    const QByteArray key = stolenSigningKey(server, genuine.keyId);
    ASSERT_EQ(key.size(), TicketCodec::kKeyBytes);
    ASSERT_EQ(TicketCodec::sign(genuine, key), booked.tickets[0].qr) << "the stolen key is the one that signed";

    TicketPayload otherSeat = genuine;
    otherSeat.seatId = QStringLiteral("B4");
    TicketPayload otherShowCode = genuine;
    otherShowCode.showId = otherShow;
    TicketPayload longerWindow = genuine;
    longerWindow.validUntil += 24 * 3600;
    const std::vector<std::pair<const char *, TicketPayload>> forgeries = {
        {"another seat", otherSeat}, {"another show", otherShowCode}, {"another window", longerWindow}};

    auto door = server.client(server.deviceToken(QStringLiteral("till")));
    auto staff = server.client(server.staffToken(QStringLiteral("manager")));
    for (const auto &[what, payload] : forgeries) {
        const QString qr = TicketCodec::sign(payload, key);
        ASSERT_EQ(TicketCodec::verify(qr, {{genuine.keyId, TicketCodec::publicKeyOf(key)}}).result, TicketCheck::Ok) << what;
        for (HttpClient *client : {door.get(), staff.get()}) {
            const QString nonce = uuid();
            const HttpResult r = client->post("/api/v1/checkin", scan(qr, nonce));
            ASSERT_EQ(r.status, 200) << what << r.body.constData();
            EXPECT_EQ(r.json()[QStringLiteral("result")].toString(), QStringLiteral("invalid_signature")) << what;
            EXPECT_EQ(r.json()[QStringLiteral("reason")].toString(), QStringLiteral("record_mismatch")) << what;
            EXPECT_TRUE(r.json()[QStringLiteral("ticket")].isNull()) << what;
            // Stored with the check-ins, on the ticket it pretended to be.
            EXPECT_EQ(server.scalar(QStringLiteral("SELECT result || '/' || ticket_id FROM checkins WHERE nonce = '%1'").arg(nonce)).toString(),
                      QStringLiteral("invalid_signature/") + booked.tickets[0].ticketId)
                << what;
        }
    }
    // Audited like the other refusals (staff scans are), with the reason.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.checkin' "
                                           "AND details->>'result' = 'invalid_signature' AND details->>'reason' = 'record_mismatch'"))
                  .toLongLong(),
              qint64(forgeries.size()));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM checkin_firsts")).toInt(), 0) << "nobody got in";

    // The genuine code still admits.
    EXPECT_EQ(door->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
}

// Keys are scoped to their venue. A device of venue A is given A's keys only (and its venue, for its offline
// verifier), a session at no device every venue's, a device of no venue among several none, a caller without a
// token nothing; and A's door refuses B's ticket, genuinely signed with B's key, without spending it for B.
TEST(Checkin, EachVenuesDevicesGetItsKeysOnlyAndItsDoorsRefuseAnotherVenuesTickets)
{
    TestServer server;
    const qint64 showA = showStartingSoon(server);
    const qint64 showB = showStartingSoon(server);
    const Booked atA = book(server, showA, {QStringLiteral("A1")});
    const Booked atB = book(server, showB, {QStringLiteral("A1")});
    auto venueOf = [&](qint64 show) {
        return server.scalar(QStringLiteral("SELECT sc.venue_id FROM shows s JOIN screens sc USING (screen_id) WHERE s.show_id = %1").arg(show)).toLongLong();
    };
    const qint64 venueA = venueOf(showA);
    const qint64 venueB = venueOf(showB);
    ASSERT_NE(venueA, venueB);
    const auto keyOf = [](const Booked &booked) { return qint64(TicketCodec::verify(booked.tickets[0].qr, {}).payload.keyId); };

    // Two venues: a device is enrolled with none, and marquee-admin gives it one.
    auto deviceOf = [&](qint64 venue) {
        const QString token = server.deviceToken(QStringLiteral("till"));
        const QString name = server.scalar(QStringLiteral("SELECT name FROM devices ORDER BY device_id DESC LIMIT 1")).toString();
        if (venue) {
            QProcess admin;
            admin.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                        {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("device"), QStringLiteral("venue"),
                         QStringLiteral("--name"), name, QStringLiteral("--venue"), QString::number(venue)});
            EXPECT_TRUE(admin.waitForFinished(60000));
            EXPECT_EQ(admin.exitCode(), 0) << admin.readAllStandardError().constData();
        }
        return server.client(token);
    };
    auto doorA = deviceOf(venueA);
    auto doorB = deviceOf(venueB);
    auto unassigned = deviceOf(0);

    const HttpResult keysA = doorA->get("/api/v1/keys");
    ASSERT_EQ(keysA.status, 200) << keysA.body.constData();
    EXPECT_EQ(keysA.header("Marquee-Venue-Id"), QByteArray::number(venueA));
    QSet<qint64> idsA;
    for (const QJsonValue &key : keysA.jsonArray()) {
        EXPECT_EQ(key[QStringLiteral("venue_id")].toInteger(), venueA);
        idsA.insert(key[QStringLiteral("key_id")].toInteger());
    }
    EXPECT_TRUE(idsA.contains(keyOf(atA)));
    EXPECT_FALSE(idsA.contains(keyOf(atB))) << "no key of another venue";

    const HttpResult none = unassigned->get("/api/v1/keys");
    ASSERT_EQ(none.status, 200);
    EXPECT_TRUE(none.jsonArray().isEmpty()) << none.body.constData();
    EXPECT_TRUE(none.header("Marquee-Venue-Id").isEmpty());
    const HttpResult desk = server.client(server.staffToken(QStringLiteral("manager")))->get("/api/v1/keys");
    ASSERT_EQ(desk.status, 200);
    QSet<qint64> venues;
    for (const QJsonValue &key : desk.jsonArray())
        venues.insert(key[QStringLiteral("venue_id")].toInteger());
    EXPECT_EQ(venues, (QSet<qint64>{venueA, venueB})) << "a session at no device: every venue's keys";
    EXPECT_EQ(server.client()->get("/api/v1/keys").status, 401);

    // A's door: B's genuine ticket is for another venue, recorded as such and not spent; B's door admits it.
    const QString nonce = uuid();
    const QJsonObject foreign = scan(atB.tickets[0].qr, nonce);
    const HttpResult refused = doorA->post("/api/v1/checkin", foreign);
    ASSERT_EQ(refused.status, 200) << refused.body.constData();
    EXPECT_EQ(refused.json()[QStringLiteral("result")].toString(), QStringLiteral("wrong_venue"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT result FROM checkins WHERE nonce = '%1'").arg(nonce)).toString(), QStringLiteral("wrong_venue"));
    EXPECT_EQ(doorA->post("/api/v1/checkin", foreign).body, refused.body) << "the stored answer on a retry";
    EXPECT_EQ(doorB->post("/api/v1/checkin", scan(atB.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
    EXPECT_EQ(doorA->post("/api/v1/checkin", scan(atA.tickets[0].qr, uuid())).json()[QStringLiteral("result")].toString(), QStringLiteral("ok"));
}

TEST(Checkin, AScanDuringACancellationWaitsForItAndFindsTheTicketRevoked)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1")});
    const QString door = server.deviceToken(QStringLiteral("till"));
    // A cancellation in progress, as BookingRepository::cancel runs it: the booking's tickets locked, then revoked,
    // not yet committed.
    QSqlDatabase db = server.context().database.connection();
    store::Transaction cancellation(db);
    ASSERT_TRUE(cancellation.isActive());
    QSqlQuery lock(db);
    ASSERT_TRUE(lock.exec(QStringLiteral("SELECT 1 FROM tickets WHERE booking_id = '%1'::uuid ORDER BY ticket_id FOR UPDATE").arg(booked.bookingId)));
    QSqlQuery revoke(db);
    ASSERT_TRUE(revoke.exec(QStringLiteral("UPDATE tickets SET state = 'revoked', revoked_at = now() WHERE booking_id = '%1'::uuid").arg(booked.bookingId)));

    std::atomic<bool> answered{false};
    QString result;
    std::thread scanner([&] {
        auto client = server.client(door);
        const HttpResult r = client->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid()));
        result = r.json()[QStringLiteral("result")].toString();
        answered = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    EXPECT_FALSE(answered.load()) << "the scan waits for the cancellation that holds its ticket";
    EXPECT_TRUE(cancellation.commit());
    scanner.join();
    // Read before the cancellation committed, the ticket was valid: the scan must not admit it now.
    EXPECT_EQ(result, QStringLiteral("revoked"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM checkin_firsts")).toInt(), 0);
}

// The door's refusals and answers, byte for byte (scanners parse them and replay queued scans): a code that is no
// ticket, a nonce reused for another scan, and the answers of a first scan, a later one and a replay, with the
// ticket ids and instants masked.
TEST(CheckinWire, RefusalsAndAnswersArePinnedByteForByte)
{
    TestServer server;
    const qint64 showId = showStartingSoon(server);
    const Booked booked = book(server, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    auto door = server.client(server.deviceToken(QStringLiteral("till")));
    const auto wire = [&](const HttpResult &result) {
        QString body = QString::fromUtf8(result.body);
        static const QRegularExpression id(QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
        static const QRegularExpression instant(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"));
        body.replace(id, QStringLiteral("<uuid>")).replace(instant, QStringLiteral("<time>"));
        body.replace(QStringLiteral("\"show_id\":%1").arg(showId), QStringLiteral("\"show_id\":<show>"));
        body.replace(QRegularExpression(QStringLiteral("\"screen\":\"Screen \\d+\"")), QStringLiteral("\"screen\":\"<screen>\""));
        body.replace(QRegularExpression(QStringLiteral("\"(venue|movie|title)\":\"[^\"]*\"")), QStringLiteral("\"\\1\":\"<name>\""));
        return (QByteArray::number(result.status) + '\n' + result.header("Content-Type") + '\n' + body.toUtf8()).toStdString();
    };
    const QString nonce = uuid();
    EXPECT_EQ(wire(door->post("/api/v1/checkin", scan(QStringLiteral("MQ1.garbage.garbage"), uuid()))),
              "400\napplication/json\n" R"({"error":"malformed_qr","message":"This is not a Marquee ticket code (MQ1.<payload>.<signature>, or MQ2. for a ticket a till signed)."})");
    const QJsonObject request = scan(booked.tickets[0].qr, nonce);
    const HttpResult first = door->post("/api/v1/checkin", request);
    ASSERT_EQ(first.status, 200) << first.body.constData();
    const std::string admitted = wire(first);
    EXPECT_EQ(admitted, "200\napplication/json\n"
                        R"({"first_scanned_at":"<time>","result":"ok","ticket":{"screen":"<screen>","seat_id":"A1","show_id":<show>,"starts_at":"<time>","ticket_id":"<uuid>"}})");
    EXPECT_EQ(wire(door->post("/api/v1/checkin", request)), admitted) << "a replay is the first answer";
    EXPECT_EQ(wire(door->post("/api/v1/checkin", scan(booked.tickets[1].qr, nonce))),
              "422\napplication/json\n" R"({"error":"nonce_reused","message":"This nonce was already used for a different scan."})");
    EXPECT_EQ(wire(door->post("/api/v1/checkin", scan(booked.tickets[0].qr, uuid()))),
              "200\napplication/json\n"
              R"({"first_scanned_at":"<time>","result":"already_redeemed","ticket":{"screen":"<screen>","seat_id":"A1","show_id":<show>,"starts_at":"<time>","ticket_id":"<uuid>"}})");
}
