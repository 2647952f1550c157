// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/showrepository.h"

namespace marquee {

/** @brief A cinema auditorium: curved rows, aisles, a premium block at the back, wheelchair and companion spaces. */
store::NewLayout cinemaLayout(const QString &name, int rows, int seatsPerRow, const QList<int> &aisleAfter, int premiumRows,
                              bool reclinerRow);
/** @brief An oval stadium of @p stands × @p blocksPerStand blocks of @p rowsPerBlock × @p seatsPerRow seats. */
store::NewLayout stadiumLayout(const QString &name, int blocksPerStand, int rowsPerBlock, int seatsPerRow);
/** @brief The demo's 40,000-seat stadium bowl (40 blocks of 25 rows × 40 seats), as seedDemo() loads it. */
store::NewLayout demoStadiumLayout();

/** @brief Summary of what seedDemo() created. */
struct DemoSeedResult {
    int cities = 0;
    int venues = 0;
    int screens = 0;
    int movies = 0;
    int shows = 0;
    qint64 stadiumShowId = 0;
    bool alreadySeeded = false;
};

/**
 * @brief Load realistic demo data: a city with two cinemas (screens of 80 to 400 seats), a week of shows of
 * several movies, and a 40,000-seat stadium show titled "Cricket Final". Does nothing if data exists.
 */
std::optional<DemoSeedResult> seedDemo(const store::Database &database, QString *error);

/**
 * @brief A stand-alone stadium event show of @p seats seats (a multiple of 1,000), sales open, starting in three
 * days, in a venue and city of its own — for benchmarks of how costs grow with the size of a show. Returns its id.
 */
std::optional<qint64> seedStadiumShow(const store::Database &database, int seats, QString *error);

} // namespace marquee
