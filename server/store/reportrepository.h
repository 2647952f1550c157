// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <optional>

namespace marquee::store {

/**
 * @brief What one show's occupancy report depends on that can change: its seats' row versions (every write of a
 * seat bumps its version, so the sum only grows), how many seats it has, and the next instant a live hold lapses
 * (a lapse turns a held seat free without any write). Two equal stamps of a show mean an equal report; see
 * OccupancyReports.
 */
struct OccupancyStamp {
    qint64 seats = 0;
    qint64 versionSum = 0;
    qint64 nextLapseUs = 0; ///< microseconds since the epoch; 0 when no hold is live
    bool operator==(const OccupancyStamp &) const = default;
};

/** @brief An occupancy report with the stamp of the snapshot it was computed from. */
struct OccupancyDocument {
    QByteArray json; ///< empty when the show does not exist
    OccupancyStamp stamp;
};

/** @brief How the sales report groups its rows. */
enum class SalesGrouping { Day, Show, Movie, Channel, Device };

/** @brief "day", "show", ... → the grouping; std::nullopt for anything else. */
std::optional<SalesGrouping> salesGroupingFromString(const QString &text);

/**
 * @brief The manager desk's sales and occupancy reports, computed in PostgreSQL.
 *
 * Sales read whole months and days from the rollup sales_rollup (011_report_rollups.sql, kept exact by triggers in
 * the booking and refund transactions) and the part-days at either end of the range from the sales facts copied
 * onto each booking (006_till.sql) through the covering index bookings_sales, refunds through refunds_created;
 * occupancy reads one show's seats. See docs/performance.md, "Reports (issue 7)".
 */
class ReportRepository
{
public:
    explicit ReportRepository(const Database &database);

    /**
     * @brief Bookings sold and refunds asked for in [@p from, @p to), grouped by @p grouping and currency:
     * [{key, label, currency, revenue_minor, tickets, bookings, refunds, refunds_minor, net_minor}], ordered by key.
     */
    std::optional<QJsonArray> sales(const QDateTime &from, const QDateTime &to, SalesGrouping grouping);
    /**
     * @brief Capacity, sold, held (house holds apart) and free seats of a show, in total and per tier, and every
     * seat with its status, sold_at and sell_order (1 = sold first) for the heat map: the JSON document of
     * GET /api/v1/reports/occupancy, built in PostgreSQL, with the stamp of the same snapshot. std::nullopt on a
     * database error; an empty document when the show does not exist.
     */
    std::optional<OccupancyDocument> occupancy(qint64 showId);
    /**
     * @brief The show's occupancy stamp now: one pass over its seats, several times cheaper than the report.
     * std::nullopt on a database error.
     */
    std::optional<OccupancyStamp> occupancyStamp(qint64 showId);

private:
    const Database &m_database;
};

} // namespace marquee::store
