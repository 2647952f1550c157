// SPDX-License-Identifier: AGPL-3.0-or-later
// The hold wire, byte for byte: for every outcome of POST /api/v1/shows/{id}/hold, DELETE /api/v1/holds/{id} and a
// sync batch's hold actions, the status, the headers a client reads and the exact body bytes. Devices in the field
// parse these answers (and replay stored ones for 24 hours), so the server's insides may change but not this.
// Only what differs from run to run is masked: hold ids (<uuid>), instants (<time>) and the show id (<show>).
#include "olderschema.h"
#include "servertesthelpers.h"
#include "wiretext.h"

#include "store/database.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUrl>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

/** @brief The answer as the wire carries it, with the run-dependent values masked. */
std::string wire(const HttpResult &result, qint64 showId)
{
    const QByteArray out = wireHead(result);
    QString body = QString::fromUtf8(result.body);
    static const QRegularExpression uuid(QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    static const QRegularExpression instant(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
    body.replace(uuid, QStringLiteral("<uuid>"));
    body.replace(instant, QStringLiteral("<time>"));
    const QString show = QString::number(showId);
    static const QRegularExpression showNumber(QStringLiteral("(\"show_id\": ?|[Ss]how |/queue/)(\\d+)"));
    QString masked;
    qsizetype last = 0;
    for (auto it = showNumber.globalMatch(body); it.hasNext();) {
        const auto match = it.next();
        masked += body.mid(last, match.capturedStart(2) - last);
        masked += match.captured(2) == show ? QStringLiteral("<show>") : match.captured(2);
        last = match.capturedEnd(2);
    }
    masked += body.mid(last);
    return (out + masked.toUtf8()).toStdString();
}

const Headers kNoHeaders;

Headers idempotencyKey(const QByteArray &key)
{
    return {{"Idempotency-Key", key}};
}

QByteArray holdUrl(const QString &holdId)
{
    return "/api/v1/holds/" + holdId.toLatin1();
}

QJsonObject holdAction(qint64 showId, const QStringList &seats, const QString &key)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("hold")},
                       {QStringLiteral("idempotency_key"), key},
                       {QStringLiteral("payload"), QJsonObject{{QStringLiteral("show_id"), showId}, {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}}}};
}

QJsonObject batch(const QJsonArray &actions)
{
    return QJsonObject{{QStringLiteral("actions"), actions}};
}

// The bodies PostgreSQL writes (jsonb's text form: ", " and ": ", keys by length) and those C++ writes (compact,
// keys in byte order).
const std::string kGranted = "200\nContent-Type: application/json\n"
                             R"({"hold_id": "<uuid>", "show_id": <show>, "seat_ids": ["A1", "A2"], "expires_at": "<time>"})";
const std::string kTakenByDatabase = "409\nContent-Type: application/json\n"
                                     R"({"error": "seats_unavailable", "message": "Some of these seats were just taken; none of them is held for you.", "held_seats": ["A2"]})";
const std::string kTakenFromMemory = "409\nContent-Type: application/json\n"
                                     R"({"error":"seats_unavailable","held_seats":["A2"],"message":"Some of these seats were just taken; none of them is held for you."})";
const std::string kKeyReused = "422\nContent-Type: application/json\n"
                               R"({"error": "idempotency_key_reused", "message": "This Idempotency-Key was used with a different request."})";
const std::string kInFlight = "409\nContent-Type: application/json\n"
                              R"({"error": "request_in_progress", "message": "A request with this Idempotency-Key is still being processed."})";
const std::string kSalesClosed = "422\nContent-Type: application/json\n"
                                 R"({"error": "sales_closed", "message": "Sales for this show are closed."})";
const std::string kSalesNotOpen = "422\nContent-Type: application/json\n"
                                  R"({"error": "sales_closed", "message": "Sales for this show have not opened yet."})";
const std::string kShowNotFound = "404\nContent-Type: application/json\n"
                                  R"({"error": "show_not_found", "message": "There is no show with this id."})";
const std::string kUnknownSeat = "400\nContent-Type: application/json\n"
                                 R"({"error": "unknown_seat", "message": "Some seat ids do not exist in this show.", "unknown_seats": ["Z9"]})";

class HoldWire : public ::testing::Test
{
protected:
    /** @brief Every refusal is PostgreSQL's: the snapshot never refuses (see HoldWireFromMemory for that path). */
    HoldWire()
        : server(TestServer::Options::withConfig([](ServerConfig &config) { config.fastRefusals = false; }))
    {
        showId = server.createShow(1, 8);
        token = server.deviceToken();
        kiosk = server.client(token);
    }
    std::string post(const QStringList &seats, const Headers &headers = kNoHeaders, qint64 show = 0)
    {
        return wire(kiosk->post(holdPath(show ? show : showId), seatsBody(seats), headers), showId);
    }
    std::string raw(const QByteArray &path, const QByteArray &body, const Headers &headers = kNoHeaders)
    {
        return wire(kiosk->request("POST", path, body, Headers{{"Content-Type", "application/json"}} + headers), showId);
    }
    std::string sync(const QJsonArray &actions) { return wire(kiosk->post("/api/v1/sync/batch", batch(actions)), showId); }
    QString owner() { return server.context().auth.authenticate(token)->owner(); }

    TestServer server;
    qint64 showId = 0;
    QString token;
    std::unique_ptr<HttpClient> kiosk;
};

} // namespace

TEST_F(HoldWire, GrantedTakenAndReplayed)
{
    const HttpResult first = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), idempotencyKey("wire-1"));
    EXPECT_EQ(wire(first, showId), kGranted);
    // The same request again, and with its seats in another order: the very bytes of the first answer.
    const HttpResult again = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A1")}), idempotencyKey("wire-1"));
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(wire(again, showId), kGranted);
    // The same key with another request.
    EXPECT_EQ(post({QStringLiteral("A5")}, idempotencyKey("wire-1")), kKeyReused);
    // Without a key: seats taken, nothing remembered.
    EXPECT_EQ(post({QStringLiteral("A3"), QStringLiteral("A2")}), kTakenByDatabase);
    // With a key, the refusal is that key's answer, replayed byte for byte even once the seats are free.
    const HttpResult refused = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A3")}), idempotencyKey("wire-2"));
    EXPECT_EQ(wire(refused, showId), kTakenByDatabase);
    const HttpResult release = kiosk->del(holdUrl(first.json().value(QStringLiteral("hold_id")).toString()));
    EXPECT_EQ(wire(release, showId), "200\nContent-Type: application/json\n"
                                     R"({"hold_id":"<uuid>","state":"released"})");
    const HttpResult replayedRefusal = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A3")}), idempotencyKey("wire-2"));
    EXPECT_EQ(replayedRefusal.body, refused.body);
    EXPECT_EQ(wire(replayedRefusal, showId), kTakenByDatabase);
    // The released hold's key still replays its original grant.
    const HttpResult replayedGrant = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), idempotencyKey("wire-1"));
    EXPECT_EQ(replayedGrant.body, first.body);
}

TEST_F(HoldWire, Release)
{
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    const QByteArray url = holdUrl(held.json().value(QStringLiteral("hold_id")).toString());
    const std::string released = "200\nContent-Type: application/json\n"
                                 R"({"hold_id":"<uuid>","state":"released"})";
    EXPECT_EQ(wire(kiosk->del(url), showId), released);
    EXPECT_EQ(wire(kiosk->del(url), showId), released); // again: the same answer, nothing changes
    const std::string notFound = "404\nContent-Type: application/json\n"
                                 R"({"error":"hold_not_found","message":"There is no hold with this id for you."})";
    EXPECT_EQ(wire(kiosk->del(holdUrl(QStringLiteral("4b7c3a4e-0000-4000-8000-000000000000"))), showId), notFound);
    EXPECT_EQ(wire(kiosk->del("/api/v1/holds/not-a-uuid"), showId), notFound);
    EXPECT_EQ(wire(server.client(server.deviceToken())->del(url), showId), notFound); // another caller's hold
    EXPECT_EQ(wire(server.client()->del(url), showId), "401\nContent-Type: application/json\nWWW-Authenticate: Bearer realm=\"marquee\"\n"
                                                       R"({"error":"unauthorized","message":"This call needs an 'Authorization: Bearer <token>' header."})");
}

TEST_F(HoldWire, InFlight)
{
    const QByteArray key = "wire-in-flight";
    store::Database blocker(server.databaseConfig());
    {
        QSqlDatabase db = blocker.connection();
        ASSERT_TRUE(db.isOpen()) << qPrintable(db.lastError().text());
        ASSERT_TRUE(db.transaction());
        QSqlQuery lock(db);
        ASSERT_TRUE(lock.prepare(QStringLiteral("SELECT pg_advisory_xact_lock(hashtextextended(? || E'\\x1f' || ?, 7))")));
        lock.addBindValue(owner());
        lock.addBindValue(QString::fromLatin1(key));
        ASSERT_TRUE(lock.exec()) << qPrintable(lock.lastError().text());
        EXPECT_EQ(post({QStringLiteral("A1")}, idempotencyKey(key)), kInFlight);
        EXPECT_EQ(sync({holdAction(showId, {QStringLiteral("A1")}, QString::fromLatin1(key))}),
                  "200\nContent-Type: application/json\n"
                  R"({"results":[{"body":{"error":"request_in_progress","message":"A request with this Idempotency-Key is still being processed."},"status":409}]})");
        ASSERT_TRUE(db.rollback());
    }
    blocker.closeThreadConnection();
}

TEST_F(HoldWire, SalesWindowAndUnknownShowOrSeat)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qint64 notOpen = server.createShow(1, 4, now.addDays(2), now.addSecs(3600));
    const qint64 closed = server.createShow(1, 4, now.addDays(1));
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE shows SET sales_close_at = now() - interval '1 minute' WHERE show_id = %1 RETURNING 1").arg(closed)).isValid());
    EXPECT_EQ(post({QStringLiteral("A1")}, kNoHeaders, closed), kSalesClosed);
    EXPECT_EQ(post({QStringLiteral("A1")}, idempotencyKey("wire-closed"), closed), kSalesClosed);
    EXPECT_EQ(post({QStringLiteral("A1")}, idempotencyKey("wire-closed"), closed), kSalesClosed); // replayed
    EXPECT_EQ(post({QStringLiteral("A1")}, kNoHeaders, notOpen), kSalesNotOpen);
    EXPECT_EQ(post({QStringLiteral("A1")}, kNoHeaders, 987654321), kShowNotFound);
    EXPECT_EQ(post({QStringLiteral("A1"), QStringLiteral("Z9")}), kUnknownSeat);
    EXPECT_EQ(post({QStringLiteral("A1"), QStringLiteral("A1")}), "400\nContent-Type: application/json\n"
                                                                  R"({"error":"duplicate_seat_ids","message":"'seat_ids' names 'A1' more than once."})");
    EXPECT_EQ(post({}), "400\nContent-Type: application/json\n"
                        R"({"error":"empty_seat_ids","message":"The field 'seat_ids' must name at least one item."})");
}

TEST_F(HoldWire, BadInput)
{
    EXPECT_EQ(wire(kiosk->post("/api/v1/shows/abc/hold", seatsBody({QStringLiteral("A1")})), showId),
              "400\nContent-Type: application/json\n"
              R"({"error":"invalid_id","message":"The show id must be a positive integer."})");
    EXPECT_EQ(post({QStringLiteral("A1")}, idempotencyKey(QByteArray(256, 'k'))),
              "400\nContent-Type: application/json\n"
              R"({"error":"invalid_idempotency_key","message":"The Idempotency-Key header is longer than 255 characters."})");
    EXPECT_EQ(raw(holdPath(showId), "{\"seat_ids\": [\"A1\""),
              "400\nContent-Type: application/json\n"
              R"({"error":"malformed_json","message":"The request body is not valid JSON: unterminated string at offset 18."})");
    EXPECT_EQ(raw(holdPath(showId), "{}"), "400\nContent-Type: application/json\n"
                                           R"({"error":"missing_field","message":"The field 'seat_ids' is required."})");
    EXPECT_EQ(raw(holdPath(showId), R"({"seat_ids": "A1"})"), "400\nContent-Type: application/json\n"
                                                             R"({"error":"invalid_type","message":"The field 'seat_ids' must be an array of strings."})");
    QStringList eleven;
    for (int i = 1; i <= 11; ++i)
        eleven << QStringLiteral("A%1").arg(i);
    EXPECT_EQ(post(eleven), "400\nContent-Type: application/json\n"
                            R"({"error":"too_many_seats","message":"One hold may take at most 10 seats."})");
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
}

TEST_F(HoldWire, WaitingRoomRefusals)
{
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    const QByteArray room = "/api/v1/shows/" + QByteArray::number(showId) + "/waiting-room";
    ASSERT_EQ(manager->request("PUT", room, R"({"enabled": true})").status, 200);
    EXPECT_EQ(post({QStringLiteral("A1")}),
              "403\nContent-Type: application/json\n"
              R"({"error":"admission_required","message":"Show <show> sells through its waiting room: join it (POST /api/v1/queue/<show>/join) and send the admission token in the Admission-Token header."})");
    // Admitted: one live hold per admission; a retry of the very request that placed it gets its answer.
    const HttpResult joined = kiosk->post("/api/v1/queue/" + QByteArray::number(showId) + "/join", {});
    ASSERT_EQ(joined.status, 200) << joined.body.constData();
    const QString queueToken = joined.json().value(QStringLiteral("queue_token")).toString();
    QString admissionToken;
    for (int i = 0; i < 200 && admissionToken.isEmpty(); ++i) {
        const HttpResult status = kiosk->get("/api/v1/queue/" + QByteArray::number(showId) + "/status?token=" + QUrl::toPercentEncoding(queueToken));
        admissionToken = status.json().value(QStringLiteral("admission_token")).toString();
        if (admissionToken.isEmpty())
            QThread::msleep(50);
    }
    ASSERT_FALSE(admissionToken.isEmpty());
    const Headers admitted{{"Admission-Token", admissionToken.toLatin1()}, {"Idempotency-Key", "wire-room"}};
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), admitted);
    EXPECT_EQ(wire(held, showId), kGranted);
    const HttpResult retried = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), admitted);
    EXPECT_EQ(retried.body, held.body);
    EXPECT_EQ(post({QStringLiteral("B1")}, admitted),
              "422\nContent-Type: application/json\n"
              R"({"error":"idempotency_key_reused","message":"This Idempotency-Key was used with a different request."})");
    EXPECT_EQ(post({QStringLiteral("A5")}, Headers{{"Admission-Token", admissionToken.toLatin1()}}),
              "409\nContent-Type: application/json\n"
              R"({"error":"admission_hold_active","hold_id":"<uuid>","message":"This admission already has a live hold; release it or let it expire first."})");
    EXPECT_EQ(post({QStringLiteral("A5")}, Headers{{"Admission-Token", "not-a-token"}}),
              "403\nContent-Type: application/json\n"
              R"({"error":"admission_invalid","message":"The admission token is not a valid admission to show <show>."})");
    EXPECT_EQ(sync({holdAction(showId, {QStringLiteral("A6")}, QStringLiteral("wire-room-sync"))}),
              "200\nContent-Type: application/json\n"
              R"({"results":[{"body":{"error":"admission_required","message":"Show <show> sells through its waiting room: join it (POST /api/v1/queue/<show>/join) and send the admission token in the Admission-Token header."},"status":403}]})");
}

TEST_F(HoldWire, SyncBatchHolds)
{
    const HttpResult first = kiosk->post("/api/v1/sync/batch", batch({holdAction(showId, {QStringLiteral("A2"), QStringLiteral("A1")}, QStringLiteral("s-1")),
                                                                       holdAction(showId, {QStringLiteral("A2"), QStringLiteral("A3")}, QStringLiteral("s-2")),
                                                                       holdAction(showId, {QStringLiteral("Z9")}, QStringLiteral("s-3")),
                                                                       holdAction(987654321, {QStringLiteral("A1")}, QStringLiteral("s-4"))}));
    const std::string expected =
        "200\nContent-Type: application/json\n"
        R"({"results":[{"body":{"expires_at":"<time>","hold_id":"<uuid>","seat_ids":["A1","A2"],"show_id":<show>},"status":200},)"
        R"({"body":{"error":"seats_unavailable","held_seats":["A2"],"message":"Some of these seats were just taken; none of them is held for you."},"status":409},)"
        R"({"body":{"error":"unknown_seat","message":"Some seat ids do not exist in this show.","unknown_seats":["Z9"]},"status":400},)"
        R"({"body":{"error":"show_not_found","message":"There is no show with this id."},"status":404}]})";
    EXPECT_EQ(wire(first, showId), expected);
    // Replayed: the same bytes (the stored answers of s-1 and s-2; s-3 and s-4 decided again, alike).
    const HttpResult again = kiosk->post("/api/v1/sync/batch", batch({holdAction(showId, {QStringLiteral("A1"), QStringLiteral("A2")}, QStringLiteral("s-1")),
                                                                       holdAction(showId, {QStringLiteral("A3"), QStringLiteral("A2")}, QStringLiteral("s-2")),
                                                                       holdAction(showId, {QStringLiteral("Z9")}, QStringLiteral("s-3")),
                                                                       holdAction(987654321, {QStringLiteral("A1")}, QStringLiteral("s-4"))}));
    EXPECT_EQ(again.body, first.body);
    // A key reused with another request, and its single route's answer for the same key.
    EXPECT_EQ(sync({holdAction(showId, {QStringLiteral("A7")}, QStringLiteral("s-1"))}),
              "200\nContent-Type: application/json\n"
              R"({"results":[{"body":{"error":"idempotency_key_reused","message":"This Idempotency-Key was used with a different request."},"status":422}]})");
    const HttpResult single = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), idempotencyKey("s-1"));
    EXPECT_EQ(wire(single, showId), kGranted);
    // Bad input refuses the whole batch, naming the action.
    EXPECT_EQ(sync({holdAction(showId, {QStringLiteral("A8")}, QStringLiteral("s-5")), holdAction(0, {QStringLiteral("A8")}, QStringLiteral("s-6"))}),
              "400\nContent-Type: application/json\n"
              R"({"error":"invalid_id","index":1,"message":"actions[1]: The show id must be a positive integer."})");
    EXPECT_EQ(sync({holdAction(showId, {}, QString())}),
              "400\nContent-Type: application/json\n"
              R"({"error":"missing_field","index":0,"message":"actions[0]: The field 'idempotency_key' must not be empty."})");
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 2);
}

// Answers stored under a key by a server older than schema 30 (a status and a body) replay the same bytes after the
// upgrade: migration 043 turns each into its decision and data, which the catalogue renders as they were stored.
TEST(HoldWireUpgrade, AnswersStoredAsStatusAndBodyBeforeTheUpgradeReplayTheSameBytes)
{
    QTemporaryDir work;
    const store::DatabaseConfig older = schemaWithout(work, {QStringLiteral("043_stored_decisions.sql")});
    qint64 showId = 0;
    QString token;
    QString grant;
    {
        store::Database database(older);
        showId = createTestShow(database, 1, 0, 1, 8).showId;
        const EnrolledKiosk kiosk = enrolKiosk(database, QStringLiteral("kiosk-before-the-upgrade"));
        token = kiosk.token;
        const QString owner = kiosk.owner;
        const auto fingerprint = [showId](const QStringList &seats) {
            QStringList sorted = seats;
            sorted.sort();
            return QCryptographicHash::hash(
                QByteArray::number(showId) + '|' + sorted.join(QLatin1Char(',')).toUtf8(), QCryptographicHash::Sha256)
                .toHex();
        };
        const auto store = [&](const QString &key, const QStringList &seats, int status, const QString &body) {
            QSqlQuery insert(database.connection());
            ASSERT_TRUE(insert.prepare(QStringLiteral(
                "INSERT INTO idempotency_keys (owner, key, request_hash, response_status, response_body, expires_at) "
                "VALUES (?, ?, ?, ?, ?::jsonb, now() + interval '1 hour')")));
            insert.addBindValue(owner);
            insert.addBindValue(key);
            insert.addBindValue(QString::fromLatin1(fingerprint(seats)));
            insert.addBindValue(status);
            insert.addBindValue(body);
            ASSERT_TRUE(insert.exec()) << qPrintable(insert.lastError().text());
        };
        grant = QStringLiteral(
            R"({"hold_id": "0c0ffee0-0000-4000-8000-00000000a001", "show_id": %1, "seat_ids": ["A1", "A2"], "expires_at": "2031-01-01T10:00:00.000Z"})")
                    .arg(showId);
        store(QStringLiteral("old-grant"), {QStringLiteral("A1"), QStringLiteral("A2")}, 200, grant);
        store(QStringLiteral("old-refusal"), {QStringLiteral("A3")}, 409,
            QStringLiteral(
                R"({"error": "seats_unavailable", "message": "Some of these seats were just taken; none of them is held for you.", "held_seats": ["A3"]})"));
        store(QStringLiteral("old-closed"), {QStringLiteral("A4")}, 422,
            QStringLiteral(R"({"error": "sales_closed", "message": "Sales for this show are closed."})"));
        store(QStringLiteral("old-not-open"), {QStringLiteral("A5")}, 422,
            QStringLiteral(R"({"error": "sales_closed", "message": "Sales for this show have not opened yet."})"));
        database.closeThreadConnection();
    }

    TestServer::Options options = TestServer::Options::withConfig([](ServerConfig &config) {
        config.fastRefusals = false;
        config.preUpgradeBackups = 0; // the dump is tst_backup's
    });
    options.database = older;
    TestServer server(options);
    EXPECT_EQ(
        server.scalar(QStringLiteral("SELECT string_agg(decision, ' ' ORDER BY key) FROM idempotency_keys")).toString(),
        QStringLiteral("sales_closed granted sales_not_open seats_taken"));
    EXPECT_EQ(server
                  .scalar(QStringLiteral("SELECT count(*) FROM information_schema.columns WHERE table_name = "
                                         "'idempotency_keys' AND column_name LIKE 'response%'"))
                  .toInt(),
        0);
    auto kiosk = server.client(token);
    const auto post = [&](const QStringList &seats, const QByteArray &key) {
        return wire(kiosk->post(holdPath(showId), seatsBody(seats), idempotencyKey(key)), showId);
    };
    const std::string state = databaseState(server).toStdString();
    const HttpResult replayed = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A1")}), idempotencyKey("old-grant"));
    EXPECT_EQ(replayed.status, 200);
    EXPECT_EQ(QString::fromUtf8(replayed.body), grant);
    EXPECT_EQ(post({QStringLiteral("A3")}, "old-refusal"),
        kTakenByDatabase.substr(0, kTakenByDatabase.find("[\"A2\"]")) + "[\"A3\"]}");
    EXPECT_EQ(post({QStringLiteral("A4")}, "old-closed"), kSalesClosed);
    EXPECT_EQ(post({QStringLiteral("A5")}, "old-not-open"), kSalesNotOpen);
    EXPECT_EQ(post({QStringLiteral("A4")}, "old-grant"), kKeyReused);
    EXPECT_EQ(
        wire(
            kiosk->post("/api/v1/sync/batch",
                batch({holdAction(showId, {QStringLiteral("A1"), QStringLiteral("A2")}, QStringLiteral("old-grant"))})),
            showId),
        "200\nContent-Type: application/json\n"
        R"({"results":[{"body":{"expires_at":"<time>","hold_id":"<uuid>","seat_ids":["A1","A2"],"show_id":<show>},"status":200}]})");
    EXPECT_EQ(databaseState(server).toStdString(), state) << "a replay changes nothing";
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
}

namespace {
/** @brief The default server: refusals the snapshot proves are answered from memory. */
class HoldWireFromMemory : public ::testing::Test
{
protected:
    TestServer server;
};
} // namespace

TEST_F(HoldWireFromMemory, SeatsTakenRefusedFromMemory)
{
    const qint64 showId = server.createShow(1, 8);
    auto kiosk = server.client(server.deviceToken());
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2")})).status, 200);
    // Whether the snapshot is fresh enough to refuse is timing; the bytes of a refusal from memory are not. Each try
    // first waits until the seat feed proves A2 taken within the fast path's age bound (what a refusal from memory
    // needs), so a loaded machine that delays the feed's refreshes delays the test instead of failing it.
    SeatMapService &seatMaps = server.context().seatMaps;
    const int maxAgeMs = server.context().config.fastRefusalMaxAgeMs;
    QElapsedTimer waited;
    waited.start();
    bool fromMemory = false;
    while (!fromMemory && waited.elapsed() < 30000) {
        seatMaps.noteHoldTraffic(showId); // as every hold request does: keeps the show's statuses fresh
        if (!seatMaps.feed().certainlyTaken(showId, {QStringLiteral("A2")}, maxAgeMs)) {
            QThread::msleep(10);
            continue;
        }
        const HttpResult refused = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A2")}));
        fromMemory = refused.header("Server-Timing").contains("memory;dur=");
        EXPECT_EQ(wire(refused, showId), fromMemory ? kTakenFromMemory : kTakenByDatabase);
    }
    EXPECT_TRUE(fromMemory);
    // Under a key, the refusal from memory is the key's answer (replayed from memory, then from the database).
    const HttpResult keyed = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2")}), idempotencyKey("mem-1"));
    const HttpResult replay = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2")}), idempotencyKey("mem-1"));
    EXPECT_EQ(replay.status, 409);
    EXPECT_EQ(QJsonDocument::fromJson(replay.body), QJsonDocument::fromJson(keyed.body));
    // The refusal reaches the table from the background journal: from then on PostgreSQL replays it.
    bool stored = false;
    for (int i = 0; i < 200 && !stored; ++i) {
        stored = server.scalar(QStringLiteral("SELECT count(*) FROM idempotency_keys WHERE key = 'mem-1'")).toInt() == 1;
        if (!stored)
            QThread::msleep(25);
    }
    ASSERT_TRUE(stored);
    const HttpResult fromTable = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2")}), idempotencyKey("mem-1"));
    EXPECT_EQ(QJsonDocument::fromJson(fromTable.body), QJsonDocument::fromJson(keyed.body));
    // Reused with another request: refused by PostgreSQL, or from memory in the instant between the journal's commit
    // and its forgetting the answer it stored (each path with its own bytes).
    const std::string reused = wire(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A3")}), idempotencyKey("mem-1")), showId);
    EXPECT_TRUE(reused == kKeyReused
                || reused == "422\nContent-Type: application/json\n"
                             R"({"error":"idempotency_key_reused","message":"This Idempotency-Key was used with a different request."})")
        << reused;
}
