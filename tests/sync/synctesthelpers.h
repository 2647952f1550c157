// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <functional>

namespace marquee::test {

/**
 * @brief Run the event loop until @p condition holds. The limit is a liveness bound (the test fails instead of
 * hanging), never a performance assertion.
 */
inline bool waitUntil(const std::function<bool()> &condition, int limitMs = 60000)
{
    QDeadlineTimer deadline(limitMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return true;
}

} // namespace marquee::test

#include "store/showrepository.h"
#include "testserver.h"

#include <QJsonObject>
#include <cstdio>
#include <cstdlib>

namespace marquee::test {

/**
 * @brief A show on a fresh rows × seatsPerRow layout (seats "A1".."A<n>", "B1"...), sales open now, starting
 * tomorrow: TestServer::createShow() with every text column given a value (it passes null strings, which the
 * NOT NULL columns refuse).
 */
inline qint64 createSyncShow(TestServer &server, int rows, int seatsPerRow)
{
    static int counter = 0;
    const int n = ++counter;
    store::ShowRepository shows(server.context().database);
    const auto city = shows.addCity(QStringLiteral("Synctown %1").arg(n), QStringLiteral("XX"), QStringLiteral("UTC"));
    const auto venue = city ? shows.addVenue(*city, QStringLiteral("Sync venue %1").arg(n), QStringLiteral("1 Main St")) : std::nullopt;
    store::NewLayout layout;
    layout.name = QStringLiteral("Sync layout %1").arg(n);
    layout.width = seatsPerRow * 10 + 20;
    layout.height = rows * 10 + 40;
    layout.stage = QJsonObject{{QStringLiteral("label"), QStringLiteral("SCREEN")}};
    for (int r = 0; r < rows; ++r) {
        const QString row = r < 26 ? QString(QChar(u'A' + r)) : QStringLiteral("R%1").arg(r);
        layout.rows.push_back({row, 0, 30 + r * 10});
        for (int s = 1; s <= seatsPerRow; ++s) {
            Seat seat;
            seat.seatId = row + QString::number(s);
            seat.row = row;
            seat.number = s;
            seat.x = 10 + s * 10;
            seat.y = 30 + r * 10;
            seat.tier = QStringLiteral("standard");
            layout.seats.push_back(seat);
        }
    }
    const auto layoutId = shows.addLayout(layout);
    const auto screen = venue && layoutId ? shows.addScreen(*venue, QStringLiteral("Screen %1").arg(n), *layoutId) : std::nullopt;
    const auto movie = shows.addMovie(QStringLiteral("Sync Movie %1").arg(n), QStringLiteral("movie"), 100, QStringLiteral("U"),
                                      {QStringLiteral("Drama")}, QStringLiteral("A film."));
    if (!screen || !movie) {
        std::fprintf(stderr, "cannot create the catalog of a sync test show\n");
        std::abort();
    }
    store::NewShow show;
    show.movieId = *movie;
    show.screenId = *screen;
    show.startsAt = QDateTime::currentDateTimeUtc().addDays(1);
    show.salesOpenAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    show.currency = QStringLiteral("EUR");
    show.prices = {{QStringLiteral("standard"), 1250}};
    QString error;
    const auto showId = shows.addShow(show, &error);
    if (!showId) {
        std::fprintf(stderr, "cannot create show: %s\n", qPrintable(error));
        std::abort();
    }
    return *showId;
}

} // namespace marquee::test
