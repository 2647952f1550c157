// SPDX-License-Identifier: AGPL-3.0-or-later
// The virtual waiting room against real PostgreSQL and real HTTP: join, status, admission, the shuffle
// at the opening, FIFO after it, admission tokens on holds, sell-out, restart and two instances on one database.
#include "instances.h"
#include "serverprocess.h"
#include "servertesthelpers.h"
#include "wiretext.h"

#include <QMessageAuthenticationCode>
#include <QRegularExpression>
#include <QDeadlineTimer>
#include <QSet>
#include <QThread>
#include <QUrl>
#include <algorithm>
#include <cmath>
#include <atomic>
#include <functional>
#include <limits>
#include <numeric>
#include <thread>

using namespace marquee;
using namespace marquee::test;

namespace {
QByteArray roomPath(qint64 showId)
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/waiting-room";
}
QByteArray joinPath(qint64 showId)
{
    return "/api/v1/queue/" + QByteArray::number(showId) + "/join";
}
QByteArray statusPath(qint64 showId, const QString &token)
{
    return "/api/v1/queue/" + QByteArray::number(showId) + "/status?token=" + QUrl::toPercentEncoding(token);
}
QList<QPair<QByteArray, QByteArray>> admission(const QString &token)
{
    return {{"Admission-Token", token.toLatin1()}};
}
QString isoIn(qint64 ms)
{
    return QDateTime::currentDateTimeUtc().addMSecs(ms).toString(Qt::ISODateWithMs);
}

/** @brief Poll until @p done says yes or @p timeoutMs passes; the last answer. */
HttpResult pollUntil(HttpClient &client, const QByteArray &path, const std::function<bool(const QJsonObject &)> &done, int timeoutMs = 10000)
{
    QElapsedTimer timer;
    timer.start();
    HttpResult last;
    do {
        last = client.get(path);
        if (last.status != 200 || done(last.json()))
            return last;
        QThread::msleep(50);
    } while (timer.elapsed() < timeoutMs);
    return last;
}

bool isAdmitted(const QJsonObject &status)
{
    return status.value(QStringLiteral("admitted")).toBool();
}

class WaitingRoom : public ::testing::Test
{
protected:
    void SetUp() override
    {
        showId = server.createShow(4, 10);
        manager = server.client(server.staffToken(QStringLiteral("manager")));
        kiosk = server.client(server.deviceToken());
    }
    void enableRoom(QJsonObject settings = {})
    {
        settings.insert(QStringLiteral("enabled"), true);
        const HttpResult put = manager->request("PUT", roomPath(showId), QJsonDocument(settings).toJson());
        ASSERT_EQ(put.status, 200) << put.body.constData();
    }
    QString join(HttpClient &client)
    {
        const HttpResult joined = client.post(joinPath(showId), {});
        EXPECT_EQ(joined.status, 200) << joined.body.constData();
        return joined.json().value(QStringLiteral("queue_token")).toString();
    }
    /** @brief Join and wait to be admitted; the admission token. */
    QString admitted(HttpClient &client)
    {
        const QString token = join(client);
        const HttpResult status = pollUntil(client, statusPath(showId, token), isAdmitted);
        EXPECT_TRUE(isAdmitted(status.json())) << status.body.constData();
        return status.json().value(QStringLiteral("admission_token")).toString();
    }
    QVariant scalar(const QString &sql) { return server.scalar(sql.arg(showId)); }

    TestServer server;
    qint64 showId = 0;
    std::unique_ptr<HttpClient> manager;
    std::unique_ptr<HttpClient> kiosk;
};
} // namespace

TEST_F(WaitingRoom, ManagerSwitchesItOnWithAuditAndJoinedCallersAreAdmitted)
{
    EXPECT_EQ(kiosk->request("PUT", roomPath(showId), R"({"enabled": true})").status, 403);
    enableRoom({{QStringLiteral("reason"), QStringLiteral("cup final")}});
    EXPECT_TRUE(scalar(QStringLiteral("SELECT waiting_room FROM shows WHERE show_id = %1")).toBool());
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'show.waiting_room' AND target = 'show:%1' "
                                    "AND reason = 'cup final'")).toInt(), 1);

    const HttpResult joined = kiosk->post(joinPath(showId), {});
    ASSERT_EQ(joined.status, 200) << joined.body.constData();
    EXPECT_TRUE(joined.json().contains(QStringLiteral("position")));
    const QString token = joined.json().value(QStringLiteral("queue_token")).toString();
    const HttpResult status = pollUntil(*kiosk, statusPath(showId, token), isAdmitted);
    ASSERT_TRUE(isAdmitted(status.json())) << status.body.constData();
    EXPECT_EQ(status.json().value(QStringLiteral("state")).toString(), QStringLiteral("admitted"));
    EXPECT_EQ(status.json().value(QStringLiteral("position")).toInt(), 0);
    const QString admissionToken = status.json().value(QStringLiteral("admission_token")).toString();
    ASSERT_FALSE(admissionToken.isEmpty());

    // Without the token nobody holds on the hot show; with it, one hold at a time.
    const HttpResult bare = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_EQ(bare.status, 403);
    EXPECT_EQ(bare.json().value(QStringLiteral("error")).toString(), QStringLiteral("admission_required"));
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")}), admission(admissionToken));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    const QString holdId = held.json().value(QStringLiteral("hold_id")).toString();
    const HttpResult second = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1")}), admission(admissionToken));
    EXPECT_EQ(second.status, 409);
    EXPECT_EQ(second.json().value(QStringLiteral("error")).toString(), QStringLiteral("admission_hold_active"));
    EXPECT_EQ(second.json().value(QStringLiteral("hold_id")).toString(), holdId);
    // A seat conflict frees the admission's slot again, and so does releasing the hold.
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + holdId.toLatin1()).status, 200);
    const HttpResult again = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1")}), admission(admissionToken));
    EXPECT_EQ(again.status, 200) << again.body.constData();

    // Switched off, the show sells without admission again.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": false})").status, 200);
    EXPECT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("C1")})).status, 200);
}

TEST_F(WaitingRoom, EarlyArrivalsAreShuffledAtTheOpeningLaterOnesQueueInOrder)
{
    constexpr int early = 300;
    // Nobody is admitted during this test: the order of the queue is what it checks.
    const QJsonObject settings{{QStringLiteral("min_admit_per_s"), 0.01}, {QStringLiteral("max_in_flight"), 1}};
    QJsonObject later = settings;
    later.insert(QStringLiteral("opens_at"), isoIn(600000));
    enableRoom(later);
    QStringList tokens;
    for (int i = 0; i < early; ++i)
        tokens << join(*kiosk);
    const HttpResult before = kiosk->get(statusPath(showId, tokens.first()));
    EXPECT_EQ(before.json().value(QStringLiteral("state")).toString(), QStringLiteral("before_opening"));
    EXPECT_TRUE(before.json().value(QStringLiteral("position")).isNull());
    // Everyone is in: the manager brings the opening forward to now (allowed until the room opened). One millisecond
    // ahead, because the text keeps whole milliseconds and PostgreSQL's joined_at keeps microseconds: "now" cut to
    // the millisecond can be earlier than a join that committed in the same millisecond.
    QJsonObject now = settings;
    now.insert(QStringLiteral("opens_at"), isoIn(1));
    enableRoom(now);
    ASSERT_EQ(scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries WHERE show_id = %1 AND joined_at < "
                                    "(SELECT opens_at FROM waiting_rooms WHERE show_id = %1)")).toInt(), early)
        << "every join happened before the opening";

    const HttpResult opened = pollUntil(*kiosk, statusPath(showId, tokens.last()),
                                        [](const QJsonObject &s) { return s.value(QStringLiteral("state")) == QStringLiteral("waiting"); });
    ASSERT_EQ(opened.json().value(QStringLiteral("state")).toString(), QStringLiteral("waiting")) << opened.body.constData();

    // The ranks in join order: a permutation of 1..N ...
    std::vector<double> ranks;
    const QStringList column = scalar(QStringLiteral("SELECT string_agg(rank::text, ',' ORDER BY entry_id) FROM waiting_room_entries "
                                                     "WHERE show_id = %1")).toString().split(QLatin1Char(','));
    for (const QString &rank : column)
        ranks.push_back(rank.toDouble());
    ASSERT_EQ(ranks.size(), size_t(early));
    std::vector<double> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < early; ++i)
        ASSERT_EQ(sorted[size_t(i)], i + 1);
    // ... that does not follow the join order. Spearman's rho of a uniform shuffle of 300 has a standard deviation of
    // 1/sqrt(299) ≈ 0.058; |rho| > 0.5 is more than 8 standard deviations (p < 1e-15), while keeping the join order
    // gives rho = 1, so this neither flakes nor passes by accident.
    double sumSquares = 0;
    for (int i = 0; i < early; ++i)
        sumSquares += std::pow(ranks[size_t(i)] - (i + 1), 2);
    const double rho = 1 - 6 * sumSquares / (double(early) * (double(early) * early - 1));
    EXPECT_LT(std::abs(rho), 0.5) << "rank follows join order: rho = " << rho;
    // The status poll reports rank - admitted-up-to as the position (the floor rate admits one caller, whom the
    // in-flight limit of 1 then keeps alone).
    const qint64 watermark = scalar(QStringLiteral("SELECT admitted_upto FROM waiting_rooms WHERE show_id = %1")).toLongLong();
    ASSERT_LE(watermark, 1);
    const qint64 lastRank = qint64(ranks.back());
    if (lastRank > watermark) {
        const HttpResult lastStatus = kiosk->get(statusPath(showId, tokens.last()));
        EXPECT_EQ(lastStatus.json().value(QStringLiteral("position")).toInteger(), lastRank - watermark);
        EXPECT_GT(lastStatus.json().value(QStringLiteral("eta_s")).toInteger(), 0);
    }

    // After the opening: first in, first out.
    QStringList late;
    for (int i = 0; i < 20; ++i)
        late << join(*kiosk);
    const HttpResult lastLate = pollUntil(*kiosk, statusPath(showId, late.last()),
                                          [](const QJsonObject &s) { return !s.value(QStringLiteral("position")).isNull(); });
    ASSERT_EQ(lastLate.status, 200) << lastLate.body.constData();
    for (int i = 0; i < late.size(); ++i) {
        const HttpResult status = kiosk->get(statusPath(showId, late[i]));
        EXPECT_EQ(status.json().value(QStringLiteral("position")).toInteger(), early + i + 1 - watermark) << status.body.constData();
    }
}

TEST_F(WaitingRoom, AdmissionTokensAreRefusedWhenForgedExpiredForeignOrAlreadyHolding)
{
    enableRoom();
    const QString token = admitted(*kiosk);
    ASSERT_FALSE(token.isEmpty());
    const QString before = databaseState(server);
    auto refusal = [&](HttpClient &client, const QString &admissionToken) {
        const HttpResult result = client.post(holdPath(showId), seatsBody({QStringLiteral("A1")}), admission(admissionToken));
        return QString::number(result.status) + QLatin1Char(' ') + result.json().value(QStringLiteral("error")).toString();
    };
    QString forged = token;
    forged[forged.size() - 2] = forged[forged.size() - 2] == QLatin1Char('A') ? QLatin1Char('B') : QLatin1Char('A');
    EXPECT_EQ(refusal(*kiosk, forged), QStringLiteral("403 admission_invalid"));
    QStringList fields = token.split(QLatin1Char('.'));
    fields[2] = QString::number(fields[2].toLongLong() + 1); // someone else's entry, same signature
    EXPECT_EQ(refusal(*kiosk, fields.join(QLatin1Char('.'))), QStringLiteral("403 admission_invalid"));
    EXPECT_EQ(refusal(*kiosk, QStringLiteral("garbage")), QStringLiteral("403 admission_invalid"));

    auto otherDevice = server.client(server.deviceToken());
    EXPECT_EQ(refusal(*otherDevice, token), QStringLiteral("403 admission_wrong_holder"));

    // Correctly signed (with the room's key from the database) but past its expiry: refused for its age alone.
    const QByteArray secret = QByteArray::fromHex(scalar(QStringLiteral("SELECT encode(secret, 'hex') FROM waiting_rooms WHERE show_id = %1"))
                                                      .toString()
                                                      .toLatin1());
    fields = token.split(QLatin1Char('.'));
    fields[3] = QString::number(QDateTime::currentMSecsSinceEpoch() - 1000);
    fields.removeLast();
    const QByteArray payload = fields.join(QLatin1Char('.')).toLatin1();
    const QByteArray mac = QMessageAuthenticationCode::hash(payload, secret, QCryptographicHash::Sha256)
                               .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    EXPECT_EQ(refusal(*kiosk, QString::fromLatin1(payload + '.' + mac)), QStringLiteral("403 admission_expired"));
    EXPECT_EQ(databaseState(server), before) << "a refused hold changed something";

    // Two holds with one admission at the same moment (the same device on two connections): exactly one gets seats.
    const QString deviceToken = server.deviceToken();
    auto racerA = server.client(deviceToken);
    auto racerB = server.client(deviceToken);
    const QString racerToken = admitted(*racerA);
    std::vector<int> statuses(2);
    std::vector<std::thread> racers;
    racers.emplace_back([&] { statuses[0] = racerA->post(holdPath(showId), seatsBody({QStringLiteral("D1")}), admission(racerToken)).status; });
    racers.emplace_back([&] { statuses[1] = racerB->post(holdPath(showId), seatsBody({QStringLiteral("D2")}), admission(racerToken)).status; });
    for (auto &racer : racers)
        racer.join();
    int granted = 0, conflicts = 0;
    for (int status : statuses) {
        granted += status == 200;
        conflicts += status == 409;
    }
    EXPECT_EQ(granted, 1);
    EXPECT_EQ(conflicts, 1);
}

TEST_F(WaitingRoom, SellOutTellsEveryoneStillWaiting)
{
    enableRoom({{QStringLiteral("min_admit_per_s"), 1}, {QStringLiteral("max_in_flight"), 1}});
    QStringList tokens;
    for (int i = 0; i < 30; ++i)
        tokens << join(*kiosk);
    pollUntil(*kiosk, statusPath(showId, tokens.last()), [](const QJsonObject &s) { return !s.value(QStringLiteral("position")).isNull(); });
    // Every seat booked (as confirmed orders would leave them): the next tick declares the show sold out.
    server.scalar(QStringLiteral("UPDATE show_seats SET status = 'booked', booking_id = gen_random_uuid() WHERE show_id = %1 RETURNING 1")
                      .arg(showId));
    const HttpResult last = pollUntil(*kiosk, statusPath(showId, tokens.last()),
                                      [](const QJsonObject &s) { return s.value(QStringLiteral("state")) == QStringLiteral("sold_out"); });
    ASSERT_EQ(last.json().value(QStringLiteral("state")).toString(), QStringLiteral("sold_out")) << last.body.constData();
    for (const QString &token : tokens) {
        const HttpResult status = kiosk->get(statusPath(showId, token));
        EXPECT_EQ(status.json().value(QStringLiteral("state")).toString(), QStringLiteral("sold_out"));
        EXPECT_FALSE(status.json().value(QStringLiteral("admitted")).toBool());
    }
    const HttpResult late = kiosk->post(joinPath(showId), {});
    EXPECT_EQ(late.status, 409);
    EXPECT_EQ(late.json().value(QStringLiteral("error")).toString(), QStringLiteral("sold_out"));
}

TEST_F(WaitingRoom, TwoInstancesShareTheQueueAndARestartKeepsIt)
{
    enableRoom({{QStringLiteral("opens_at"), isoIn(60000)}});
    const QString deviceToken = server.deviceToken();
    auto onFirst = server.client(deviceToken);
    const QString earlyToken = join(*onFirst);

    auto second = instanceOn(server);
    HttpClient onSecond(QStringLiteral("127.0.0.1"), second->port());
    onSecond.setToken(deviceToken);
    // The second instance knows the room and verifies the first one's token (one key, kept in the database).
    const HttpResult seen = onSecond.get(statusPath(showId, earlyToken));
    ASSERT_EQ(seen.status, 200) << seen.body.constData();
    EXPECT_EQ(seen.json().value(QStringLiteral("state")).toString(), QStringLiteral("before_opening"));
    const QString joinedOnSecond = join(onSecond);

    // Open now: both entries get places, whichever instance ticks.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), QJsonDocument(QJsonObject{{QStringLiteral("enabled"), true},
                                                                                  {QStringLiteral("opens_at"), isoIn(0)},
                                                                                  {QStringLiteral("min_admit_per_s"), 0.01},
                                                                                  {QStringLiteral("max_in_flight"), 1}})
                                                                         .toJson())
                  .status,
              200);
    const HttpResult placed = pollUntil(onSecond, statusPath(showId, joinedOnSecond),
                                        [](const QJsonObject &s) { return !s.value(QStringLiteral("position")).isNull() || isAdmitted(s); });
    ASSERT_EQ(placed.status, 200);
    // The floor rate admits the first in line, whom the in-flight limit of 1 then keeps alone: the watermark is
    // still once both are placed. Each instance refreshes it on its own tick (250 ms, longer on a loaded machine),
    // so wait until the first instance has, too, then both must answer alike.
    auto positionOf = [&](HttpClient &client, const QString &token) {
        const QJsonObject s = client.get(statusPath(showId, token)).json();
        return isAdmitted(s) ? 0 : s.value(QStringLiteral("position")).toInteger(-1);
    };
    QDeadlineTimer refreshed(10000);
    while (positionOf(*onFirst, earlyToken) + positionOf(*onFirst, joinedOnSecond) != 1 && !refreshed.hasExpired())
        QThread::msleep(50);
    const qint64 early = positionOf(*onFirst, earlyToken);
    const qint64 later = positionOf(*onFirst, joinedOnSecond);
    EXPECT_EQ(early + later, 1) << "one of the two is admitted, the other is first in line";
    EXPECT_EQ(positionOf(onSecond, earlyToken), early);
    EXPECT_EQ(positionOf(onSecond, joinedOnSecond), later);

    // The second instance goes away and comes back with empty memory: the queue is still there.
    onSecond.disconnect();
    second->stop();
    second.reset();
    auto restarted = instanceOn(server);
    HttpClient onRestarted(QStringLiteral("127.0.0.1"), restarted->port());
    onRestarted.setToken(deviceToken);
    EXPECT_EQ(positionOf(onRestarted, earlyToken), early);
    EXPECT_EQ(positionOf(onRestarted, joinedOnSecond), later);

    // An admission issued by one instance holds seats through the other.
    const QString admissionToken = pollUntil(onRestarted, statusPath(showId, early == 0 ? earlyToken : joinedOnSecond), isAdmitted)
                                       .json()
                                       .value(QStringLiteral("admission_token"))
                                       .toString();
    ASSERT_FALSE(admissionToken.isEmpty());
    const HttpResult held = onFirst->post(holdPath(showId), seatsBody({QStringLiteral("A5")}), admission(admissionToken));
    EXPECT_EQ(held.status, 200) << held.body.constData();
}

TEST_F(WaitingRoom, BadInputGetsClearErrorsAndChangesNothing)
{
    auto errorOf = [](const HttpResult &result) {
        return QString::number(result.status) + QLatin1Char(' ') + result.json().value(QStringLiteral("error")).toString();
    };
    EXPECT_EQ(errorOf(kiosk->post(joinPath(showId), {})), QStringLiteral("404 waiting_room_not_found"));
    EXPECT_EQ(errorOf(kiosk->post(joinPath(987654), {})), QStringLiteral("404 waiting_room_not_found"));
    EXPECT_EQ(errorOf(kiosk->post("/api/v1/queue/abc/join", {})), QStringLiteral("400 invalid_id"));
    EXPECT_EQ(errorOf(manager->request("PUT", roomPath(987654), R"({"enabled": true})")), QStringLiteral("404 show_not_found"));
    EXPECT_EQ(errorOf(manager->request("PUT", roomPath(showId), R"({"enabled": "yes"})")), QStringLiteral("400 missing_field"));
    EXPECT_EQ(errorOf(manager->request("PUT", roomPath(showId), R"({"enabled": true, "opens_at": "soon"})")), QStringLiteral("400 invalid_time"));
    EXPECT_EQ(errorOf(manager->request("PUT", roomPath(showId), R"({"enabled": true, "max_in_flight": 1.5})")),
              QStringLiteral("400 invalid_value"));
    EXPECT_EQ(errorOf(manager->request("PUT", roomPath(showId), R"({"enabled": true, "colour": "red"})")), QStringLiteral("400 unknown_field"));
    EXPECT_EQ(manager->request("PUT", roomPath(showId), "{not json").status, 400);
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM waiting_rooms")).toInt(), 0);
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'show.waiting_room'")).toInt(), 0);

    enableRoom();
    const QString token = join(*kiosk);
    const qint64 entries = scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries")).toLongLong();
    EXPECT_EQ(errorOf(kiosk->get("/api/v1/queue/" + QByteArray::number(showId) + "/status")), QStringLiteral("400 missing_token"));
    EXPECT_EQ(errorOf(kiosk->get(statusPath(showId, QStringLiteral("q.1.2.device:3.AAAA")))), QStringLiteral("400 invalid_queue_token"));
    EXPECT_EQ(errorOf(kiosk->get(statusPath(showId, token + QLatin1Char('x')))), QStringLiteral("400 invalid_queue_token"));
    EXPECT_EQ(errorOf(kiosk->get(statusPath(987654, token))), QStringLiteral("404 waiting_room_not_found"));
    auto otherDevice = server.client(server.deviceToken());
    EXPECT_EQ(errorOf(otherDevice->get(statusPath(showId, token))), QStringLiteral("403 queue_token_wrong_holder"));
    EXPECT_EQ(server.client()->post(joinPath(showId), {}).status, 401);
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries")).toLongLong(), entries);
}

TEST(WaitingRoomAutomatic, DemandPastTheThresholdSwitchesTheRoomOn)
{
    TestServer server;
    const qint64 showId = server.createShow(6, 10);
    const QString deviceToken = server.deviceToken();
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.threads = 2;
    config.databaseUrl = server.databaseUrl();
    config.dataDirectory = server.dataDirectory(); // a second server of one database needs the first one's KEK
    config.reconcilerIntervalMs = 0;
    config.waitingRoomThreshold = 20;
    // One kiosk token stands for the whole crowd here: the per-caller held-seat cap would refuse it first.
    config.maxHeldSeatsKiosk = 0;
    MarqueeServer guarded(config);
    ASSERT_TRUE(guarded.start()) << guarded.errorString().toStdString();
    HttpClient client(QStringLiteral("127.0.0.1"), guarded.port());
    client.setToken(deviceToken);
    // 50 attempts take well under two seconds, so one second of them sees at least 25 > 20.
    for (int seat = 0; seat < 50; ++seat)
        client.post(holdPath(showId), seatsBody({QStringLiteral("%1%2").arg(QChar(u'A' + seat / 10)).arg(seat % 10 + 1)}));
    QElapsedTimer timer;
    timer.start();
    HttpResult refused;
    for (int seat = 1; timer.elapsed() < 5000; ++seat) {
        QThread::msleep(100);
        refused = client.post(holdPath(showId), seatsBody({QStringLiteral("F%1").arg(seat % 10 + 1)}));
        if (refused.status != 200)
            break;
        client.del("/api/v1/holds/" + refused.json().value(QStringLiteral("hold_id")).toString().toLatin1());
    }
    EXPECT_EQ(refused.status, 403) << refused.body.constData();
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("admission_required"));
    EXPECT_TRUE(server.scalar(QStringLiteral("SELECT automatic FROM waiting_rooms WHERE show_id = %1").arg(showId)).toBool());
    guarded.stop();
}

TEST_F(WaitingRoom, RetryOfTheAdmittedHoldGetsItsStoredAnswerNotARefusal)
{
    enableRoom();
    const QString admissionToken = admitted(*kiosk);
    ASSERT_FALSE(admissionToken.isEmpty());
    auto headers = [&](const QByteArray &key) {
        auto list = admission(admissionToken);
        list.append({"Idempotency-Key", key});
        return list;
    };
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}), headers("retry-1"));
    ASSERT_EQ(held.status, 200) << held.body.constData();

    // The same request again (a lost answer, a retry): the stored answer, although the admission's hold is live.
    const HttpResult retried = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A2"), QStringLiteral("A1")}), headers("retry-1"));
    EXPECT_EQ(retried.status, 200) << retried.body.constData();
    EXPECT_EQ(retried.json(), held.json());
    // The same key for other seats is a client bug, as everywhere else.
    const HttpResult reused = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1")}), headers("retry-1"));
    EXPECT_EQ(reused.status, 422);
    EXPECT_EQ(reused.json().value(QStringLiteral("error")).toString(), QStringLiteral("idempotency_key_reused"));
    // Another request is still held back by the one-hold rule.
    const HttpResult other = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1")}), headers("retry-2"));
    EXPECT_EQ(other.status, 409);
    EXPECT_EQ(other.json().value(QStringLiteral("error")).toString(), QStringLiteral("admission_hold_active"));
    // Nothing was held twice: one live hold, two seats.
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM holds WHERE show_id = %1 AND released_at IS NULL")).toInt(), 1);
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'")).toInt(), 2);
}

TEST_F(WaitingRoom, BoxOfficeHoldsOnAHotShowWithoutAdmission)
{
    enableRoom();
    // The kiosk still queues...
    EXPECT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")})).status, 403);
    // ...while a till device and a cashier's session sell to the person at the counter without a token.
    const auto till = server.client(server.deviceToken(QStringLiteral("till")));
    const HttpResult tillHold = till->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_EQ(tillHold.status, 200) << tillHold.body.constData();
    const auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    const HttpResult cashierHold = cashier->post(holdPath(showId), seatsBody({QStringLiteral("A2")}));
    EXPECT_EQ(cashierHold.status, 200) << cashierHold.body.constData();
    // More than one hold at a time, as the counter needs; and the seats are still decided by PostgreSQL.
    EXPECT_EQ(cashier->post(holdPath(showId), seatsBody({QStringLiteral("A3")})).status, 200);
    const HttpResult taken = cashier->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_EQ(taken.status, 409);
    EXPECT_EQ(taken.json().value(QStringLiteral("error")).toString(), QStringLiteral("seats_unavailable"));
}

TEST_F(WaitingRoom, BoxOfficeHoldsAreBoundedPerSessionWhileTheRoomIsOn)
{
    // The default bound (ServerConfig::boxOfficeHoldsPerCaller): 8 live holds per till or staff session.
    const int limit = server.context().config.boxOfficeHoldsPerCaller;
    ASSERT_EQ(limit, 8);
    enableRoom();
    const auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    QStringList holdIds;
    for (int i = 1; i <= limit; ++i) {
        const HttpResult held = cashier->post(holdPath(showId), seatsBody({QStringLiteral("B%1").arg(i)}));
        ASSERT_EQ(held.status, 200) << i << ": " << held.body.constData();
        holdIds << held.json()[QStringLiteral("hold_id")].toString();
    }
    const HttpResult refused = cashier->post(holdPath(showId), seatsBody({QStringLiteral("C1")}));
    EXPECT_EQ(refused.status, 409);
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("box_office_hold_limit"));
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND seat_id = 'C1' AND status = 'held'")).toInt(), 0)
        << "a refused hold changes nothing";
    // Another session has its own bound.
    const auto other = server.client(server.staffToken(QStringLiteral("cashier")));
    EXPECT_EQ(other->post(holdPath(showId), seatsBody({QStringLiteral("C2")})).status, 200);
    // A released hold makes room again.
    ASSERT_EQ(cashier->del("/api/v1/holds/" + holdIds.front().toLatin1()).status, 200);
    EXPECT_EQ(cashier->post(holdPath(showId), seatsBody({QStringLiteral("C1")})).status, 200);
    // With the room off, the bound does not apply (the counter then sells like everyone else).
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": false})").status, 200);
    bool offEverywhere = false;
    for (int attempt = 0; attempt < 50 && !offEverywhere; ++attempt) {
        offEverywhere = cashier->post(holdPath(showId), seatsBody({QStringLiteral("D%1").arg(attempt + 1)})).status == 200;
        if (!offEverywhere)
            QThread::msleep(100); // the room's state reaches memory on the next refresh
    }
    EXPECT_TRUE(offEverywhere);
}

TEST_F(WaitingRoom, LongPollIsAnsweredWhenTheCallerIsAdmittedOrAtItsDeadline)
{
    // Opens in 2 s: the caller joins before, and one status request with wait=25 covers the opening, the shuffle
    // and the admission. Answered at the change, not at the deadline.
    enableRoom({{QStringLiteral("opens_at"), isoIn(2000)}});
    const QString token = join(*kiosk);
    QElapsedTimer timer;
    timer.start();
    const HttpResult admittedNow = kiosk->get(statusPath(showId, token) + "&wait=25");
    ASSERT_EQ(admittedNow.status, 200) << admittedNow.body.constData();
    EXPECT_TRUE(isAdmitted(admittedNow.json())) << admittedNow.body.constData();
    EXPECT_LT(timer.elapsed(), 20000) << "the long poll waited for its deadline instead of the admission";
    // Nothing to wait for: answered at once, even with wait.
    const HttpResult again = kiosk->get(statusPath(showId, token) + "&wait=25");
    EXPECT_TRUE(isAdmitted(again.json()));

    // Someone behind a full room (one admission in flight, unused) waits until the deadline and gets the current
    // status then.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": true, "max_in_flight": 1, "min_admit_per_s": 0.01})").status, 200);
    const auto other = server.client(server.deviceToken());
    const QString behind = join(*other);
    timer.restart();
    const HttpResult waited = other->get(statusPath(showId, behind) + "&wait=1");
    ASSERT_EQ(waited.status, 200) << waited.body.constData();
    EXPECT_FALSE(isAdmitted(waited.json()));
    EXPECT_GE(timer.elapsed(), 900) << "answered before its deadline although nothing changed";
    // Bad waits are refused and change nothing.
    for (const QByteArray &bad : {QByteArray("-1"), QByteArray("31"), QByteArray("soon")}) {
        const HttpResult refused = other->get(statusPath(showId, behind) + "&wait=" + bad);
        EXPECT_EQ(refused.status, 400) << bad.constData();
        EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_wait"));
    }
}

TEST_F(WaitingRoom, ConcurrentJoinsAreGroupCommittedEachWithItsOwnDurableEntry)
{
    enableRoom({{QStringLiteral("opens_at"), isoIn(3600 * 1000)}});
    constexpr int kClients = 8;
    constexpr int kJoinsEach = 40;
    std::vector<QString> deviceTokens;
    for (int c = 0; c < kClients; ++c)
        deviceTokens.push_back(server.deviceToken());
    const quint64 batchesBefore = server.context().waitingRoom.joinBatches();
    std::vector<std::vector<QString>> tokens(kClients);
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
        clients.emplace_back([&, c] {
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(deviceTokens[size_t(c)]);
            for (int i = 0; i < kJoinsEach; ++i) {
                const HttpResult joined = client.post(joinPath(showId), {});
                if (joined.status == 200)
                    tokens[size_t(c)].push_back(joined.json().value(QStringLiteral("queue_token")).toString());
            }
        });
    }
    for (std::thread &client : clients)
        client.join();

    // Every join answered, each with its own entry, bound to its own caller and committed before the answer.
    QSet<qint64> entryIds;
    for (int c = 0; c < kClients; ++c) {
        ASSERT_EQ(tokens[size_t(c)].size(), size_t(kJoinsEach));
        for (const QString &token : tokens[size_t(c)]) {
            const qint64 entryId = token.section(QLatin1Char('.'), 2, 2).toLongLong();
            entryIds.insert(entryId);
            EXPECT_EQ(server.scalar(QStringLiteral("SELECT owner FROM waiting_room_entries WHERE entry_id = %1 AND show_id = %2")
                                        .arg(entryId)
                                        .arg(showId))
                          .toString(),
                      token.section(QLatin1Char('.'), 3, 3));
        }
    }
    EXPECT_EQ(entryIds.size(), kClients * kJoinsEach);
    EXPECT_EQ(scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries WHERE show_id = %1")).toInt(), kClients * kJoinsEach);
    const quint64 batches = server.context().waitingRoom.joinBatches() - batchesBefore;
    EXPECT_GE(batches, 1u);
    EXPECT_LE(batches, quint64(kClients * kJoinsEach));
    std::printf("%d joins from %d connections in %llu INSERTs\n", kClients * kJoinsEach, kClients, static_cast<unsigned long long>(batches));
    // Each caller's own status works for each of its tokens, and not for another caller's.
    HttpClient first(QStringLiteral("127.0.0.1"), server.port());
    first.setToken(deviceTokens[0]);
    EXPECT_EQ(first.get(statusPath(showId, tokens[0].back())).json().value(QStringLiteral("state")).toString(), QStringLiteral("before_opening"));
    EXPECT_EQ(first.get(statusPath(showId, tokens[1].back())).status, 403);
}

TEST_F(WaitingRoom, UsersFarBackAreToldToPollRarelyUpToTheServersBound)
{
    server.context().waitingRoom.setMaxPollMs(120000);
    // Admission paused (every admitted user still choosing, in-flight bound 1): positions stay put.
    enableRoom({{QStringLiteral("min_admit_per_s"), 0.5}, {QStringLiteral("max_in_flight"), 1}});
    QStringList tokens;
    for (int i = 0; i < 400; ++i)
        tokens << join(*kiosk);
    const HttpResult last = pollUntil(*kiosk, statusPath(showId, tokens.last()),
                                      [](const QJsonObject &s) { return !s.value(QStringLiteral("position")).isNull(); });
    ASSERT_FALSE(last.json().value(QStringLiteral("position")).isNull()) << last.body.constData();
    const QJsonObject front = kiosk->get(statusPath(showId, tokens[1])).json();
    const QJsonObject back = kiosk->get(statusPath(showId, tokens.last())).json();
    ASSERT_EQ(front.value(QStringLiteral("state")).toString(), QStringLiteral("waiting")) << QJsonDocument(front).toJson().constData();
    const qint64 frontPoll = front.value(QStringLiteral("poll_after_ms")).toInteger();
    const qint64 backPoll = back.value(QStringLiteral("poll_after_ms")).toInteger();
    // A third of the eta (position / admission rate), spread by up to 10 %, within [1 s, the bound].
    const double backEtaMs = back.value(QStringLiteral("eta_s")).toDouble() * 1000;
    EXPECT_GE(backPoll, std::min(120000.0, backEtaMs / 3) * 0.9 - 1000);
    EXPECT_LE(backPoll, 120000 * 1.1);
    EXPECT_GE(frontPoll, 1000);
    EXPECT_LT(frontPoll, backPoll);
    EXPECT_GT(back.value(QStringLiteral("position")).toInteger(), front.value(QStringLiteral("position")).toInteger());
}

TEST(WaitingRoomCrash, JoinsAnsweredBeforeAKillAreAllInTheQueueAfterTheRestartInArrivalOrder)
{
    TestServer setup;
    const qint64 showId = setup.createShow(4, 10);
    auto manager = setup.client(setup.staffToken(QStringLiteral("manager")));
    // Open now, admitting almost nobody: one shopper at a time, at the floor rate.
    ASSERT_EQ(manager->request("PUT", roomPath(showId),
                               QJsonDocument(QJsonObject{{QStringLiteral("enabled"), true},
                                                         {QStringLiteral("min_admit_per_s"), 0.05},
                                                         {QStringLiteral("max_in_flight"), 1}})
                                   .toJson())
                  .status,
              200);
    constexpr int kClients = 8;
    std::vector<QString> deviceTokens;
    for (int c = 0; c < kClients; ++c)
        deviceTokens.push_back(setup.deviceToken());

    const quint16 port = freePort();
    std::vector<std::vector<QString>> acknowledged(kClients);
    {
        ServerProcess child(setup.databaseUrl(), port, setup.dataDirectory());
        ASSERT_TRUE(child.waitReady()) << child.output().constData();
        std::atomic<bool> stop{false};
        std::vector<std::thread> clients;
        for (int c = 0; c < kClients; ++c) {
            clients.emplace_back([&, c] {
                HttpClient client(QStringLiteral("127.0.0.1"), port);
                client.setToken(deviceTokens[size_t(c)]);
                while (!stop) {
                    const HttpResult joined = client.post(joinPath(showId), {});
                    if (joined.status == 200)
                        acknowledged[size_t(c)].push_back(joined.json().value(QStringLiteral("queue_token")).toString());
                    else if (joined.status == 0)
                        break; // the server is gone; what it answered before is what counts
                }
            });
        }
        QThread::msleep(1500);
        child.kill9(); // joins in flight at this moment get no answer: they may or may not be in the queue
        stop = true;
        for (std::thread &client : clients)
            client.join();
    }
    size_t answered = 0;
    for (const auto &tokens : acknowledged)
        answered += tokens.size();
    ASSERT_GT(answered, 20u) << "too few joins before the kill to show anything";

    ServerProcess restarted(setup.databaseUrl(), port, setup.dataDirectory());
    ASSERT_TRUE(restarted.waitReady()) << restarted.output().constData();
    // Every answered join is in the queue, with its rank, and its token works on the restarted server.
    qint64 firstEntry = std::numeric_limits<qint64>::max();
    QString firstToken;
    int firstClient = 0;
    int lost = 0;
    for (int c = 0; c < kClients; ++c) {
        HttpClient client(QStringLiteral("127.0.0.1"), port);
        client.setToken(deviceTokens[size_t(c)]);
        for (const QString &token : acknowledged[size_t(c)]) {
            const qint64 entryId = token.section(QLatin1Char('.'), 2, 2).toLongLong();
            if (setup.scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries WHERE entry_id = %1").arg(entryId)).toInt() != 1)
                ++lost;
            if (entryId < firstEntry) {
                firstEntry = entryId;
                firstToken = token;
                firstClient = c;
            }
        }
        const HttpResult status = pollUntil(client, statusPath(showId, acknowledged[size_t(c)].back()), [](const QJsonObject &s) {
            return !s.value(QStringLiteral("position")).isNull() || isAdmitted(s);
        });
        EXPECT_EQ(status.status, 200) << status.body.constData();
        EXPECT_TRUE(!status.json().value(QStringLiteral("position")).isNull() || isAdmitted(status.json())) << status.body.constData();
    }
    EXPECT_EQ(lost, 0) << "answered joins missing after the kill";
    // Arrivals after the opening are ranked first-in-first-out: ranks 1..n follow the entry ids, none skipped or twice.
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && setup.scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries WHERE show_id = %1 AND rank IS NULL").arg(showId)).toInt() > 0)
        QThread::msleep(50);
    EXPECT_EQ(setup.scalar(QStringLiteral("SELECT count(*) FROM (SELECT rank, row_number() OVER (ORDER BY entry_id) AS n FROM waiting_room_entries "
                                          "WHERE show_id = %1) r WHERE rank IS DISTINCT FROM n")
                               .arg(showId))
                  .toInt(),
              0);
    // The first to join is the first admitted, after the restart too.
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    client.setToken(deviceTokens[size_t(firstClient)]);
    const HttpResult admitted = pollUntil(client, statusPath(showId, firstToken), isAdmitted, 30000);
    EXPECT_TRUE(isAdmitted(admitted.json())) << admitted.body.constData();
}

namespace {
/** @brief A waiting-room answer as the wire carries it: status, the headers a client reads and the body, with what a
 *  run decides masked: tokens, instants, the show's id and the numbers a queue's timing decides (positive ones only:
 *  a 0 stays). */
std::string queueWire(const HttpResult &result, qint64 showId)
{
    static const std::vector<WireMask> masks{
        {QRegularExpression(QStringLiteral("\"(queue_token|admission_token)\":\"[^\"]+\"")), QStringLiteral("\"\\1\":\"<token>\"")},
        {QRegularExpression(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z")), QStringLiteral("<time>")},
        {QRegularExpression(QStringLiteral("\"(poll_after_ms|eta_s|position|queued|admitted)\":[1-9]\\d*")), QStringLiteral("\"\\1\":<n>")}};
    std::vector<WireMask> all = masks;
    all.emplace_back(QRegularExpression(QStringLiteral("(\"show_id\":|[Ss]how )%1\\b").arg(showId)), QStringLiteral("\\1<show>"));
    return maskedWire(result, all);
}
std::string queueAnswer(int status, const char *body)
{
    return std::to_string(status) + "\nContent-Type: application/json\n" + body;
}
} // namespace

// Every answer of the waiting room's routes, byte for byte: kiosks parse these (and long-poll on them), so the
// insides of WaitingRoomService may change but not this. Each is provoked for real.
TEST_F(WaitingRoom, EveryAnswerIsPinnedByteForByte)
{
    const auto pin = [this](const HttpResult &result) { return queueWire(result, showId); };
    const auto state = [](const char *wanted) {
        return [wanted](const QJsonObject &s) { return s.value(QStringLiteral("state")).toString() == QLatin1String(wanted); };
    };
    const char *noRoom = R"({"error":"waiting_room_not_found","message":"Show <show> has no waiting room (the show is unknown or sells without one)."})";
    EXPECT_EQ(pin(kiosk->post(joinPath(showId), {})), queueAnswer(404, noRoom));
    EXPECT_EQ(pin(kiosk->get(statusPath(showId, QStringLiteral("q.1.2.device:3.AAAA")))), queueAnswer(404, noRoom));
    EXPECT_EQ(pin(manager->request("PUT", roomPath(987654), R"({"enabled": true})")),
              queueAnswer(404, R"({"error":"show_not_found","message":"There is no show with this id."})"));

    // Before the opening.
    EXPECT_EQ(pin(manager->request("PUT", roomPath(showId), QJsonDocument(QJsonObject{{QStringLiteral("enabled"), true}, {QStringLiteral("opens_at"), isoIn(3600 * 1000)}}).toJson())),
              queueAnswer(200, R"({"admission_ttl_s":600,"admitted":0,"automatic":false,"enabled":true,"max_in_flight":2000,"min_admit_per_s":20,"opened":false,"opens_at":"<time>","queued":0,"show_id":<show>,"sold_out":false})"));
    const HttpResult early = kiosk->post(joinPath(showId), {});
    EXPECT_EQ(pin(early), queueAnswer(200, R"({"opens_at":"<time>","poll_after_ms":<n>,"position":null,"queue_token":"<token>","state":"before_opening"})"));
    const QString token = early.json().value(QStringLiteral("queue_token")).toString();
    EXPECT_EQ(pin(kiosk->get(statusPath(showId, token))),
              queueAnswer(200, R"({"admitted":false,"eta_s":null,"opens_at":"<time>","poll_after_ms":<n>,"position":null,"state":"before_opening"})"));
    EXPECT_EQ(pin(kiosk->get(statusPath(showId, token + QLatin1Char('x')))),
              queueAnswer(400, R"({"error":"invalid_queue_token","message":"This is not a queue token of show <show>'s waiting room."})"));
    EXPECT_EQ(pin(server.client(server.deviceToken())->get(statusPath(showId, token))),
              queueAnswer(403, R"({"error":"queue_token_wrong_holder","message":"This queue token belongs to another device or session."})"));
    EXPECT_EQ(pin(kiosk->get("/api/v1/queue/" + QByteArray::number(showId) + "/status")),
              queueAnswer(400, R"({"error":"missing_token","message":"Pass the queue token from the join as ?token=."})"));
    EXPECT_EQ(pin(kiosk->get(statusPath(showId, token) + "&wait=31")),
              queueAnswer(400, R"({"error":"invalid_wait","message":"'wait' must be a whole number of seconds from 0 to 30."})"));
    EXPECT_EQ(pin(kiosk->post("/api/v1/queue/abc/join", {})),
              queueAnswer(400, R"({"error":"invalid_id","message":"The show id must be a positive integer."})"));

    // Opened now: the early entry is ranked at the opening and admitted.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": true})").status, 200);
    EXPECT_EQ(pin(pollUntil(*kiosk, statusPath(showId, token), isAdmitted)),
              queueAnswer(200, R"({"admission_expires_at":"<time>","admission_token":"<token>","admitted":true,"eta_s":0,"poll_after_ms":<n>,"position":0,"state":"admitted"})"));
    // A correctly signed token of an entry the database does not have.
    const QByteArray secret = QByteArray::fromHex(scalar(QStringLiteral("SELECT encode(secret, 'hex') FROM waiting_rooms WHERE show_id = %1")).toString().toLatin1());
    const QByteArray payload = "q." + QByteArray::number(showId) + ".987654321." + token.split(QLatin1Char('.')).at(3).toUtf8();
    const QByteArray mac = QMessageAuthenticationCode::hash(payload, secret, QCryptographicHash::Sha256)
                               .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    EXPECT_EQ(pin(kiosk->get(statusPath(showId, QString::fromLatin1(payload + '.' + mac)))),
              queueAnswer(404, R"({"error":"queue_entry_not_found","message":"This queue entry no longer exists."})"));

    // An admission past its time: its entry admitted, then aged in the database before anyone asked about it.
    auto late = server.client(server.deviceToken());
    const HttpResult lateJoin = late->post(joinPath(showId), {});
    EXPECT_EQ(pin(lateJoin), queueAnswer(200, R"({"opens_at":"<time>","poll_after_ms":<n>,"position":null,"queue_token":"<token>","state":"queued"})"));
    const QString lateToken = lateJoin.json().value(QStringLiteral("queue_token")).toString();
    const QString lateEntry = lateToken.split(QLatin1Char('.')).at(2);
    QDeadlineTimer admittedBy(10000);
    while (server.scalar(QStringLiteral("SELECT count(*) FROM waiting_room_entries WHERE entry_id = %1 AND admitted_at IS NOT NULL").arg(lateEntry)).toInt() == 0
           && !admittedBy.hasExpired())
        QThread::msleep(50);
    server.scalar(QStringLiteral("UPDATE waiting_room_entries SET admitted_at = now() - interval '1 day' WHERE entry_id = %1 RETURNING 1").arg(lateEntry));
    EXPECT_EQ(pin(pollUntil(*late, statusPath(showId, lateToken), state("expired"))),
              queueAnswer(200, R"({"admitted":false,"eta_s":null,"poll_after_ms":<n>,"position":null,"state":"expired"})"));

    // Behind a full room (the first admission still in flight): waiting, with a place and an estimate.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": true, "max_in_flight": 1, "min_admit_per_s": 0.01})").status, 200);
    auto behind = server.client(server.deviceToken());
    const QString behindToken = join(*behind);
    EXPECT_EQ(pin(pollUntil(*behind, statusPath(showId, behindToken), state("waiting"))),
              queueAnswer(200, R"({"admitted":false,"eta_s":<n>,"poll_after_ms":<n>,"position":<n>,"state":"waiting"})"));

    // Switched off: the room is gone for polls and joins alike.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": false})").status, 200);
    EXPECT_EQ(pin(behind->get(statusPath(showId, behindToken))), queueAnswer(404, noRoom));
    EXPECT_EQ(pin(kiosk->post(joinPath(showId), {})), queueAnswer(404, noRoom));

    // Sold out: polls say so, joins are refused.
    ASSERT_EQ(manager->request("PUT", roomPath(showId), R"({"enabled": true})").status, 200);
    server.scalar(QStringLiteral("UPDATE show_seats SET status = 'booked', booking_id = gen_random_uuid() WHERE show_id = %1 RETURNING 1").arg(showId));
    EXPECT_EQ(pin(pollUntil(*behind, statusPath(showId, behindToken), state("sold_out"))),
              queueAnswer(200, R"({"admitted":false,"eta_s":null,"poll_after_ms":<n>,"position":null,"state":"sold_out"})"));
    EXPECT_EQ(pin(kiosk->post(joinPath(showId), {})), queueAnswer(409, R"({"error":"sold_out","message":"Show <show> is sold out."})"));
}
