// SPDX-License-Identifier: AGPL-3.0-or-later
// The bound on live held seats per caller and show (--max-held-seats-kiosk, -till, -staff): decided by PostgreSQL
// with each hold, across single holds and sync batches, never passed by concurrent holds of one caller.
#include "orderfixture.h"
#include "servertesthelpers.h"

#include <QJsonArray>
#include <QTemporaryFile>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

TestServer::Options boundOptions(int kioskSeats, int holdBatches = -1)
{
    TestServer::Options options = TestServer::Options::withConfig([=](ServerConfig &config) {
        config.maxHeldSeatsKiosk = kioskSeats;
        config.maxHeldSeatsTill = kioskSeats + 3;
        if (holdBatches >= 0)
            config.holdBatches = holdBatches;
    });
    options.boundHeldSeats = true;
    return options;
}

/** @brief The live held seats of @p owner on @p showId, as the database has them. */
int liveHeldSeats(TestServer &server, qint64 showId, const QString &owner)
{
    return server
        .scalar(QStringLiteral("SELECT count(*) FROM show_seats ss JOIN holds h ON h.hold_id = ss.held_by "
                               " WHERE ss.show_id = %1 AND ss.status = 'held' AND ss.hold_expires_at > now() AND h.owner = '%2'")
                    .arg(showId)
                    .arg(owner))
        .toInt();
}

/** @brief Rows where the running counts (held_seat_counts) and the seats held by counted holds disagree: none when
 *  every statement that changed a seat's holder kept the count. Owners with no held seat may keep a row of 0. */
int countMismatches(TestServer &server)
{
    return server
        .scalar(QStringLiteral(
            "WITH kept AS (SELECT owner, show_id, held FROM held_seat_counts WHERE held <> 0), "
            "     truth AS (SELECT h.owner, ss.show_id, count(*)::integer AS held FROM show_seats ss JOIN holds h ON h.hold_id = ss.held_by "
            "                WHERE ss.status = 'held' AND h.counted GROUP BY h.owner, ss.show_id) "
            "SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM truth) AS a) "
            "     + (SELECT count(*) FROM (SELECT * FROM truth EXCEPT SELECT * FROM kept) AS b)"))
        .toInt();
}

/** @brief The running count of @p owner on @p showId (lapsed seats included until swept or taken). */
int runningCount(TestServer &server, qint64 showId, const QString &owner)
{
    return server.scalar(QStringLiteral("SELECT coalesce((SELECT held FROM held_seat_counts WHERE owner = '%1' AND show_id = %2), 0)").arg(owner).arg(showId)).toInt();
}

/** @brief Let hold @p holdId lapse now, as if its time had run out (the seats stay held until swept or taken). */
void lapse(TestServer &server, const QString &holdId)
{
    server.scalar(QStringLiteral("WITH s AS (UPDATE show_seats SET hold_expires_at = clock_timestamp() - interval '1 second' WHERE held_by = '%1' RETURNING 1), "
                                 "     h AS (UPDATE holds SET expires_at = clock_timestamp() - interval '1 second' WHERE hold_id = '%1' RETURNING 1) "
                                 "SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM h)")
                      .arg(holdId));
}

QStringList seatsOf(int rows, int perRow)
{
    QStringList seats;
    for (int r = 0; r < rows; ++r)
        for (int n = 1; n <= perRow; ++n)
            seats << QString(QChar(u'A' + r)) + QString::number(n);
    return seats;
}

QJsonObject holdAction(qint64 showId, const QString &seat, const QString &key)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("hold")},
                       {QStringLiteral("idempotency_key"), key},
                       {QStringLiteral("payload"), QJsonObject{{QStringLiteral("show_id"), showId}, {QStringLiteral("seat_ids"), QJsonArray{seat}}}}};
}

} // namespace

// Many holds of one kiosk at the same moment, each for a free seat of its own: exactly the bound is granted, in a
// batch's transaction (group commit) and with every hold in its own concurrent transaction alike.
TEST(HoldLimits, ConcurrentHoldsOfOneTokenNeverPassTheBound)
{
    constexpr int kBound = 12;
    constexpr int kRequests = 48;
    for (const int holdBatches : {-1, 0}) {
        TestServer server(boundOptions(kBound, holdBatches));
        const qint64 showId = server.createShow(6, 10);
        const QString token = server.deviceToken();
        const QString owner = server.context().auth.authenticate(token)->owner();
        const QStringList seats = seatsOf(6, 10);
        std::atomic<bool> go{false};
        std::atomic<int> granted{0};
        std::atomic<int> bounded{0};
        std::atomic<int> other{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kRequests; ++t) {
            threads.emplace_back([&, t] {
                HttpClient client(QStringLiteral("127.0.0.1"), server.port());
                client.setToken(token);
                while (!go.load())
                    std::this_thread::yield();
                const HttpResult result = client.post(holdPath(showId), seatsBody({seats.at(t)}));
                if (result.status == 200)
                    ++granted;
                else if (result.status == 409 && result.json().value(QStringLiteral("error")).toString() == QLatin1String("hold_limit_reached")
                         && result.json().value(QStringLiteral("seat_limit")).toInt() == kBound)
                    ++bounded;
                else
                    ++other;
            });
        }
        go = true;
        for (std::thread &thread : threads)
            thread.join();
        SCOPED_TRACE(holdBatches == 0 ? "one transaction per hold" : "group commit");
        EXPECT_EQ(other.load(), 0);
        EXPECT_EQ(granted.load(), kBound);
        EXPECT_EQ(bounded.load(), kRequests - kBound);
        EXPECT_EQ(liveHeldSeats(server, showId, owner), kBound);
        EXPECT_EQ(seatsInStatus(server, showId, "held"), kBound);
    }
}

// One sync batch of many hold actions counts against the same bound as single holds; a refusal changes nothing and
// has its own catalogue entry; a release makes room; other shows, other callers and tills have bounds of their own.
TEST(HoldLimits, SyncBatchesAndSingleHoldsShareOneBoundPerCallerAndShow)
{
    constexpr int kBound = 12;
    TestServer server(boundOptions(kBound));
    const qint64 showId = server.createShow(3, 10);
    const qint64 otherShow = server.createShow(1, 4);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    const QString owner = server.context().auth.authenticate(token)->owner();
    const QStringList seats = seatsOf(3, 10);

    QJsonArray actions;
    for (int i = 0; i < 20; ++i)
        actions.append(holdAction(showId, seats.at(i), QStringLiteral("limit-%1").arg(i)));
    const HttpResult replayed = kiosk->post("/api/v1/sync/batch", QJsonObject{{QStringLiteral("actions"), actions}});
    ASSERT_EQ(replayed.status, 200) << replayed.body.constData();
    const QJsonArray results = replayed.json().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(results.size(), 20);
    int granted = 0;
    QStringList holdIds;
    for (const QJsonValue &result : results) {
        const QJsonObject body = result.toObject().value(QStringLiteral("body")).toObject();
        if (result.toObject().value(QStringLiteral("status")).toInt() == 200) {
            ++granted;
            holdIds << body.value(QStringLiteral("hold_id")).toString();
        } else {
            EXPECT_EQ(result.toObject().value(QStringLiteral("status")).toInt(), 409);
            EXPECT_EQ(body.value(QStringLiteral("error")).toString(), QStringLiteral("hold_limit_reached"));
        }
    }
    EXPECT_EQ(granted, kBound);
    EXPECT_EQ(liveHeldSeats(server, showId, owner), kBound);

    // A single hold on top: refused by PostgreSQL, byte for byte, and nothing changes.
    const QString state = databaseState(server);
    const HttpResult refused = kiosk->post(holdPath(showId), seatsBody({seats.at(25), seats.at(26)}));
    EXPECT_EQ(refused.status, 409);
    EXPECT_EQ(refused.body, QByteArray(R"({"error": "hold_limit_reached", "message": "You already hold 12 seats of this show and may hold at most 12 at a time; buy or release some first.", "seat_limit": 12, "seats_held": 12})"));
    EXPECT_EQ(databaseState(server), state);
    // The batch's refusals were stored under their keys: replayed as they were.
    const HttpResult again = kiosk->post("/api/v1/sync/batch", QJsonObject{{QStringLiteral("actions"), actions}});
    EXPECT_EQ(again.body, replayed.body);

    // A release makes room for as many seats as it freed.
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + holdIds.first().toLatin1()).status, 200);
    EXPECT_EQ(kiosk->post(holdPath(showId), seatsBody({seats.at(25), seats.at(26)})).status, 409) << "one seat freed, two asked";
    EXPECT_EQ(kiosk->post(holdPath(showId), seatsBody({seats.at(25)})).status, 200);
    EXPECT_EQ(liveHeldSeats(server, showId, owner), kBound);

    // Another show, another kiosk and a till (its own bound) are not affected.
    EXPECT_EQ(kiosk->post(holdPath(otherShow), seatsBody({QStringLiteral("A1")})).status, 200);
    EXPECT_EQ(server.client(server.deviceToken())->post(holdPath(showId), seatsBody({seats.at(27)})).status, 200);
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    EXPECT_EQ(till->post(holdPath(showId), seatsBody({seats.at(28), seats.at(29)})).status, 200);
}

// The running count follows every way a seat leaves or joins a caller's holds — grant, release, sale, an order
// ended by a release, a lapse (counted until swept or taken, but never refusing a hold the live seats allow),
// another caller taking the lapsed seats, the reaper — and agrees with the seats after each step.
TEST(HoldLimits, RunningCountFollowsReleasesSalesLapsesTakeoversAndSweeps)
{
    constexpr int kBound = 6;
    TestServer::Options options = paymentOptions();
    options.boundHeldSeats = true;
    options.reaperIntervalMs = 0; // swept below, when the test says so
    options.configure = [](ServerConfig &config) {
        config.maxHeldSeatsKiosk = kBound;
        config.fastRefusals = false; // the seat maps do not know of the lapses this test makes in SQL
    };
    OrderFixture f(options);
    TestServer &server = f.server;
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    const QString owner = server.context().auth.authenticate(token)->owner();
    const QString otherToken = server.deviceToken();
    auto other = server.client(otherToken);
    const QString otherOwner = server.context().auth.authenticate(otherToken)->owner();
    auto step = [&](const char *what, int running, int live) {
        SCOPED_TRACE(what);
        EXPECT_EQ(countMismatches(server), 0);
        EXPECT_EQ(runningCount(server, f.showId, owner), running);
        EXPECT_EQ(liveHeldSeats(server, f.showId, owner), live);
    };

    const QString sold = f.hold(*kiosk, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QString released = f.hold(*kiosk, {QStringLiteral("A3")});
    const QString lapsing = f.hold(*kiosk, {QStringLiteral("A4"), QStringLiteral("A5")});
    step("three holds", 5, 5);
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + released.toLatin1()).status, 200);
    step("a release", 4, 4);
    const HttpResult created = f.order(*kiosk, sold);
    ASSERT_EQ(created.status, 201) << created.body.constData();
    step("an order extends the hold: same holder, same count", 4, 4);
    const QString intentId = created.json().value(QStringLiteral("payment_intent_id")).toString();
    ASSERT_EQ(f.sim.pay(intentId, QStringLiteral("tok_visa")).status, 200);
    ASSERT_EQ(f.confirm(*kiosk, created.json().value(QStringLiteral("order_id")).toString(), intentId).status, 200);
    step("a sale", 2, 2);
    const QString ordered = f.hold(*kiosk, {QStringLiteral("B1"), QStringLiteral("B2"), QStringLiteral("B3"), QStringLiteral("B4")});
    step("up to the bound", 6, 6);
    EXPECT_EQ(kiosk->post(holdPath(f.showId), seatsBody({QStringLiteral("B5")})).status, 409);

    lapse(server, lapsing);
    step("a lapse is counted until swept or taken", 6, 4);
    // The running count would refuse; the live seats allow two more: the bound is decided on those.
    EXPECT_EQ(kiosk->post(holdPath(f.showId), seatsBody({QStringLiteral("B5"), QStringLiteral("B6"), QStringLiteral("C1")})).status, 409);
    EXPECT_EQ(kiosk->post(holdPath(f.showId), seatsBody({QStringLiteral("B5"), QStringLiteral("B6")})).status, 200);
    step("granted past the running count on the live seats", 8, 6);
    EXPECT_EQ(kiosk->post(holdPath(f.showId), seatsBody({QStringLiteral("C1")})).status, 409);

    EXPECT_EQ(other->post(holdPath(f.showId), seatsBody({QStringLiteral("A4")})).status, 200);
    step("another caller took a lapsed seat", 7, 6);
    EXPECT_EQ(runningCount(server, f.showId, otherOwner), 1);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM mq_reap_expired_holds(100)")).toInt(), 1);
    step("the reaper swept the other lapsed seat", 6, 6);

    const HttpResult pending = f.order(*kiosk, ordered);
    ASSERT_EQ(pending.status, 201) << pending.body.constData();
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + ordered.toLatin1()).status, 200);
    EXPECT_EQ(f.orderState(pending.json().value(QStringLiteral("order_id")).toString()), QStringLiteral("CANCELLED"));
    step("a release that ended an unpaid order", 2, 2);
    EXPECT_EQ(kiosk->post(holdPath(f.showId), seatsBody({QStringLiteral("C1"), QStringLiteral("C2"), QStringLiteral("C3"), QStringLiteral("C4")})).status, 200);
    step("room again", 6, 6);
}

// Concurrent holds of one caller while its lapsed holds are being taken by another caller and swept by the reaper:
// the caller ends with exactly the bound live, and the running counts agree with the seats.
TEST(HoldLimits, RunningCountStaysRightUnderConcurrentLapsesTakeoversAndSweeps)
{
    constexpr int kBound = 8;
    TestServer::Options options = TestServer::Options::withConfig([](ServerConfig &config) {
        config.maxHeldSeatsKiosk = kBound;
        config.fastRefusals = false; // the seat maps do not know of the lapses this test makes in SQL
    });
    options.boundHeldSeats = true;
    options.reaperIntervalMs = 50;
    TestServer server(options);
    const qint64 showId = server.createShow(6, 10);
    const QStringList seats = seatsOf(6, 10);
    const QString token = server.deviceToken();
    const QString owner = server.context().auth.authenticate(token)->owner();
    const QString otherToken = server.deviceToken(QStringLiteral("till")); // a bound of 60: never reached here
    auto kiosk = server.client(token);
    QStringList lapsing;
    for (int i = 0; i < kBound; ++i) {
        const HttpResult held = kiosk->post(holdPath(showId), seatsBody({seats.at(i)}));
        ASSERT_EQ(held.status, 200) << held.body.constData();
        lapsing << held.json().value(QStringLiteral("hold_id")).toString();
    }
    for (const QString &hold : lapsing)
        lapse(server, hold);

    std::atomic<bool> go{false};
    std::atomic<int> granted{0};
    std::atomic<int> other{0};
    std::atomic<int> taken{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 32; ++t) {
        threads.emplace_back([&, t] {
            const bool mine = t % 2 == 0;
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(mine ? token : otherToken);
            while (!go.load())
                std::this_thread::yield();
            // Mine: fresh seats beyond the lapsed ones. The other kiosk's: the lapsed seats (or fresh ones past them).
            const QString seat = mine ? seats.at(kBound + t) : seats.at(t / 2 < kBound ? t / 2 : 40 + t / 2);
            const HttpResult result = client.post(holdPath(showId), seatsBody({seat}));
            if (mine && result.status == 200)
                ++granted;
            else if (!mine && result.status == 200)
                ++taken;
            else if (result.status != 200 && result.status != 409)
                ++other;
        });
    }
    go = true;
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(other.load(), 0);
    EXPECT_EQ(granted.load(), kBound);
    EXPECT_EQ(taken.load(), 16) << "every lapsed seat (swept or not) and the fresh ones past them";
    EXPECT_EQ(liveHeldSeats(server, showId, owner), kBound);
    EXPECT_EQ(countMismatches(server), 0);
    // Once everything lapsed has been swept or taken, the running count is the live count.
    ASSERT_TRUE(pumpUntil([&] { return server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held' "
                                                                     "AND hold_expires_at <= now()").arg(showId)).toInt() == 0; }));
    EXPECT_EQ(runningCount(server, showId, owner), kBound);
    EXPECT_EQ(countMismatches(server), 0);
}

TEST(HoldLimits, BoundsAreServerOptions)
{
    QString error;
    const auto defaults = ServerConfig::fromArguments({}, &error);
    ASSERT_TRUE(defaults);
    EXPECT_EQ(defaults->maxHeldSeatsKiosk, 20);
    EXPECT_EQ(defaults->maxHeldSeatsTill, 60);
    EXPECT_EQ(defaults->maxHeldSeatsStaff, 200);
    const auto set = ServerConfig::fromArguments({QStringLiteral("--max-held-seats-kiosk"), QStringLiteral("12"), QStringLiteral("--max-held-seats-till"),
                                                  QStringLiteral("0"), QStringLiteral("--max-held-seats-staff"), QStringLiteral("500")},
                                                 &error);
    ASSERT_TRUE(set) << qPrintable(error);
    EXPECT_EQ(set->maxHeldSeatsKiosk, 12);
    EXPECT_EQ(set->maxHeldSeatsTill, 0);
    EXPECT_EQ(set->maxHeldSeatsStaff, 500);
    QTemporaryFile file;
    ASSERT_TRUE(file.open());
    file.write("max-held-seats-kiosk = 8\n");
    file.close();
    const auto fromFile = ServerConfig::fromArguments({QStringLiteral("--config"), file.fileName()}, &error);
    ASSERT_TRUE(fromFile) << qPrintable(error);
    EXPECT_EQ(fromFile->maxHeldSeatsKiosk, 8);
    for (const char *bad : {"-1", "100001", "many"}) {
        error.clear();
        EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--max-held-seats-kiosk"), QString::fromLatin1(bad)}, &error)) << bad;
        EXPECT_TRUE(error.contains(QStringLiteral("--max-held-seats-kiosk"))) << qPrintable(error);
    }
}
