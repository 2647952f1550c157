// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/seat.h"
#include "store/database.h"

#include <QDate>
#include <QJsonArray>
#include <QJsonObject>
#include <optional>
#include <vector>

namespace marquee::store {

/** @brief The immutable part of a show's seat map: the show, its prices, the layout and every seat. */
struct ShowLayout {
    qint64 showId = 0;
    QString currency;
    QJsonObject prices;  ///< tier → amount_minor
    QJsonObject layout;  ///< {layout_id, name, width, height, stage, rows, tiers}
    std::vector<marquee::Seat> seats; ///< canonical (byte) order of seat_id, the order of seatStatuses()
};

/** @brief The live part: one status letter per seat in canonical order ('a', 'h', 'b') and a version. */
struct SeatStatuses {
    QByteArray codes;
    qint64 version = 0;
    /** @brief Milliseconds (database clock) until the first held seat lapses; -1 when no seat is held. */
    qint64 firstLapseInMs = -1;
    /** @brief Milliseconds until sales close (or the show starts); -1 when sales are not open now. */
    qint64 salesOpenForMs = -1;
};

/** @brief Read-only catalog queries: cities, movies, shows and seat maps. */
class CatalogRepository
{
public:
    explicit CatalogRepository(const Database &database);

    std::optional<QJsonArray> cities();
    /** @brief Movies with upcoming shows in the city; std::nullopt for an unknown city. */
    std::optional<QJsonArray> moviesInCity(qint64 cityId);
    /** @brief A movie's shows, optionally in one city and on one local date; std::nullopt for an unknown movie. */
    std::optional<QJsonArray> showsOfMovie(qint64 movieId, std::optional<qint64> cityId, std::optional<QDate> date);
    /** @brief One show as in showsOfMovie(); std::nullopt when unknown. */
    std::optional<QJsonObject> show(qint64 showId);
    std::optional<ShowLayout> showLayout(qint64 showId);
    /** @brief Live statuses; a hold whose TTL has passed already reads as available. */
    std::optional<SeatStatuses> seatStatuses(qint64 showId);
    /** @brief False on a database error, with @p exists telling whether the city is known. */
    bool cityExists(qint64 cityId, bool *exists);
    /** @brief The database, for threads that must close their connection when they end. */
    const Database &database() const { return m_database; }

private:
    const Database &m_database;
};

} // namespace marquee::store
