// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

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

/**
 * @brief What of a show's occupancy report never changes: its seats in report order with their JSON text up to the
 * seat id, and their tiers. The same for every show of a layout (shows copy their layout's seats).
 */
struct OccupancyLayout {
    /** @brief In report order (row, then number); empty when there is no such layout. Views of seatIdBytes when
     *  read from the database (QByteArray::fromRawData): valid as long as this layout (moves keep them valid). */
    QList<QByteArray> seatIds;
    QByteArray seatIdBytes;    ///< the bytes of every seat id, one after the other
    QByteArray heads;          ///< each seat's `{"number" : …, "row" : …, "seat_id" : …` one after the other
    QList<qsizetype> headEnds; ///< where each seat's head ends in heads
    QList<int> seatTiers;      ///< each seat's index into tiers
    QList<QByteArray> tiers;   ///< the tier names as JSON strings, in the order of the report's tiers array
    qint64 seatDigest = 0;     ///< the sum of hashtext(seat_id) over the seats: see OccupancyStates::seatDigest
    /** @brief Where it was read from: the layout's stored copy (one row) or its layout_seats rows. */
    enum class Source { LayoutSeats, Copy };
    Source source = Source::LayoutSeats;
};

/** @brief One seat of a show as an occupancy pass read it. */
struct OccupancySeatRow {
    enum class Status { Available, Held, Booked };
    QByteArray seatId;
    Status status = Status::Available;
    qint64 holdExpiresUs = 0; ///< of a held seat: microseconds since the epoch (may lie in the past: a lapse)
    bool house = false;       ///< of a held seat: the hold is a house hold
    QByteArray bookingId;     ///< of a booked seat
    bool saleKnown = false;   ///< the booking is one of the show's: soldUs and soldAt are set
    qint64 soldUs = 0;        ///< the booking's creation time, microseconds since the epoch
    QByteArray soldAt;        ///< the same as the report writes it
};

/**
 * @brief A show's seats that are held or booked, for the first report kept of it, with the stamp and snapshot xmin of
 * the same snapshot, and what tells whether its seats are its layout's.
 */
struct OccupancyStates {
    qint64 layoutId = 0;          ///< of the show's screen
    qint64 seatDigest = 0;        ///< the sum of hashtext(seat_id) over the show's seats: equal to its layout's with the same seats
    OccupancyStamp stamp;         ///< stamp.seats 0: no such show
    qint64 nowUs = 0;             ///< the statement's now()
    qint64 snapshotXmin = 0;      ///< of the statement's snapshot: the `since` of the next pass
    QList<OccupancySeatRow> rows; ///< held and booked seats, in no order; every other seat is available
};

/** @brief One pass over a show's seats: its stamp now, and the seats changed since an earlier pass. */
struct OccupancyPass {
    OccupancyStamp stamp;
    qint64 nowUs = 0;         ///< the statement's now(): a held seat whose hold expires at or before it is free
    qint64 snapshotXmin = 0;  ///< of the statement's snapshot: the `since` of the next pass
    QList<OccupancySeatRow> changed;
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
 * occupancy reads one show's seats. See docs/perf/journal.md, "sales, occupancy and shifts over a
 * year with 1,000,000 tickets".
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
     * GET /api/v1/reports/occupancy, built from scratch in PostgreSQL, with the stamp of the same snapshot.
     * std::nullopt on a database error; an empty document when the show does not exist. The server sends the same
     * bytes from OccupancyReports (kept in memory, only changes read); this statement is what tests and benchmarks
     * compare it with.
     */
    std::optional<OccupancyDocument> occupancy(qint64 showId);
    /**
     * @brief The seats of layout @p layoutId in report order with their tiers (no seats when there is no such layout);
     * std::nullopt on a database error. A layout never changes once written. Read from the layout's stored copy
     * (layout_report_seats, one row) when it agrees with layout_seats, else from layout_seats (with a warning when a
     * copy exists but disagrees).
     */
    std::optional<OccupancyLayout> occupancyLayout(qint64 layoutId);
    /**
     * @brief The same for exactly the seats of show @p showId that are in its layout, as occupancy() joins them: for
     * a show whose seats are not its layout's (OccupancyStates::seatDigest differs; only by a hand edit).
     */
    std::optional<OccupancyLayout> occupancyShowLayout(qint64 showId);
    /** @brief The seat layout of show @p showId (of its screen); 0 when there is no such show, std::nullopt on a
     *  database error. */
    std::optional<qint64> occupancyLayoutIdOf(qint64 showId);
    /**
     * @brief The held and booked seats of show @p showId with the stamp and snapshot xmin of the same snapshot, its
     * layout and its seats' digest; stamp.seats 0 when the show does not exist, std::nullopt on a database error.
     */
    std::optional<OccupancyStates> occupancyStates(qint64 showId);
    /**
     * @brief One pass over the show's seats (about as costly as counting them): its stamp, and every seat whose
     * row was written since the pass whose snapshotXmin is @p sinceXmin (negative: none, only the stamp).
     * std::nullopt on a database error.
     */
    std::optional<OccupancyPass> occupancyPass(qint64 showId, qint64 sinceXmin);
    /**
     * @brief Runs the statements of a show's first report (occupancyLayoutIdOf(), occupancyStates(), occupancyLayout(),
     * occupancyPass()) once
     * on this thread's connection for ids that match nothing: they are prepared, and the backend has looked up what
     * they use, before a report needs them. False on a database error.
     */
    bool prepareOccupancy();
    /** @brief Up to @p limit shows on sale now (open for sales, not started), the soonest first. */
    std::optional<QList<qint64>> showsOnSale(int limit);

private:
    const Database &m_database;
};

} // namespace marquee::store
