// SPDX-License-Identifier: AGPL-3.0-or-later
// The central guarantee of holds: many clients fight over overlapping multi-seat holds while holds expire and are
// released; afterwards a checker proves from the server's own records that no seat was ever in two live holds
// and that every refusal named only seats that really were taken. Plus a deadlock test with reversed orders.
#include "seatrace.h"
#include "servertesthelpers.h"

#include <QDateTime>
#include <QHash>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <random>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief Wall-clock microseconds: the same clock PostgreSQL's clock_timestamp() reads on this machine. */
qint64 nowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct HoldAttempt {
    int client = 0;
    QStringList seats; ///< as sent, in the order sent
    qint64 sendUs = 0;
    qint64 receiveUs = 0;
    int status = 0;
    QString holdId;            ///< 200
    QStringList grantedSeats;  ///< 200
    QStringList refusedSeats;  ///< 409 held_seats
    QString errorCode;
    int releaseStatus = -1; ///< status of the DELETE that followed, -1 when not released
};

QStringList sorted(QStringList list)
{
    list.sort(); // byte order for these ASCII ids: the server's canonical order
    return list;
}


/** @brief How a fight is run (see fightOverOverlappingHolds). */
struct Fight {
    int holdTtlSeconds = 1;
    int releaseOneIn = 3; ///< one in this many granted holds is given back early
    /**
     * @brief Another writer (as a second server instance would) releases holds behind this server's back, so its
     * in-memory statuses go stale without its knowing; a refusal may then name a seat freed up to
     * staleAllowanceMs before the request was sent — the documented bound of refusals from memory.
     */
    bool releasesBehindTheServersBack = false;
    qint64 staleAllowanceMs = 0;
    /** @brief Clients think 5–45 ms between attempts; without, they send back to back and the hold queue fills. */
    bool thinkTime = true;
    /**
     * @brief Every request carries an Idempotency-Key; one in this many (0: none) is also sent at the same moment
     * on a second connection, and every keyed request is sent again afterwards: all answers under one key must be
     * the same (or "request_in_progress" while the first is undecided).
     */
    int duplicateOneIn = 0;
};

/** @brief What the server answered from memory during a fight. */
struct FromMemory {
    quint64 refusals = 0; ///< all of them (HoldFastPath)
    quint64 whileQueued = 0; ///< of those, refused after waiting in the HoldBatcher's queue
};

/**
 * @brief Many clients fight over overlapping holds; then the checker proves from the server's own records that no
 * seat was in two live holds, every 200 is a stored hold with its seats, and every 409 named only seats that were
 * taken while the request was in flight (or, with @p fight.staleAllowanceMs, shortly before). Returns the server's
 * count of refusals made from memory.
 */
FromMemory fightOverOverlappingHolds(const Fight &fight)
{
    TestServer::Options options;
    options.threads = 4;
    options.holdTtlSeconds = fight.holdTtlSeconds; // holds lapse during the run, so claims of expired holds race with the reaper
    options.reaperIntervalMs = 150; // and the reaper sweeps concurrently
    TestServer server(options);
    constexpr int kRows = 3;
    constexpr int kSeatsPerRow = 10;
    constexpr int kClients = 64;
    // At least this long, and on a slow machine longer, until enough holds were granted (capped).
    constexpr int kRunMs = 6000;
    constexpr int kMaxRunMs = 30000;
    constexpr int kWantGranted = 120;
    const qint64 showId = server.createShow(kRows, kSeatsPerRow);

    std::vector<QString> tokens;
    std::vector<QString> owners;
    for (int i = 0; i < kClients; ++i) {
        tokens.push_back(server.deviceToken());
        owners.push_back(server.context().auth.authenticate(tokens.back())->owner());
    }

    std::vector<std::vector<HoldAttempt>> logs(kClients);
    std::atomic<int> grantedSoFar{0};
    std::atomic<int> keyMismatches{0};
    std::atomic<int> duplicatesSent {0};
    const QByteArray path = holdPath(showId);
    // The same answer under one key: status and body, except that a duplicate may find the first still undecided.
    const auto inProgress = [](const HttpResult &answer) {
        return answer.status == 409 && answer.json().value(QStringLiteral("error")).toString() == QLatin1String("request_in_progress");
    };
    const auto sameAnswer = [&](const HttpResult &final, const HttpResult &other) {
        return inProgress(other) || (other.status == final.status && other.json() == final.json());
    };
    std::atomic<bool> fighting {true};
    std::thread otherWriter;
    if (fight.releasesBehindTheServersBack) {
        otherWriter = std::thread([&] {
            const store::Database other(server.databaseConfig());
            std::mt19937 random(99u);
            while (fighting.load()) {
                // mq_release_hold is what the release route runs, here on a connection the server knows nothing of.
                QSqlQuery release(other.connection());
                release.exec(
                    QStringLiteral("SELECT mq_release_hold(h.owner, h.hold_id) FROM holds h WHERE h.show_id = %1 "
                                   "AND h.released_at IS NULL AND h.expires_at > now() ORDER BY random() LIMIT 1")
                        .arg(showId));
                QThread::msleep(20 + random() % 60);
            }
            other.closeThreadConnection();
        });
    }
    raceClients(
        server, tokens, [&](int c, HttpClient &client) {
            std::mt19937 random(1234u + unsigned(c));
            QElapsedTimer run;
            run.start();
            while (run.elapsed() < kMaxRunMs && (run.elapsed() < kRunMs || grantedSoFar.load() < kWantGranted)) {
                // 1–4 seats in one row, mostly adjacent, sometimes with a gap, in a shuffled order.
                const int count = 1 + int(random() % 4);
                const QString row(QChar(u'A' + int(random() % kRows)));
                int number = 1 + int(random() % (kSeatsPerRow - count + 1));
                QStringList seats;
                for (int i = 0; i < count && number <= kSeatsPerRow; ++i) {
                    seats << row + QString::number(number);
                    number += (random() % 5 == 0) ? 2 : 1;
                }
                std::shuffle(seats.begin(), seats.end(), random);

                HoldAttempt attempt;
                attempt.client = c;
                attempt.seats = seats;
                attempt.sendUs = nowUs();
                HttpResult result;
                if (fight.duplicateOneIn > 0) {
                    const QByteArray key = QUuid::createUuid().toString(QUuid::WithoutBraces).toLatin1();
                    const QList<QPair<QByteArray, QByteArray>> headers{{"Idempotency-Key", key}};
                    HttpResult duplicate;
                    std::thread twin;
                    if (random() % unsigned(fight.duplicateOneIn) == 0) {
                        ++duplicatesSent;
                        twin = std::thread([&] {
                            HttpClient second(QStringLiteral("127.0.0.1"), server.port());
                            second.setToken(tokens[size_t(c)]);
                            duplicate = second.post(path, seatsBody(seats), headers);
                        });
                    }
                    result = client.post(path, seatsBody(seats), headers);
                    attempt.receiveUs = nowUs();
                    if (twin.joinable())
                        twin.join();
                    // Sent after both are answered: the key's final answer, which every other must equal.
                    const HttpResult retry = client.post(path, seatsBody(seats), headers);
                    const bool good = !inProgress(retry) && sameAnswer(retry, result) && (duplicate.status == 0 || sameAnswer(retry, duplicate));
                    if (!good && ++keyMismatches <= 10)
                        ADD_FAILURE() << "key " << key.constData() << ": answers " << result.status << " " << result.body.constData() << " / "
                                      << duplicate.status << " " << duplicate.body.constData() << " / retry " << retry.status << " "
                                      << retry.body.constData();
                    if (inProgress(result))
                        result = retry; // the twin went first; this request's answer is the key's
                } else {
                    result = client.post(path, seatsBody(seats));
                    attempt.receiveUs = nowUs();
                }
                attempt.status = result.status;
                const QJsonObject body = result.json();
                attempt.errorCode = body.value(QStringLiteral("error")).toString();
                if (result.status == 200) {
                    ++grantedSoFar;
                    attempt.holdId = body.value(QStringLiteral("hold_id")).toString();
                    attempt.grantedSeats = stringList(body.value(QStringLiteral("seat_ids")));
                    // Some holds are given back early (a third by default); the rest lapse after their TTL.
                    if (random() % unsigned(fight.releaseOneIn) == 0) {
                        if (random() % 2)
                            QThread::msleep(random() % 200);
                        attempt.releaseStatus = client.del("/api/v1/holds/" + attempt.holdId.toLatin1()).status;
                    }
                } else if (result.status == 409) {
                    attempt.refusedSeats = stringList(body.value(QStringLiteral("held_seats")));
                }
                logs[size_t(c)].push_back(attempt);
                // Customers think a little between attempts; keeps 64 clients from starving a 2-core machine.
                if (fight.thinkTime)
                    QThread::msleep(5 + random() % 40);
            }
        });
    fighting = false;
    if (otherWriter.joinable())
        otherWriter.join();

    // Let the last holds lapse so that every live interval in the table is closed.
    QThread::msleep(fight.holdTtlSeconds * 1000 + 200);
    const std::vector<HoldRow> holds = loadHolds(server, showId);
    QHash<QString, const HoldRow *> holdById;
    QHash<QString, std::vector<const HoldRow *>> holdsBySeat;
    for (const HoldRow &hold : holds) {
        holdById.insert(hold.holdId, &hold);
        for (const QString &seat : hold.seats)
            holdsBySeat[seat].push_back(&hold);
    }

    int ok = 0, conflicts = 0, released = 0, failures = 0;
    // (d) nothing but 200 and 409 for holds, 200 for releases: no 5xx, no dropped connection.
    for (const auto &log : logs) {
        for (const HoldAttempt &attempt : log) {
            if (attempt.status == 200)
                ++ok;
            else if (attempt.status == 409)
                ++conflicts;
            if ((attempt.status != 200 && attempt.status != 409) || (attempt.releaseStatus != -1 && attempt.releaseStatus != 200)) {
                if (++failures <= 10)
                    ADD_FAILURE() << "client " << attempt.client << " got " << attempt.status << " " << qPrintable(attempt.errorCode)
                                  << " (release " << attempt.releaseStatus << ") for " << qPrintable(attempt.seats.join(QLatin1Char(',')));
            }
            if (attempt.releaseStatus == 200)
                ++released;
        }
    }
    EXPECT_EQ(failures, 0);
    // The run must really have been a fight: successes, refusals, releases and lapses all happened.
    EXPECT_GE(ok, 50);
    EXPECT_GE(conflicts, 50);
    if (fight.releaseOneIn <= 10) {
        EXPECT_GE(released, 5);
    }
    EXPECT_EQ(qsizetype(holds.size()), ok) << "every 200 and only a 200 creates a hold";
    std::printf("[          ] %d holds granted (%d released early), %d refused with 409\n", ok, released, conflicts);

    // (a) For every seat, the live intervals of its holds never overlap.
    expectNoSeatInTwoLiveHolds(holds);

    int badRefusals = 0, badGrants = 0;
    for (const auto &log : logs) {
        for (const HoldAttempt &attempt : log) {
            if (attempt.status == 200) {
                // (c) a 200's seats are exactly the request's and all belong to its hold, owned by the caller.
                const HoldRow *hold = holdById.value(attempt.holdId);
                const bool good = hold && attempt.grantedSeats == sorted(attempt.seats) && sorted(hold->seats) == sorted(attempt.seats)
                    && hold->owner == owners[size_t(attempt.client)];
                if (!good && ++badGrants <= 10)
                    ADD_FAILURE() << "hold " << qPrintable(attempt.holdId) << " granted " << qPrintable(attempt.grantedSeats.join(QLatin1Char(',')))
                                  << " for " << qPrintable(attempt.seats.join(QLatin1Char(',')));
            } else if (attempt.status == 409) {
                // (b) every seat a 409 named was in a live hold at some moment while the request was in flight.
                bool good = !attempt.refusedSeats.isEmpty();
                for (const QString &seat : attempt.refusedSeats) {
                    if (!attempt.seats.contains(seat)) {
                        good = false;
                        break;
                    }
                    const auto &candidates = holdsBySeat.value(seat);
                    const bool taken = std::any_of(candidates.begin(), candidates.end(), [&](const HoldRow *hold) {
                        return hold->createdUs <= attempt.receiveUs && hold->endUs() > attempt.sendUs - fight.staleAllowanceMs * 1000;
                    });
                    if (!taken) {
                        good = false;
                        break;
                    }
                }
                if (!good && ++badRefusals <= 10)
                    ADD_FAILURE() << "409 for " << qPrintable(attempt.seats.join(QLatin1Char(','))) << " named "
                                  << qPrintable(attempt.refusedSeats.join(QLatin1Char(','))) << " in [" << attempt.sendUs << ", "
                                  << attempt.receiveUs << "] but no live hold of those seats overlaps that window";
            }
        }
    }
    EXPECT_EQ(badGrants, 0);
    EXPECT_EQ(badRefusals, 0);
    EXPECT_EQ(keyMismatches.load(), 0);
    if (fight.duplicateOneIn > 0) {
        EXPECT_GT(duplicatesSent.load(), 0);
    }

    // And the table is consistent at rest: every held seat names a hold that contains it, no other seat a holder.
    expectSeatInvariants(server, showId);

    // No seat stays refused: once the statuses in memory are older than their bound, every seat that PostgreSQL
    // says is free can be held (a stale snapshot may only delay a hold, never block a free seat for good).
    QThread::msleep(qMax<qint64>(fight.staleAllowanceMs, 1000) + 300);
    const QStringList freeSeats = server.scalar(QStringLiteral("SELECT string_agg(seat_id, ',' ORDER BY seat_id) FROM show_seats WHERE show_id = %1 "
                                                               "AND (status = 'available' OR (status = 'held' AND hold_expires_at <= now()))")
                                                    .arg(showId))
                                      .toString()
                                      .split(QLatin1Char(','), Qt::SkipEmptyParts);
    EXPECT_FALSE(freeSeats.isEmpty());
    auto last = server.client(server.deviceToken());
    const HttpResult claimAll = last->post(holdPath(showId), seatsBody(freeSeats.mid(0, 10)));
    EXPECT_EQ(claimAll.status, 200) << claimAll.body.constData();
    return FromMemory{server.context().holdService.fastPath().refusals(), server.context().holdService.batcher().refusedWhileQueued()};
}

} // namespace

TEST(Concurrency, OverlappingHoldsNeverShareASeat)
{
    const FromMemory fromMemory = fightOverOverlappingHolds(Fight{});
    std::printf("[          ] %llu refusals from memory\n", static_cast<unsigned long long>(fromMemory.refusals));
}

// The same fight, tuned so that the refusals from memory really happen (longer holds, fewer releases),
// while another writer frees seats behind the server's back so that its statuses go stale.
TEST(Concurrency, RefusalsFromMemoryNeverGrantTwiceNorBlockAFreeSeat)
{
    Fight fight;
    fight.holdTtlSeconds = 3;
    fight.releaseOneIn = 12;
    fight.releasesBehindTheServersBack = true;
    fight.staleAllowanceMs = 1000 + 500; // fastRefusalMaxAgeMs plus the time its refresh query may take
    const FromMemory fromMemory = fightOverOverlappingHolds(fight);
    std::printf("[          ] %llu refusals from memory\n", static_cast<unsigned long long>(fromMemory.refusals));
    EXPECT_GT(fromMemory.refusals, 0u) << "the fast path was never taken: this test proved nothing about it";
}

// Hold admission: 64 clients send back to back, so hold requests wait in the HoldBatcher's queue
// and some are refused there from memory once an earlier batch took their seats; every request carries an
// Idempotency-Key, some are sent twice at the same moment on two connections, every one is sent again afterwards;
// another writer frees seats behind the server's back. The checker then proves no seat in two live holds, every
// 200 stored, every 409 named seats really taken (within the staleness bound), one answer per key, and that every
// free seat can be held once memory has aged out.
TEST(Concurrency, RefusalsWhileQueuedNeverGrantTwiceNorSplitAKeysAnswer)
{
    Fight fight;
    fight.holdTtlSeconds = 3;
    fight.releaseOneIn = 8;
    fight.releasesBehindTheServersBack = true;
    fight.staleAllowanceMs = 1000 + 500;
    fight.thinkTime = false;
    fight.duplicateOneIn = 5;
    const FromMemory fromMemory = fightOverOverlappingHolds(fight);
    std::printf("[          ] %llu refusals from memory, %llu of them after waiting in the hold queue\n",
                static_cast<unsigned long long>(fromMemory.refusals), static_cast<unsigned long long>(fromMemory.whileQueued));
    EXPECT_GT(fromMemory.whileQueued, 0u) << "no request was refused from the queue: this test proved nothing about it";
}

TEST(Concurrency, ReversedSeatOrdersNeverDeadlock)
{
    TestServer::Options options;
    options.threads = 4;
    TestServer server(options);
    const qint64 showId = server.createShow(1, 10);
    // Reads this database's deadlock count; after the fight, first forces the counters to be flushed by ending the
    // server's connections (backends write their counters when they exit). Not before it: the server opens its
    // worker connections at start, and ending them under it fails the first request on each worker.
    const auto deadlocks = [&server](bool flush) {
        if (flush) {
            server.scalar(QStringLiteral("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                         " WHERE datname = current_database() AND pid <> pg_backend_pid()"));
            QThread::msleep(300);
        }
        server.scalar(QStringLiteral("SELECT pg_stat_clear_snapshot()"));
        return server.scalar(QStringLiteral("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"));
    };
    ASSERT_EQ(deadlocks(false).toLongLong(), 0); // a new database: no hold has been tried yet

    QStringList ascending;
    for (int i = 1; i <= 10; ++i)
        ascending << QStringLiteral("A%1").arg(i);
    QStringList descending = ascending;
    std::reverse(descending.begin(), descending.end());

    constexpr int kClients = 24;
    constexpr int kRunMs = 3000;     // at least this long,
    constexpr int kWantGranted = 30; // and until this many holds went through,
    constexpr int kMaxRunMs = 20000; // but no longer than this
    std::vector<QString> tokens;
    for (int i = 0; i < kClients; ++i)
        tokens.push_back(server.deviceToken());
    std::atomic<int> granted{0}, refused{0}, failed{0};
    raceClients(
        server, tokens, [&](int c, HttpClient &client) {
            const QJsonObject body = seatsBody(c % 2 ? descending : ascending);
            QElapsedTimer run;
            run.start();
            while (run.elapsed() < kMaxRunMs && (run.elapsed() < kRunMs || granted.load() < kWantGranted)) {
                const HttpResult result = client.post(holdPath(showId), body);
                if (result.status == 200) {
                    ++granted;
                    if (client.del("/api/v1/holds/" + result.json()[QStringLiteral("hold_id")].toString().toLatin1()).status != 200)
                        ++failed;
                } else if (result.status == 409) {
                    ++refused;
                } else {
                    ++failed;
                }
            }
        });

    EXPECT_EQ(failed.load(), 0);
    EXPECT_GE(granted.load(), 10);
    EXPECT_GE(refused.load(), 10);
    std::printf("[          ] %d granted, %d refused\n", granted.load(), refused.load());
    EXPECT_EQ(deadlocks(true).toLongLong(), 0);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
    expectNoSeatInTwoLiveHolds(loadHolds(server, showId));
    expectSeatInvariants(server, showId);
    // The server reconnects after its connections were cut for the statistics flush. Each cut connection fails
    // one request (503, nothing held) before it reconnects: the workers' and the hold batch threads'.
    auto client = server.client(server.deviceToken());
    HttpResult after;
    const int connections = options.threads + server.context().config.holdBatches;
    for (int attempt = 0; attempt < connections + 2 && after.status != 200; ++attempt)
        after = client->post(holdPath(showId), seatsBody(descending));
    EXPECT_EQ(after.status, 200) << after.body.constData();
}
