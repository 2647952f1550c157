// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <optional>

namespace marquee::store {

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
     * GET /api/v1/reports/occupancy, built in PostgreSQL. std::nullopt on a database error; empty when the show
     * does not exist.
     */
    std::optional<QByteArray> occupancy(qint64 showId);

private:
    const Database &m_database;
};

} // namespace marquee::store
