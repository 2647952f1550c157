// SPDX-License-Identifier: AGPL-3.0-or-later
#include "reportrepository.h"

#include <QSqlQuery>
#include <QTimeZone>


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

// One show's occupancy as the JSON document the API sends: totals, per tier, and every seat with its state and,
// for sold seats, when they were sold and in which order (1 = the earliest sale; seats of one booking, or of
// bookings made at the same instant, share a place). Built in PostgreSQL like the seat map (catalogrepository):
// 40,000 seats as Qt JSON objects took longer than the query. The show's bookings come from one index-only range
// (bookings_show, 011_report_rollups.sql) where a lookup per sold seat cost several times more; a hold's owner
// is read only for a seat that is held; sold_at is the ISO 8601 text toIsoUtc() gives (microseconds rounded half
// up to milliseconds, as Qt reads them). No row when the show does not exist (a show always has seats).
#define MQ_OCCUPANCY_STAMP \
    "SELECT count(*), coalesce(sum(version), 0), " \
    "       coalesce((extract(epoch FROM min(hold_expires_at) FILTER (WHERE status = 'held' AND hold_expires_at > now())) " \
    "                 * 1000000)::bigint, 0) " \
    "  FROM show_seats WHERE show_id = :show"
// The stamp (OccupancyStamp) of one show: the same pass in occupancyStamp() and beside the report, so that the
// two always mean the same. :show is the show.
const char *kOccupancyStamp = MQ_OCCUPANCY_STAMP;

// The report and, from the same snapshot (one statement), its stamp. :show is the show.
const char *kOccupancy =
    "WITH sold AS ("
    "  SELECT b.booking_id, dense_rank() OVER (ORDER BY b.created_at) AS sell_order, "
    "         to_char(date_trunc('milliseconds', b.created_at + interval '500 microseconds') AT TIME ZONE 'UTC', "
    "                 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS sold_at "
    "    FROM bookings b "
    "   WHERE b.show_id = :show AND b.booking_id IN (SELECT booking_id FROM show_seats WHERE show_id = :show AND status = 'booked')), "
    "seats AS ("
    "  SELECT ss.seat_id, ls.row_label, ls.number, ls.tier, "
    "         CASE WHEN ss.status = 'booked' THEN 'sold' "
    "              WHEN ss.status = 'held' AND ss.hold_expires_at > now() THEN "
    "                   CASE WHEN (SELECT h.owner FROM holds h WHERE h.hold_id = ss.held_by) = 'house' THEN 'house' ELSE 'held' END "
    "              ELSE 'free' END AS state, "
    "         sold.sold_at, sold.sell_order "
    "    FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id "
    "    JOIN show_seats ss ON ss.show_id = s.show_id "
    "    JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ss.seat_id "
    "    LEFT JOIN sold ON sold.booking_id = ss.booking_id "
    "   WHERE s.show_id = :show), "
    "tiers AS ("
    "  SELECT tier, count(*) AS capacity, count(*) FILTER (WHERE state = 'sold') AS sold, count(*) FILTER (WHERE state = 'held') AS held, "
    "         count(*) FILTER (WHERE state = 'house') AS house, count(*) FILTER (WHERE state = 'free') AS free "
    "    FROM seats GROUP BY tier), "
    "document AS (SELECT json_build_object("
    "         'capacity', sum(capacity), 'free', sum(free), 'held', sum(held), 'house_held', sum(house), "
    "         'seats', (SELECT json_agg(json_build_object('number', number, 'row', row_label, 'seat_id', seat_id, 'sell_order', sell_order, "
    "                                                     'sold_at', sold_at, 'state', state, 'tier', tier) ORDER BY row_label, number) "
    "                     FROM seats), "
    "         'show_id', CAST(:show AS bigint), 'sold', sum(sold), "
    "         'tiers', json_agg(json_build_object('capacity', capacity, 'free', free, 'held', held, 'house_held', house, 'sold', sold, "
    "                                             'tier', tier) ORDER BY tier))::text AS json "
    "  FROM tiers HAVING count(*) > 0), "
    "stamp AS (" MQ_OCCUPANCY_STAMP ") "
    "SELECT document.json, stamp.* FROM stamp LEFT JOIN document ON true";
#undef MQ_OCCUPANCY_STAMP
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

namespace {
OccupancyStamp stampFrom(const QSqlQuery &query, int first)
{
    return {query.value(first).toLongLong(), query.value(first + 1).toLongLong(), query.value(first + 2).toLongLong()};
}

/** @brief This thread's prepared @p sql run for @p showId, on its one row; nullptr after an error (reset). */
QSqlQuery *rowForShow(const Database &database, const char *sql, qint64 showId, const char *what)
{
    QSqlQuery *query = database.prepared(QLatin1String(sql));
    if (!query)
        return nullptr;
    query->bindValue(QStringLiteral(":show"), showId);
    if (!execQuery(*query, what) || !query->next()) {
        database.resetAfterError(query->lastError());
        return nullptr;
    }
    return query;
}
} // namespace

std::optional<OccupancyDocument> ReportRepository::occupancy(qint64 showId)
{
    QSqlQuery *query = rowForShow(m_database, kOccupancy, showId, "occupancy");
    if (!query)
        return std::nullopt;
    OccupancyDocument document{query->value(0).toString().toUtf8(), stampFrom(*query, 1)};
    query->finish();
    return document;
}

std::optional<OccupancyStamp> ReportRepository::occupancyStamp(qint64 showId)
{
    QSqlQuery *query = rowForShow(m_database, kOccupancyStamp, showId, "occupancy stamp");
    if (!query)
        return std::nullopt;
    const OccupancyStamp stamp = stampFrom(*query, 0);
    query->finish();
    return stamp;
}

} // namespace marquee::store
