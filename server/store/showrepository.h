// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/seat.h"
#include "store/database.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <functional>
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
    std::vector<marquee::Seat> seats;
};

/** @brief Writes to the catalog: cities, venues, layouts, screens, movies and shows (seed data and managers). */
class ShowRepository
{
public:
    explicit ShowRepository(const Database &database);

    /** @brief How many cities the catalogue holds (0: nothing seeded yet); std::nullopt with @p error on a database error. */
    std::optional<qint64> cityCount(QString *error = nullptr);
    std::optional<qint64> addCity(const QString &name, const QString &country, const QString &timeZone);
    /** @brief A venue in @p cityId; @p currency (ISO 4217) is what its new shows sell in by default, empty: not known. */
    std::optional<qint64> addVenue(qint64 cityId, const QString &name, const QString &address, const QString &currency = {});
    std::optional<qint64> addLayout(const NewLayout &layout);
    std::optional<qint64> addScreen(qint64 venueId, const QString &name, qint64 layoutId);
    std::optional<qint64> addMovie(const QString &title, const QString &kind, int runtimeMin, const QString &rating,
                                   const QStringList &genres, const QString &synopsis);
    /** @brief Work that must commit or roll back together with a catalog write (for example its audit entry). */
    using AlsoInTransaction = std::function<bool(QSqlDatabase &db, qint64 showId)>;

    /** @brief Create a show and its seats (all available) in one transaction (with @p also, if given). */
    std::optional<qint64> addShow(const NewShow &show, QString *error = nullptr, const AlsoInTransaction &also = {});

    /**
     * @brief The tiers of the screen's layout (every one needs a price); std::nullopt for an unknown screen.
     * @p venueCurrency, if given, receives the currency of the screen's venue (empty when the venue has none).
     */
    std::optional<QStringList> screenTiers(qint64 screenId, bool *ok, QString *venueCurrency = nullptr);
    /** @brief False on a database error; @p exists tells whether the movie is known. */
    bool movieExists(qint64 movieId, bool *exists);

    /** @brief A change to a show; unset fields stay as they are. Seats are never touched by an edit. */
    struct ShowChanges {
        std::optional<QDateTime> startsAt;
        std::optional<QDateTime> salesOpenAt;
        std::optional<QDateTime> salesCloseAt;
        std::optional<bool> waitingRoom;
        QMap<QString, qint64> prices; ///< tiers to (re)price; empty: prices unchanged
    };
    enum class UpdateResult { Updated, NotFound, Invalid, Error };
    /** @brief Apply @p changes in one transaction; Invalid when the result breaks the sales-window rules. */
    UpdateResult updateShow(qint64 showId, const ShowChanges &changes, QString *error, const AlsoInTransaction &also = {});

private:
    const Database &m_database;
};

} // namespace marquee::store
