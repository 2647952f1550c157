// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "database.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <optional>

namespace marquee::store {

/** @brief What a new show needs. Prices are integer minor units per tier. */
struct NewShow {
    qint64 movieId = 0;
    qint64 screenId = 0;
    QDateTime startsAt;
    QDateTime salesOpenAt;
    QDateTime salesCloseAt; ///< invalid: sales close when the show starts
    QString currency;
    QMap<QString, qint64> prices;
};

/** @brief A seat of a layout being created. */
struct NewLayoutSeat {
    QString seatId;
    QString row;
    int number = 0;
    int x = 0;
    int y = 0;
    QString tier;
    QStringList attributes;
};

/** @brief A row label and where it is drawn. */
struct NewLayoutRow {
    QString label;
    int x = 0;
    int y = 0;
};

/** @brief A seat layout being created: its plan, rows and seats. */
struct NewLayout {
    QString name;
    int width = 0;
    int height = 0;
    QJsonObject stage;
    std::vector<NewLayoutRow> rows;
    std::vector<NewLayoutSeat> seats;
};

/** @brief Writes to the catalog: cities, venues, layouts, screens, movies and shows (seed data and managers). */
class ShowRepository
{
public:
    explicit ShowRepository(const Database &database);

    std::optional<qint64> addCity(const QString &name, const QString &country, const QString &timeZone);
    std::optional<qint64> addVenue(qint64 cityId, const QString &name, const QString &address);
    std::optional<qint64> addLayout(const NewLayout &layout);
    std::optional<qint64> addScreen(qint64 venueId, const QString &name, qint64 layoutId);
    std::optional<qint64> addMovie(const QString &title, const QString &kind, int runtimeMin, const QString &rating,
                                   const QStringList &genres, const QString &synopsis);
    /** @brief Create a show and its seats (all available) in one transaction. */
    std::optional<qint64> addShow(const NewShow &show, QString *error = nullptr);

private:
    const Database &m_database;
};

} // namespace marquee::store
