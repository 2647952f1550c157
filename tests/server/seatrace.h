// SPDX-License-Identifier: AGPL-3.0-or-later
// The race tests' shared parts (tst_concurrency, tst_holdbatches, tst_leases): many clients released at the same
// moment, each on its own connection and thread, and the checks that prove afterwards, from the server's own
// records, that no seat was ever in two live holds and that the seat table is consistent (no seat held, leased or
// sold outside the hold, lease or booking that names it; no seat sold twice). Header-only.
#pragma once

#include "servertesthelpers.h"

#include <QHash>
#include <QSqlQuery>
#include <algorithm>
#include <atomic>
#include <functional>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

namespace marquee::test {

/**
 * @brief One thread per entry of @p tokens, each with its own HttpClient on @p server's port carrying that token,
 * all released together once every thread is ready; @p run(client index, its client) runs on each. Returns when all
 * have ended.
 */
inline void raceClients(const TestServer &server, const std::vector<QString> &tokens,
    const std::function<void(int client, HttpClient &http)> &run)
{
    std::atomic<bool> go {false};
    std::atomic<int> ready {0};
    std::vector<std::thread> threads;
    for (size_t c = 0; c < tokens.size(); ++c) {
        threads.emplace_back([&, c] {
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(tokens[c]);
            ++ready;
            while (!go.load())
                std::this_thread::yield();
            run(int(c), client);
        });
    }
    while (ready.load() < int(tokens.size()))
        std::this_thread::yield();
    go = true;
    for (std::thread &thread : threads)
        thread.join();
}

/** @brief A hold as PostgreSQL recorded it; the live interval is [createdUs, endUs). */
struct HoldRow {
    QString holdId;
    QString owner;
    QStringList seats;
    qint64 createdUs = 0;
    qint64 expiresUs = 0;
    qint64 releasedUs = 0; ///< 0: never released
    qint64 endUs() const { return releasedUs ? std::min(expiresUs, releasedUs) : expiresUs; }
};

/** @brief Every hold of @p showId, with its times as exact microseconds since the epoch. */
inline std::vector<HoldRow> loadHolds(TestServer &server, qint64 showId)
{
    std::vector<HoldRow> rows;
    QSqlQuery query(server.context().database.connection());
    EXPECT_TRUE(query.exec(QStringLiteral(
        "SELECT hold_id::text, owner, array_to_string(seat_ids, ','), "
        "  (extract(epoch FROM created_at) * 1000000)::bigint, (extract(epoch FROM expires_at) * 1000000)::bigint, "
        "  coalesce((extract(epoch FROM released_at) * 1000000)::bigint, 0) "
        "  FROM holds WHERE show_id = %1")
                               .arg(showId)));
    while (query.next()) {
        rows.push_back(
            {query.value(0).toString(), query.value(1).toString(), query.value(2).toString().split(QLatin1Char(',')),
                query.value(3).toLongLong(), query.value(4).toLongLong(), query.value(5).toLongLong()});
    }
    return rows;
}

/**
 * @brief No seat was ever in two live holds: for every seat, the live intervals of the holds that name it never
 * overlap (and each begins before it ends). Each overlap is a failure (the first ten are described).
 */
inline void expectNoSeatInTwoLiveHolds(const std::vector<HoldRow> &holds)
{
    QHash<QString, std::vector<const HoldRow *>> holdsBySeat;
    for (const HoldRow &hold : holds) {
        for (const QString &seat : hold.seats)
            holdsBySeat[seat].push_back(&hold);
    }
    int overlaps = 0;
    for (auto it = holdsBySeat.begin(); it != holdsBySeat.end(); ++it) {
        std::vector<const HoldRow *> &list = it.value();
        std::sort(
            list.begin(), list.end(), [](const HoldRow *a, const HoldRow *b) { return a->createdUs < b->createdUs; });
        const HoldRow *latest = nullptr; // the earlier hold whose interval reaches furthest
        for (const HoldRow *hold : list) {
            EXPECT_LT(hold->createdUs, hold->expiresUs) << qPrintable(hold->holdId);
            if (latest && hold->createdUs < latest->endUs() && ++overlaps <= 10) {
                ADD_FAILURE() << "seat " << qPrintable(it.key()) << " was in holds " << qPrintable(latest->holdId)
                              << " [" << latest->createdUs << ", " << latest->endUs() << ") and "
                              << qPrintable(hold->holdId) << " [" << hold->createdUs << ", " << hold->endUs()
                              << ") at once";
            }
            if (!latest || hold->endUs() > latest->endUs())
                latest = hold;
        }
    }
    EXPECT_EQ(overlaps, 0);
}

/**
 * @brief The seat table of @p showId at rest: a leased seat is leased to a lease of its show that names it and has
 * not been given back; a held seat is held by a hold of its show that names it; a booked seat belongs to a booking
 * of its show that names it; nothing else carries a holder; and a seat is in at most one booking.
 */
inline void expectSeatInvariants(TestServer &server, qint64 showId)
{
    const QString where = QStringLiteral(" WHERE ss.show_id = %1 ").arg(showId);
    EXPECT_EQ(server
                  .scalar(QStringLiteral(
                              "SELECT count(*) FROM show_seats ss LEFT JOIN seat_leases l ON l.lease_id = ss.leased_to")
                      + where
                      + QStringLiteral("AND ss.status = 'leased' AND (l.lease_id IS NULL OR l.show_id <> ss.show_id "
                                       "OR NOT ss.seat_id = ANY (l.seat_ids) OR l.returned_at IS NOT NULL)"))
                  .toInt(),
        0)
        << "a leased seat outside its lease";
    EXPECT_EQ(
        server
            .scalar(QStringLiteral("SELECT count(*) FROM show_seats ss LEFT JOIN holds h ON h.hold_id = ss.held_by")
                + where
                + QStringLiteral("AND ss.status = 'held' AND (h.hold_id IS NULL OR h.show_id <> ss.show_id OR NOT "
                                 "ss.seat_id = ANY (h.seat_ids))"))
            .toInt(),
        0)
        << "a held seat outside its hold";
    EXPECT_EQ(server
                  .scalar(QStringLiteral(
                              "SELECT count(*) FROM show_seats ss LEFT JOIN bookings b ON b.booking_id = ss.booking_id")
                      + where
                      + QStringLiteral(
                          "AND ss.status = 'booked' AND (b.booking_id IS NULL OR NOT ss.seat_id = ANY (b.seat_ids))"))
                  .toInt(),
        0)
        << "a booked seat outside its booking";
    EXPECT_EQ(server
                  .scalar(QStringLiteral("SELECT count(*) FROM show_seats ss") + where
                      + QStringLiteral(
                          "AND ((ss.status <> 'leased') = (ss.leased_to IS NOT NULL) AND ss.leased_to IS NOT NULL "
                          "  OR ss.status <> 'held' AND ss.held_by IS NOT NULL)"))
                  .toInt(),
        0)
        << "a holder on a seat of another status";
    EXPECT_EQ(server
                  .scalar(QStringLiteral("SELECT count(*) FROM (SELECT seat_id FROM booking_seats WHERE show_id = %1 "
                                         "GROUP BY seat_id HAVING count(*) > 1) AS twice")
                              .arg(showId))
                  .toInt(),
        0)
        << "a seat sold twice";
}

} // namespace marquee::test
