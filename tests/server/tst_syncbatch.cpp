// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/sync/batch: many queued actions per request, each applied as its own endpoint
// would, each with its own idempotency key and its own answer; a malformed batch applies nothing.
#include "servertesthelpers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
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

class SyncBatchTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        showId = server.createShow(5, 10);
        kiosk = server.client(server.deviceToken());
    }

    TestServer server;
    qint64 showId = 0;
    std::unique_ptr<HttpClient> kiosk;
};

} // namespace

TEST_F(SyncBatchTest, AppliesEachActionAsItsOwnEndpointWithItsOwnAnswer)
{
    const QString k1 = uuid(), k2 = uuid(), k3 = uuid(), k4 = uuid(), k5 = uuid();
    const QJsonArray actions{holdAction(showId, {QStringLiteral("A1"), QStringLiteral("A2")}, k1),
                             holdAction(showId, {QStringLiteral("A2")}, k2),  // taken by the first: refused alone
                             holdAction(987654, {QStringLiteral("A3")}, k3),  // unknown show
                             holdAction(showId, {QStringLiteral("Z99")}, k4), // unknown seat
                             holdAction(showId, {QStringLiteral("B1")}, k5)};
    const HttpResult answer = kiosk->post("/api/v1/sync/batch", batch(actions));
    ASSERT_EQ(answer.status, 200) << answer.body.toStdString();
    const QJsonArray results = answer.json().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(results.size(), 5);
    auto statusOf = [&](int i) { return results.at(i)[QStringLiteral("status")].toInt(); };
    auto errorOf = [&](int i) { return results.at(i)[QStringLiteral("body")][QStringLiteral("error")].toString(); };
    EXPECT_EQ(statusOf(0), 200);
    EXPECT_EQ(statusOf(1), 409);
    EXPECT_EQ(errorOf(1), QStringLiteral("seats_unavailable"));
    EXPECT_EQ(statusOf(2), 404);
    EXPECT_EQ(errorOf(2), QStringLiteral("show_not_found"));
    EXPECT_EQ(statusOf(3), 400);
    EXPECT_EQ(errorOf(3), QStringLiteral("unknown_seat"));
    EXPECT_EQ(statusOf(4), 200);
    // The refusals failed nothing else: both holds are committed, each once.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 2);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 3);
    const QString firstHold = results.at(0)[QStringLiteral("body")][QStringLiteral("hold_id")].toString();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT array_to_string(seat_ids, ',') FROM holds WHERE hold_id = '%1'").arg(firstHold)).toString(),
              QStringLiteral("A1,A2"));

    // The same answers as the single endpoint: the key of action 0 replayed there gets the stored hold.
    const HttpResult single = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), {{"Idempotency-Key", k1.toUtf8()}});
    EXPECT_EQ(single.status, 200);
    EXPECT_EQ(single.json()[QStringLiteral("hold_id")].toString(), firstHold);

    // The whole batch again (its answer lost on the way): every stored answer comes back, nothing is applied twice.
    const QString before = databaseState(server);
    const HttpResult again = kiosk->post("/api/v1/sync/batch", batch(actions));
    ASSERT_EQ(again.status, 200);
    const QJsonArray replayed = again.json().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(replayed.size(), 5);
    EXPECT_EQ(replayed.at(0)[QStringLiteral("body")][QStringLiteral("hold_id")].toString(), firstHold);
    EXPECT_EQ(replayed.at(1)[QStringLiteral("status")].toInt(), 409); // the stored refusal, not a new attempt
    EXPECT_EQ(replayed.at(4)[QStringLiteral("body")][QStringLiteral("hold_id")], results.at(4)[QStringLiteral("body")][QStringLiteral("hold_id")]);
    EXPECT_EQ(databaseState(server), before);

    // A key reused with another request is refused as on the single endpoint.
    const HttpResult reused = kiosk->post("/api/v1/sync/batch", batch({holdAction(showId, {QStringLiteral("C1")}, k1)}));
    ASSERT_EQ(reused.status, 200);
    EXPECT_EQ(reused.json()[QStringLiteral("results")][0][QStringLiteral("status")].toInt(), 422);
    EXPECT_EQ(reused.json()[QStringLiteral("results")][0][QStringLiteral("body")][QStringLiteral("error")].toString(), QStringLiteral("idempotency_key_reused"));
    EXPECT_EQ(databaseState(server), before);
}

TEST_F(SyncBatchTest, TheSameKeyTwiceInOneBatchIsAppliedOnce)
{
    const QString key = uuid();
    const HttpResult answer = kiosk->post("/api/v1/sync/batch", batch({holdAction(showId, {QStringLiteral("D1")}, key),
                                                                        holdAction(showId, {QStringLiteral("D1")}, key)}));
    ASSERT_EQ(answer.status, 200) << answer.body.toStdString();
    const QJsonArray results = answer.json().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(results.size(), 2);
    EXPECT_EQ(results.at(0)[QStringLiteral("status")].toInt(), 200);
    EXPECT_EQ(results.at(1)[QStringLiteral("status")].toInt(), 200);
    EXPECT_EQ(results.at(0)[QStringLiteral("body")][QStringLiteral("hold_id")], results.at(1)[QStringLiteral("body")][QStringLiteral("hold_id")]);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 1);
}

TEST_F(SyncBatchTest, OtherKindsAreAppliedAloneAndAnswerForThemselves)
{
    const QString holdKey = uuid();
    const QString nonce = uuid();
    const QJsonArray actions{
        holdAction(showId, {QStringLiteral("E1")}, holdKey),
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("checkin")},
                    {QStringLiteral("idempotency_key"), nonce},
                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("qr"), QStringLiteral("not-a-ticket")},
                                                            {QStringLiteral("nonce"), nonce},
                                                            {QStringLiteral("scanned_at"), QStringLiteral("2026-01-01T10:00:00Z")}}}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("confirm_order")},
                    {QStringLiteral("idempotency_key"), QStringLiteral("pi_unknown")},
                    {QStringLiteral("payload"), QJsonObject{{QStringLiteral("order_id"), uuid()}, {QStringLiteral("payment_intent_id"), QStringLiteral("pi_unknown")}}}},
        holdAction(showId, {QStringLiteral("E2")}, uuid())};
    const HttpResult answer = kiosk->post("/api/v1/sync/batch", batch(actions));
    ASSERT_EQ(answer.status, 200) << answer.body.toStdString();
    const QJsonArray results = answer.json().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(results.size(), 4);
    EXPECT_EQ(results.at(0)[QStringLiteral("status")].toInt(), 200);
    EXPECT_EQ(results.at(1)[QStringLiteral("status")].toInt(), 400);
    EXPECT_EQ(results.at(1)[QStringLiteral("body")][QStringLiteral("error")].toString(), QStringLiteral("malformed_qr"));
    EXPECT_EQ(results.at(2)[QStringLiteral("status")].toInt(), 404) << QJsonDocument(results.at(2).toObject()).toJson().toStdString();
    EXPECT_EQ(results.at(3)[QStringLiteral("status")].toInt(), 200);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt(), 2);
}

TEST_F(SyncBatchTest, BadInputIsRefusedWholeAndAppliesNothing)
{
    const QString before = databaseState(server);
    const QJsonObject good = holdAction(showId, {QStringLiteral("F1")}, uuid());
    struct Case {
        const char *name;
        QByteArray body;
        int status;
        const char *error;
    };
    auto body = [](const QJsonArray &actions) { return QJsonDocument(batch(actions)).toJson(QJsonDocument::Compact); };
    QJsonArray tooMany;
    for (int i = 0; i < 201; ++i)
        tooMany.append(holdAction(showId, {QStringLiteral("A1")}, uuid()));
    QJsonObject wrongSeats = holdAction(showId, {}, uuid());
    wrongSeats[QStringLiteral("payload")] = QJsonObject{{QStringLiteral("show_id"), showId}, {QStringLiteral("seat_ids"), QStringLiteral("F2")}};
    QJsonObject stringShow = good;
    stringShow[QStringLiteral("payload")] = QJsonObject{{QStringLiteral("show_id"), QString::number(showId)}, {QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("F2")}}};
    QJsonObject unknownKind = good;
    unknownKind[QStringLiteral("kind")] = QStringLiteral("refund");
    QJsonObject noKey = good;
    noKey.remove(QStringLiteral("idempotency_key"));
    QJsonObject longKey = good;
    longKey[QStringLiteral("idempotency_key")] = QString(256, QLatin1Char('k'));
    QJsonObject nonceMismatch{{QStringLiteral("kind"), QStringLiteral("checkin")},
                              {QStringLiteral("idempotency_key"), uuid()},
                              {QStringLiteral("payload"), QJsonObject{{QStringLiteral("qr"), QStringLiteral("x")}, {QStringLiteral("nonce"), uuid()},
                                                                      {QStringLiteral("scanned_at"), QStringLiteral("2026-01-01T10:00:00Z")}}}};
    const std::vector<Case> cases = {
        {"malformed json", "{\"actions\": [", 400, "malformed_json"},
        {"not an object", "[1,2]", 400, nullptr},
        {"actions not an array", "{\"actions\": {}}", 400, "invalid_field"},
        {"empty", body({}), 400, "too_many_actions"},
        {"too many", body(tooMany), 400, "too_many_actions"},
        {"action not an object", body({good, 5}), 400, "invalid_field"},
        {"seat_ids a string", body({good, wrongSeats}), 400, nullptr},
        {"show_id a string", body({good, stringShow}), 400, nullptr},
        {"unknown kind", body({good, unknownKind}), 400, "unknown_kind"},
        {"missing key", body({good, noKey}), 400, nullptr},
        {"key too long", body({good, longKey}), 400, nullptr},
        {"nonce is not the key", body({good, nonceMismatch}), 400, "invalid_idempotency_key"},
    };
    for (const Case &c : cases) {
        const HttpResult r = kiosk->request("POST", "/api/v1/sync/batch", c.body);
        EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body.toStdString();
        EXPECT_FALSE(r.json().value(QStringLiteral("message")).toString().isEmpty()) << c.name;
        if (c.error) {
            EXPECT_EQ(r.json().value(QStringLiteral("error")).toString(), QLatin1String(c.error)) << c.name;
        }
        EXPECT_EQ(databaseState(server), before) << c.name;
    }
    // The refused action is named, so the kiosk can send it alone (and park it on its own endpoint's answer).
    const HttpResult named = kiosk->post("/api/v1/sync/batch", batch({good, good, unknownKind}));
    EXPECT_EQ(named.json().value(QStringLiteral("index")).toInt(), 2);
    EXPECT_TRUE(named.json().value(QStringLiteral("message")).toString().startsWith(QStringLiteral("actions[2]")));

    // Over the server's body limit: 413, nothing applied.
    QJsonArray large;
    for (int i = 0; i < 200; ++i) {
        QStringList seats;
        for (int s = 0; s < 10; ++s)
            seats << QStringLiteral("SEAT-%1-%2-PADDING-PADDING").arg(i).arg(s);
        large.append(holdAction(showId, seats, uuid()));
    }
    const HttpResult tooLarge = kiosk->post("/api/v1/sync/batch", batch(large));
    EXPECT_EQ(tooLarge.status, 413);
    EXPECT_EQ(databaseState(server), before);
}

TEST_F(SyncBatchTest, OnlyDevicesReplayBatches)
{
    const QJsonObject body = batch({holdAction(showId, {QStringLiteral("G1")}, uuid())});
    std::vector<std::pair<QString, QString>> staffTokens;
    for (const QString &role : {QStringLiteral("cashier"), QStringLiteral("manager"), QStringLiteral("admin")})
        staffTokens.emplace_back(role, server.staffToken(role));
    const QString before = databaseState(server);
    for (const auto &[role, token] : staffTokens) {
        auto staff = server.client(token);
        const HttpResult r = staff->post("/api/v1/sync/batch", body);
        EXPECT_EQ(r.status, 403) << role.toStdString();
        EXPECT_EQ(r.json().value(QStringLiteral("error")).toString(), QStringLiteral("forbidden"));
    }
    auto anonymous = server.client();
    EXPECT_EQ(anonymous->post("/api/v1/sync/batch", body).status, 401);
    EXPECT_EQ(databaseState(server), before);
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    EXPECT_EQ(till->post("/api/v1/sync/batch", body).status, 200);
}
