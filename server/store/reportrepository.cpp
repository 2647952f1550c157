// SPDX-License-Identifier: AGPL-3.0-or-later
#include "reportrepository.h"

#include <QSqlQuery>
#include <QTimeZone>

#include <algorithm>
#include <map>
#include <vector>

namespace marquee::store {

namespace {
/**
 * @brief The SQL pieces of one grouping: the key of a booking row `b`, of a refund row `r` and of a rollup row `d`
 * (011_report_rollups.sql), the rollup dimension to read, and the label.
 */
struct GroupingSql {
    const char *bookingKey;
    const char *refundKey;
    const char *rollupKey;
    const char *dimension;
    const char *keyText;  ///< of the aggregated key j.k
    const char *label;
    const char *labelJoin;
};

GroupingSql groupingSql(SalesGrouping grouping)
{
    switch (grouping) {
    case SalesGrouping::Day:
        // Refunds count on the day they were asked for; everything else groups a refund like its booking. Every sale
        // is in exactly one channel row, so the channel rows of a day add up to the day.
        return {"(b.created_at AT TIME ZONE 'UTC')::date", "(r.created_at AT TIME ZONE 'UTC')::date", "d.period_start", "channel",
                "to_char(j.k, 'YYYY-MM-DD')", "to_char(j.k, 'YYYY-MM-DD')", ""};
    case SalesGrouping::Show:
        return {"b.show_id", "b.show_id", "d.key_id", "show", "j.k::text",
                "coalesce(m.title, '') || ' ' || coalesce(to_char(sh.starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI\"Z\"'), '')",
                "LEFT JOIN shows sh ON sh.show_id = j.k LEFT JOIN movies m ON m.movie_id = sh.movie_id"};
    case SalesGrouping::Movie:
        // shows.movie_id is NOT NULL, so the rollup's 0 for "no movie" never meets a real booking.
        return {"coalesce(b.movie_id, 0)", "coalesce(b.movie_id, 0)", "d.key_id", "movie", "j.k::text", "coalesce(m.title, '')",
                "LEFT JOIN movies m ON m.movie_id = j.k"};
    case SalesGrouping::Channel:
        return {"b.channel", "b.channel", "d.key_text", "channel", "j.k", "j.k", ""};
    case SalesGrouping::Device:
        // 0: sold without a device (a desk session, or a cashier with no till on the shift).
        return {"coalesce(b.device_id, 0)", "coalesce(b.device_id, 0)", "d.key_id", "device", "j.k::text", "coalesce(d.name, 'no device')",
                "LEFT JOIN devices d ON d.device_id = j.k"};
    }
    return groupingSql(SalesGrouping::Day);
}

/**
 * @brief How a report range [from, to) splits: whole months read from month rows, the other whole days from day
 * rows, and the part-days at either end from bookings and refunds themselves. Every piece is half-open; an
 * unused piece is empty (start == end).
 */
struct RangePieces {
    QDateTime headFrom, headTo; ///< raw: from up to the first whole day
    QDateTime tailFrom, tailTo; ///< raw: from the end of the last whole day up to to
    QDate daysFrom, monthsFrom, monthsTo, daysTo; ///< day rows [daysFrom, monthsFrom) and [monthsTo, daysTo), month rows [monthsFrom, monthsTo)
};

RangePieces splitRange(const QDateTime &fromAny, const QDateTime &toAny, bool useMonths)
{
    const QDateTime from = fromAny.toUTC();
    const QDateTime to = toAny.toUTC();
    const auto midnight = [](const QDate &day) { return day.startOfDay(QTimeZone::utc()); };
    RangePieces p;
    const QDate firstDay = from == midnight(from.date()) ? from.date() : from.date().addDays(1);
    const QDate endDay = to.date(); // the day that starts at or before to
    if (firstDay >= endDay) {
        // No whole day inside: all of it is raw.
        p.headFrom = from;
        p.headTo = to;
        p.tailFrom = p.tailTo = to;
        p.daysFrom = p.monthsFrom = p.monthsTo = p.daysTo = endDay;
        return p;
    }
    p.headFrom = from;
    p.headTo = midnight(firstDay);
    p.tailFrom = midnight(endDay);
    p.tailTo = to;
    p.daysFrom = firstDay;
    p.daysTo = endDay;
    const QDate firstMonth = firstDay.day() == 1 ? firstDay : QDate(firstDay.year(), firstDay.month(), 1).addMonths(1);
    const QDate endMonth(endDay.year(), endDay.month(), 1);
    if (!useMonths || firstMonth >= endMonth) {
        p.monthsFrom = p.monthsTo = endDay;
    } else {
        p.monthsFrom = firstMonth;
        p.monthsTo = endMonth;
    }
    return p;
}

// One show's seats with their report state and, for sold seats, when they were sold and in which order (1 = the
// earliest sale; seats of one booking, or of bookings made at the same instant, share a place). The show's
// bookings come from one index-only range (bookings_show, 011_report_rollups.sql) where a lookup per sold seat or
// per booking cost several times more, and a hold's owner is read only for a seat that is held. sold_at comes as
// the ISO 8601 text the API sends (toIsoUtc's format, microseconds rounded half up to milliseconds as Qt reads
// them): 30,000 QDateTime conversions, each asking the C library about time zones, took longer than the query. No ORDER BY: sorting 40,000 rows spilled to disk; the caller sorts.
const char *kShowSeats =
    "WITH sold AS ("
    "  SELECT b.booking_id, to_char(date_trunc('milliseconds', b.created_at + interval '500 microseconds') AT TIME ZONE 'UTC', "
    "                 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS sold_at, "
    "         dense_rank() OVER (ORDER BY b.created_at) AS sell_order "
    "    FROM bookings b "
    "   WHERE b.show_id = :show AND b.booking_id IN (SELECT booking_id FROM show_seats WHERE show_id = :show AND status = 'booked')) "
    "SELECT ss.seat_id, ls.row_label, ls.number, ls.tier, "
    "       CASE WHEN ss.status = 'booked' THEN 'sold' "
    "            WHEN ss.status = 'held' AND ss.hold_expires_at > now() THEN "
    "                 CASE WHEN (SELECT h.owner FROM holds h WHERE h.hold_id = ss.held_by) = 'house' THEN 'house' ELSE 'held' END "
    "            ELSE 'free' END AS state, "
    "       sold.sold_at, sold.sell_order "
    "  FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id "
    "  JOIN show_seats ss ON ss.show_id = s.show_id "
    "  JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ss.seat_id "
    "  LEFT JOIN sold ON sold.booking_id = ss.booking_id "
    " WHERE s.show_id = :show";

/** @brief One seat of the occupancy report. */
struct SeatRow {
    QString seatId;
    QString row;
    int number = 0;
    QString tier;
    QString state;
    QString soldAt; ///< empty: not sold
    qint64 sellOrder = 0;
};

/** @brief Seats of one tier (or of the show) per report state. */
struct SeatCounts {
    qint64 capacity = 0;
    qint64 sold = 0;
    qint64 held = 0;
    qint64 house = 0;
    qint64 free = 0;

    void add(const QString &state)
    {
        ++capacity;
        if (state == QLatin1String("sold"))
            ++sold;
        else if (state == QLatin1String("held"))
            ++held;
        else if (state == QLatin1String("house"))
            ++house;
        else
            ++free;
    }
    QJsonObject toJson() const
    {
        return QJsonObject{{QStringLiteral("capacity"), capacity}, {QStringLiteral("sold"), sold}, {QStringLiteral("held"), held},
                           {QStringLiteral("house_held"), house}, {QStringLiteral("free"), free}};
    }
};
} // namespace

std::optional<SalesGrouping> salesGroupingFromString(const QString &text)
{
    static const QHash<QString, SalesGrouping> names = {{QStringLiteral("day"), SalesGrouping::Day},
                                                        {QStringLiteral("show"), SalesGrouping::Show},
                                                        {QStringLiteral("movie"), SalesGrouping::Movie},
                                                        {QStringLiteral("channel"), SalesGrouping::Channel},
                                                        {QStringLiteral("device"), SalesGrouping::Device}};
    const auto it = names.constFind(text);
    return it == names.constEnd() ? std::nullopt : std::optional(*it);
}

ReportRepository::ReportRepository(const Database &database)
    : m_database(database)
{
}

std::optional<QJsonArray> ReportRepository::sales(const QDateTime &from, const QDateTime &to, SalesGrouping grouping)
{
    const GroupingSql g = groupingSql(grouping);
    // Rows of one source each: the part-days at either end from the covering indexes bookings_sales and
    // refunds_created, the rest from sales_rollup. A group is in the report when it has a booking or a refund in
    // the range (a rollup row can be all zeros once its sales moved to another day).
    const QString sql = QStringLiteral(
        "WITH facts AS ("
        "  SELECT %1 AS k, b.currency, b.amount_minor AS revenue, b.tickets::bigint AS tickets, 1::bigint AS bookings, "
        "         0::bigint AS refunds, 0::bigint AS refunded "
        "    FROM bookings b WHERE b.created_at >= CAST(:head_from AS timestamptz) AND b.created_at < CAST(:head_to AS timestamptz) "
        "  UNION ALL "
        "  SELECT %1, b.currency, b.amount_minor, b.tickets, 1, 0, 0 "
        "    FROM bookings b WHERE b.created_at >= CAST(:tail_from AS timestamptz) AND b.created_at < CAST(:tail_to AS timestamptz) "
        "  UNION ALL "
        "  SELECT %2, r.currency, 0, 0, 0, 1, r.amount_minor FROM refunds r JOIN bookings b ON b.booking_id = r.booking_id "
        "   WHERE r.created_at >= CAST(:head_from AS timestamptz) AND r.created_at < CAST(:head_to AS timestamptz) "
        "  UNION ALL "
        "  SELECT %2, r.currency, 0, 0, 0, 1, r.amount_minor FROM refunds r JOIN bookings b ON b.booking_id = r.booking_id "
        "   WHERE r.created_at >= CAST(:tail_from AS timestamptz) AND r.created_at < CAST(:tail_to AS timestamptz) "
        "  UNION ALL "
        "  SELECT %3, d.currency, d.revenue_minor, d.tickets, d.bookings, d.refunds, d.refunds_minor FROM sales_rollup d "
        "   WHERE d.dimension = '%4' AND d.grain = 'day' "
        "     AND d.period_start >= CAST(:days_from AS date) AND d.period_start < CAST(:months_from AS date) "
        "  UNION ALL "
        "  SELECT %3, d.currency, d.revenue_minor, d.tickets, d.bookings, d.refunds, d.refunds_minor FROM sales_rollup d "
        "   WHERE d.dimension = '%4' AND d.grain = 'month' "
        "     AND d.period_start >= CAST(:months_from AS date) AND d.period_start < CAST(:months_to AS date) "
        "  UNION ALL "
        "  SELECT %3, d.currency, d.revenue_minor, d.tickets, d.bookings, d.refunds, d.refunds_minor FROM sales_rollup d "
        "   WHERE d.dimension = '%4' AND d.grain = 'day' "
        "     AND d.period_start >= CAST(:months_to AS date) AND d.period_start < CAST(:days_to AS date)), "
        "j AS ("
        "  SELECT k, currency, sum(revenue) AS revenue, sum(tickets) AS tickets, sum(bookings) AS bookings, sum(refunds) AS refunds, "
        "         sum(refunded) AS refunded "
        "    FROM facts GROUP BY k, currency HAVING sum(bookings) > 0 OR sum(refunds) > 0) "
        "SELECT %5, %6, j.currency, j.revenue, j.tickets, j.bookings, j.refunds, j.refunded "
        "  FROM j %7 ORDER BY j.k, j.currency")
                            .arg(QLatin1String(g.bookingKey), QLatin1String(g.refundKey), QLatin1String(g.rollupKey),
                                 QLatin1String(g.dimension), QLatin1String(g.keyText), QLatin1String(g.label), QLatin1String(g.labelJoin));
    // Per-day keys cannot come from month rows.
    const RangePieces pieces = splitRange(from, to, grouping != SalesGrouping::Day);
    QSqlQuery query(m_database.connection());
    if (!prepareQuery(query, sql))
        return std::nullopt;
    query.bindValue(QStringLiteral(":head_from"), pieces.headFrom);
    query.bindValue(QStringLiteral(":head_to"), pieces.headTo);
    query.bindValue(QStringLiteral(":tail_from"), pieces.tailFrom);
    query.bindValue(QStringLiteral(":tail_to"), pieces.tailTo);
    query.bindValue(QStringLiteral(":days_from"), pieces.daysFrom);
    query.bindValue(QStringLiteral(":months_from"), pieces.monthsFrom);
    query.bindValue(QStringLiteral(":months_to"), pieces.monthsTo);
    query.bindValue(QStringLiteral(":days_to"), pieces.daysTo);
    if (!execQuery(query, "sales report"))
        return std::nullopt;
    const bool numericKey = grouping == SalesGrouping::Show || grouping == SalesGrouping::Movie || grouping == SalesGrouping::Device;
    QJsonArray rows;
    while (query.next()) {
        QJsonValue key = query.value(0).toString();
        if (numericKey) {
            const qint64 id = query.value(0).toLongLong();
            key = id == 0 ? QJsonValue() : QJsonValue(id);
        }
        const qint64 revenue = query.value(3).toLongLong();
        const qint64 refunded = query.value(7).toLongLong();
        rows.append(QJsonObject{{QStringLiteral("key"), key},
                                {QStringLiteral("label"), query.value(1).toString()},
                                {QStringLiteral("currency"), query.value(2).toString()},
                                {QStringLiteral("revenue_minor"), revenue},
                                {QStringLiteral("tickets"), query.value(4).toLongLong()},
                                {QStringLiteral("bookings"), query.value(5).toLongLong()},
                                {QStringLiteral("refunds"), query.value(6).toLongLong()},
                                {QStringLiteral("refunds_minor"), refunded},
                                {QStringLiteral("net_minor"), revenue - refunded}});
    }
    return rows;
}

std::optional<QJsonObject> ReportRepository::occupancy(qint64 showId)
{
    QSqlQuery seats(m_database.connection());
    if (!prepareQuery(seats, QLatin1String(kShowSeats)))
        return std::nullopt;
    seats.bindValue(QStringLiteral(":show"), showId);
    if (!execQuery(seats, "occupancy seats"))
        return std::nullopt;
    // The totals are counted from the same rows as the seat list, so the two always agree.
    SeatCounts total;
    std::map<QString, SeatCounts> byTier; // ordered by tier name, as the report lists them
    std::vector<SeatRow> rows;
    while (seats.next()) {
        SeatRow seat{seats.value(0).toString(), seats.value(1).toString(), seats.value(2).toInt(), seats.value(3).toString(),
                     seats.value(4).toString(), seats.value(5).toString(), seats.value(6).toLongLong()};
        total.add(seat.state);
        byTier[seat.tier].add(seat.state);
        rows.push_back(std::move(seat));
    }
    // By row and number; row labels are COLLATE "C" (byte order), which QString's code-unit order matches for the
    // labels a layout has (anything below U+E000).
    std::sort(rows.begin(), rows.end(), [](const SeatRow &a, const SeatRow &b) {
        const int byRow = QString::compare(a.row, b.row, Qt::CaseSensitive);
        return byRow != 0 ? byRow < 0 : a.number != b.number ? a.number < b.number : a.seatId < b.seatId;
    });
    QJsonArray seatRows;
    for (const SeatRow &seat : rows) {
        const bool sold = !seat.soldAt.isEmpty();
        seatRows.append(QJsonObject{{QStringLiteral("seat_id"), seat.seatId},
                                    {QStringLiteral("row"), seat.row},
                                    {QStringLiteral("number"), seat.number},
                                    {QStringLiteral("tier"), seat.tier},
                                    {QStringLiteral("state"), seat.state},
                                    {QStringLiteral("sold_at"), sold ? QJsonValue(seat.soldAt) : QJsonValue()},
                                    {QStringLiteral("sell_order"), sold ? QJsonValue(seat.sellOrder) : QJsonValue()}});
    }
    // A show always has seats, so none means no such show.
    if (total.capacity == 0)
        return QJsonObject();
    QJsonArray tiers;
    for (const auto &[name, counts] : byTier) {
        QJsonObject tier = counts.toJson();
        tier.insert(QStringLiteral("tier"), name);
        tiers.append(tier);
    }
    QJsonObject result = total.toJson();
    result.insert(QStringLiteral("show_id"), showId);
    result.insert(QStringLiteral("tiers"), tiers);
    result.insert(QStringLiteral("seats"), seatRows);
    return result;
}

} // namespace marquee::store
