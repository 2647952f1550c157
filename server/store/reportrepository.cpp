// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/reportrepository.h"
#include "logging.h"

#include "core/isotime.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSqlQuery>
#include <QTimeZone>

#include <algorithm>
#include <charconv>
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

// One show's occupancy as the JSON document the API sends: totals, per tier, and every seat with its state and,
// for sold seats, when they were sold and in which order (1 = the earliest sale; seats of one booking, or of
// bookings made at the same instant, share a place). sold_at is the ISO 8601 text toIsoUtc() gives (microseconds
// rounded half up to milliseconds, as Qt reads them).
//
// Two ways to the same bytes. The server (OccupancyReports) keeps each layout and each show's seat states in
// memory and reads only what changed since its last read (kOccupancyLayout once per layout, kOccupancyStates once
// per show, then kOccupancyPass per request); the statement kOccupancy builds the whole document in PostgreSQL
// from scratch and is what tests and benchmarks compare the server's answer with, byte for byte.
#define MQ_SOLD_AT(created) \
    "to_char(date_trunc('milliseconds', " created " + interval '500 microseconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
// The stamp (OccupancyStamp) of one show, over its show_seats rows `ss`: the same columns in kOccupancyPass and
// beside the reference document, so that the two always mean the same.
#define MQ_OCCUPANCY_STAMP_COLUMNS \
    "count(*), coalesce(sum(ss.version), 0), " \
    "coalesce((extract(epoch FROM min(ss.hold_expires_at) FILTER (WHERE ss.status = 'held' AND ss.hold_expires_at > now())) " \
    "          * 1000000)::bigint, 0)"

// The whole report and, from the same snapshot (one statement), its stamp. The show's bookings come from one
// index-only range (bookings_show, 011_report_rollups.sql); a hold's owner is read only for a seat that is held.
// No row when the show does not exist (a show always has seats). :show is the show.
const char *kOccupancy =
    "WITH sold AS ("
    "  SELECT b.booking_id, dense_rank() OVER (ORDER BY b.created_at) AS sell_order, " MQ_SOLD_AT("b.created_at") " AS sold_at "
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
    "stamp AS (SELECT " MQ_OCCUPANCY_STAMP_COLUMNS " FROM show_seats ss WHERE ss.show_id = :show) "
    "SELECT document.json, stamp.* FROM stamp LEFT JOIN document ON true";

// A show's report in memory has two parts (OccupancyReports): the layout — its seats in report order with their
// row, number and tier, which never change and are shared by every show on a screen — read once per layout
// (kOccupancyLayout), and the show's seat states, read on the show's first report (kOccupancyStates) and then
// kept up to date by kOccupancyPass. Each comes as one row of a few text columns: a row per seat through QSqlQuery
// cost a QVariant and a QString per cell (docs/perf/journal.md, "Occupancy: the first read since the server started").
//
// A layout: its seat count and a digest of its seat ids (the sum of their hashtext(), compared with the same sum
// over a show's seats: a show's seats are copied from its layout's, so the two are equal unless someone edited
// show_seats by hand), its tiers as JSON strings one a line in the order of the report's tiers array (the
// database's collation), and one line per seat, fields split by tabs (seat id and row label as the JSON strings
// the report writes, so neither holds a tab or a newline): seat, row, number, the tier's place. Unordered: row
// labels are COLLATE "C", so the report order (row, then number) is a byte order the server sorts in memory (a
// sort here spilled to disk). `seats` is the CTE of the seats (seat_id, row_label, number, tier). Each layout's
// copy in layout_report_seats (mq_layout_report_seats_rebuild in 024_layout_report_copy.sql) holds the same
// columns, its lines in report order: keep the two alike (tests compare both paths with the reference).
#define MQ_OCCUPANCY_LAYOUT_FROM_SEATS \
    "tiers AS (SELECT tier, row_number() OVER (ORDER BY tier) - 1 AS place FROM (SELECT DISTINCT tier FROM seats) t) " \
    "SELECT count(*), coalesce(sum(hashtext(s.seat_id)), 0), " \
    "       (SELECT string_agg(to_json(tier)::text, E'\\n' ORDER BY place) FROM tiers), " \
    "       string_agg(to_json(s.seat_id)::text || E'\\t' || to_json(s.row_label)::text || E'\\t' || s.number || E'\\t' || t.place, E'\\n') " \
    "  FROM seats s JOIN tiers t ON t.tier = s.tier"
// The layout :layout; no seats when it does not exist.
const char *kOccupancyLayout =
    "WITH seats AS (SELECT seat_id, row_label, number, tier FROM layout_seats WHERE layout_id = :layout), "
    MQ_OCCUPANCY_LAYOUT_FROM_SEATS;
// The layout of exactly show :show's seats, as the reference statement joins them: for a show whose seats are not
// its layout's (see above).
const char *kOccupancyShowLayout =
    "WITH seats AS ("
    "  SELECT ls.seat_id, ls.row_label, ls.number, ls.tier "
    "    FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id "
    "    JOIN show_seats ss ON ss.show_id = s.show_id "
    "    JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ss.seat_id "
    "   WHERE s.show_id = :show), "
    MQ_OCCUPANCY_LAYOUT_FROM_SEATS;
#undef MQ_OCCUPANCY_LAYOUT_FROM_SEATS
// The same columns for the layout :layout from its copy in layout_report_seats (024_layout_report_copy.sql: one row
// per layout, the seat lines already in report order, kept by triggers on layout_seats), and whether the copy still
// agrees with layout_seats: the same rows, i.e. the same count and the same sum of their xmin (any write of a row,
// with or without the triggers, gives it a new xmin; raw xmin survives freezing). A scan of the layout's rows with
// no text built (a fingerprint of their contents cost ~2x as much). One row always; its columns are null when the
// layout has no copy.
const char *kOccupancyLayoutCopy =
    "SELECT c.seat_count, c.seat_digest, c.tiers, c.seats, "
    "       (c.seat_count, c.seats_xmin) = (SELECT count(*), coalesce(sum(ls.xmin::text::bigint), 0) "
    "                                         FROM layout_seats ls WHERE ls.layout_id = :layout) "
    "  FROM (SELECT) one LEFT JOIN layout_report_seats c ON c.layout_id = :layout";

// A show's seat states for its first report in memory, with the stamp and its snapshot's xmin from the same
// snapshot (so that the next pass finds everything written after it), the show's layout and the digest of its
// seat ids (see above). Only seats that are not available come, as text: held seats one a line (seat as a JSON
// string, expiry in microseconds, "1" for a house hold), booked seats one line per booking (booking, and when it
// is one of the show's bookings its sale time in microseconds — the server writes it as text, soldAtText() — then
// its seats as JSON strings), fields split by tabs. The stamp and both lists each read the show's seats from the
// primary key's range (NOT MATERIALIZED: 20-25 % faster than one materialized scan of 40,000 rows on the bench
// data). No seats (count 0) when the show does not exist. :show is the show.
#define MQ_LAYOUT_OF_SHOW \
    "(SELECT sc.layout_id FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id WHERE s.show_id = :show)"
const char *kOccupancyStates =
    "WITH ss AS NOT MATERIALIZED ("
    "  SELECT seat_id, status, held_by, hold_expires_at, booking_id, version FROM show_seats WHERE show_id = :show) "
    "SELECT " MQ_OCCUPANCY_STAMP_COLUMNS ", "
    "       (extract(epoch FROM now()) * 1000000)::bigint, pg_snapshot_xmin(pg_current_snapshot())::text::bigint, "
    "       " MQ_LAYOUT_OF_SHOW ", "
    "       coalesce(sum(hashtext(ss.seat_id)), 0), "
    "       (SELECT string_agg(to_json(h.seat_id)::text || E'\\t' || ((extract(epoch FROM h.hold_expires_at) * 1000000)::bigint)::text "
    "                          || E'\\t' || CASE WHEN (SELECT o.owner FROM holds o WHERE o.hold_id = h.held_by) = 'house' THEN '1' ELSE '' END, "
    "                          E'\\n') "
    "          FROM ss h WHERE h.status = 'held'), "
    "       (SELECT string_agg(g.booking_id::text || E'\\t' "
    "                          || coalesce(((extract(epoch FROM b.created_at) * 1000000)::bigint)::text, '') "
    "                          || E'\\t' || g.seats, E'\\n') "
    "          FROM (SELECT booking_id, string_agg(to_json(seat_id)::text, E'\\t') AS seats FROM ss WHERE status = 'booked' GROUP BY booking_id) g "
    "          LEFT JOIN bookings b ON b.booking_id = g.booking_id AND b.show_id = :show) "
    "  FROM ss";

// One pass over the show's seats: its stamp, the statement's now() and its snapshot's xmin, and every seat whose
// row version is not older than :since, a snapshot xmin (negative: none). Why that finds every change: a row
// version that snapshot :since did not see was written by a transaction that had not finished when that
// snapshot was taken, and every such transaction (and subtransaction) has an id at or above the snapshot's
// xmin; ids are compared by age() — their distance from now, modulo 2^32 — so the comparison holds across
// wraparound as long as the reader comes back within 2^31 transactions (OccupancyReports re-reads everything
// long before that). It catches writes of any server instance or by hand, with or without a version bump; rows
// read again without a change (a long transaction holds the xmin back) only cost time. A seat's hold owner and
// its booking's sale time are read for the changed seats only (the FILTER skips the arguments of the others).
const char *kOccupancyPass =
    "SELECT " MQ_OCCUPANCY_STAMP_COLUMNS ", "
    "       (extract(epoch FROM now()) * 1000000)::bigint, pg_snapshot_xmin(pg_current_snapshot())::text::bigint, "
    "       coalesce(json_agg(json_build_array("
    "           ss.seat_id, ss.status, "
    "           CASE WHEN ss.status = 'held' THEN ((extract(epoch FROM ss.hold_expires_at) * 1000000)::bigint)::text END, "
    "           CASE WHEN ss.status = 'held' THEN (SELECT h.owner FROM holds h WHERE h.hold_id = ss.held_by) = 'house' END, "
    "           ss.booking_id, "
    "           (SELECT json_build_array(((extract(epoch FROM b.created_at) * 1000000)::bigint)::text) "
    "              FROM bookings b WHERE b.booking_id = ss.booking_id AND b.show_id = :show))) "
    "         FILTER (WHERE CAST(:since AS bigint) >= 0 "
    "                 AND age(ss.xmin) <= (SELECT age(CAST(CAST(greatest(CAST(:since AS bigint), 0) % 4294967296 AS text) AS xid)))), "
    "       '[]')::text "
    "  FROM show_seats ss WHERE ss.show_id = :show";

// The layout of :show alone (0: no such show), for the layout reader to start on before the states are read.
const char *kOccupancyLayoutIdOf = "SELECT coalesce(" MQ_LAYOUT_OF_SHOW ", 0)";
#undef MQ_LAYOUT_OF_SHOW
#undef MQ_OCCUPANCY_STAMP_COLUMNS
#undef MQ_SOLD_AT
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

/** @brief This thread's prepared @p sql run with @p id bound to @p name, on its one row; nullptr after an error (reset). */
QSqlQuery *rowFor(const Database &database, const char *sql, const QString &name, qint64 id, const char *what)
{
    QSqlQuery *query = database.prepared(QLatin1String(sql));
    if (!query)
        return nullptr;
    query->bindValue(name, id);
    if (!execQuery(*query, what) || !query->next()) {
        database.resetAfterError(query->lastError());
        return nullptr;
    }
    return query;
}
} // namespace

std::optional<OccupancyDocument> ReportRepository::occupancy(qint64 showId)
{
    QSqlQuery *query = rowFor(m_database, kOccupancy, QStringLiteral(":show"), showId, "occupancy");
    if (!query)
        return std::nullopt;
    OccupancyDocument document{query->value(0).toString().toUtf8(), stampFrom(*query, 1)};
    query->finish();
    return document;
}

namespace {
/**
 * @brief The text of @p json, a string as PostgreSQL's json functions write it (escape_json: \\" \\\\ \\b \\f \\n \\r
 * \\t and \\u00XX for other control characters). Without an escape it is a view of the bytes inside the quotes
 * (they must outlive it) unless @p copy.
 */
/**
 * @brief A sale time as the report writes it, from its microseconds since the epoch: rounded half up to the
 * millisecond, as MQ_SOLD_AT writes it in the reference statement (tests compare the two reports byte for byte).
 * Written here rather than by to_char() in the first load's statement: 7,500 bookings of the stadium cost ~10 ms.
 */
QByteArray soldAtText(qint64 soldUs)
{
    const qint64 halfUp = soldUs + 500;
    const qint64 ms = halfUp >= 0 ? halfUp / 1000 : -((-halfUp + 999) / 1000);
    return toIsoUtcFromMs(ms).toLatin1();
}

QByteArray jsonStringText(QByteArrayView json, bool copy = false)
{
    const QByteArrayView inner = json.size() >= 2 ? json.sliced(1, json.size() - 2) : QByteArrayView();
    if (!inner.contains('\\'))
        return copy ? inner.toByteArray() : QByteArray::fromRawData(inner.data(), inner.size());
    QByteArray out;
    out.reserve(inner.size());
    for (qsizetype i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (c != '\\' || i + 1 >= inner.size()) {
            out.append(c);
            continue;
        }
        const char e = inner[++i];
        switch (e) {
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'u':
            if (i + 4 < inner.size()) {
                out.append(char(inner.sliced(i + 1, 4).toUShort(nullptr, 16)));
                i += 4;
            }
            break;
        default: out.append(e); // \" \\ \/
        }
    }
    return out;
}

OccupancySeatRow::Status seatStatus(const QString &status)
{
    return status == QLatin1String("booked") ? OccupancySeatRow::Status::Booked
         : status == QLatin1String("held")   ? OccupancySeatRow::Status::Held
                                             : OccupancySeatRow::Status::Available;
}

/** @brief Calls @p take with each line of @p text (split at '\n') until it returns false; false then. */
template<typename Take>
bool eachLine(QByteArrayView text, Take &&take)
{
    for (qsizetype from = 0; from <= text.size();) {
        qsizetype end = text.indexOf('\n', from);
        if (end < 0)
            end = text.size();
        if (!take(text.sliced(from, end - from)))
            return false;
        from = end + 1;
    }
    return true;
}

/** @brief The tab-separated fields of @p line into @p fields (at most @p count; the last takes the rest); how many. */
int splitFields(QByteArrayView line, QByteArrayView *fields, int count)
{
    int n = 0;
    qsizetype from = 0;
    while (n < count) {
        const qsizetype tab = n + 1 < count ? line.indexOf('\t', from) : -1;
        fields[n++] = line.sliced(from, (tab < 0 ? line.size() : tab) - from);
        if (tab < 0)
            break;
        from = tab + 1;
    }
    return n;
}

qint64 toInt64(QByteArrayView text)
{
    qint64 value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

/** @brief A layout from the row of kOccupancyLayout or kOccupancyShowLayout; std::nullopt when it is not that. */
std::optional<OccupancyLayout> layoutFrom(const QSqlQuery &query)
{
    OccupancyLayout layout;
    layout.seatDigest = query.value(1).toLongLong();
    const QByteArray tiers = query.value(2).toString().toUtf8();
    const QByteArray lines = query.value(3).toString().toUtf8();
    if (lines.isEmpty())
        return layout; // no seats
    eachLine(tiers, [&](QByteArrayView tier) {
        layout.tiers.append(tier.toByteArray());
        return true;
    });

    // One seat per line; the row label and number stay views into lines until the sort.
    struct Placed {
        QByteArrayView rowJson;
        QByteArray row; ///< the row label itself, for the sort (a view of rowJson when nothing was escaped)
        int number = 0;
        int tier = 0;
        QByteArrayView seatJson;
    };
    std::vector<Placed> placed;
    placed.reserve(size_t(query.value(0).toLongLong()));
    const bool parsed = eachLine(lines, [&](QByteArrayView line) {
        QByteArrayView field[4];
        if (splitFields(line, field, 4) != 4)
            return false;
        Placed p{field[1], jsonStringText(field[1]), int(toInt64(field[2])), int(toInt64(field[3])), field[0]};
        if (p.tier < 0 || p.tier >= layout.tiers.size())
            return false;
        placed.push_back(std::move(p));
        return true;
    });
    if (!parsed)
        return std::nullopt;
    // The report's order: row label, then number; row labels are COLLATE "C", a byte order like QByteArray's. A
    // layout's stored copy comes in that order already (checked: one pass instead of a sort).
    const auto reportOrder = [](const Placed &a, const Placed &b) { return a.row != b.row ? a.row < b.row : a.number < b.number; };
    if (!std::is_sorted(placed.begin(), placed.end(), reportOrder))
        std::sort(placed.begin(), placed.end(), reportOrder);
    // Sized once: the heads at their longest (a number of 11 characters), the seat ids at most their JSON's length.
    constexpr QByteArrayView kNumber = "{\"number\" : ", kRow = ", \"row\" : ", kSeatId = ", \"seat_id\" : ";
    qsizetype headBytes = 0;
    qsizetype idBytes = 0;
    for (const Placed &p : placed) {
        headBytes += kNumber.size() + 11 + kRow.size() + p.rowJson.size() + kSeatId.size() + p.seatJson.size();
        idBytes += p.seatJson.size();
    }
    layout.seatIds.reserve(qsizetype(placed.size()));
    layout.headEnds.reserve(qsizetype(placed.size()));
    layout.seatTiers.reserve(qsizetype(placed.size()));
    layout.heads.reserve(headBytes);
    layout.seatIdBytes.reserve(idBytes);
    char digits[16];
    for (const Placed &p : placed) {
        const auto end = std::to_chars(digits, digits + sizeof digits, p.number).ptr;
        layout.heads.append(kNumber).append(digits, end - digits).append(kRow).append(p.rowJson).append(kSeatId).append(p.seatJson);
        layout.headEnds.append(layout.heads.size());
        // Each seat id is a view of seatIdBytes (no allocation per seat); it never grows past what was reserved.
        const QByteArray id = jsonStringText(p.seatJson);
        const qsizetype at = layout.seatIdBytes.size();
        layout.seatIdBytes.append(QByteArrayView(id)); // a view: appending a QByteArray may share it instead
        layout.seatIds.append(QByteArray::fromRawData(layout.seatIdBytes.constData() + at, id.size()));
        layout.seatTiers.append(p.tier);
    }
    return layout;
}

/** @brief The layout that @p sql (kOccupancyLayout or kOccupancyShowLayout) gives with @p id bound to @p name. */
std::optional<OccupancyLayout> readLayout(const Database &database, const char *sql, const QString &name, qint64 id, const char *what)
{
    QSqlQuery *query = rowFor(database, sql, name, id, what);
    if (!query)
        return std::nullopt;
    std::optional<OccupancyLayout> layout = layoutFrom(*query);
    query->finish();
    return layout;
}
} // namespace

std::optional<OccupancyLayout> ReportRepository::occupancyLayout(qint64 layoutId)
{
    QSqlQuery *query = rowFor(m_database, kOccupancyLayoutCopy, QStringLiteral(":layout"), layoutId, "occupancy layout copy");
    if (!query)
        return std::nullopt;
    const QVariant agrees = query->value(4);
    if (!agrees.isNull() && agrees.toBool()) {
        std::optional<OccupancyLayout> layout = layoutFrom(*query);
        query->finish();
        if (layout && !layout->seatIds.isEmpty()) {
            layout->source = OccupancyLayout::Source::Copy;
            return layout;
        }
        qCWarning(lcStore) << "the report copy of seat layout" << layoutId << "does not parse; reading layout_seats";
    } else {
        query->finish();
        // Only a write with the triggers switched off (or to the copy itself) gets here: never used, and said so.
        if (!agrees.isNull())
            qCWarning(lcStore) << "the report copy of seat layout" << layoutId << "disagrees with layout_seats; reading layout_seats";
    }
    return readLayout(m_database, kOccupancyLayout, QStringLiteral(":layout"), layoutId, "occupancy layout");
}

std::optional<qint64> ReportRepository::occupancyLayoutIdOf(qint64 showId)
{
    QSqlQuery *query = rowFor(m_database, kOccupancyLayoutIdOf, QStringLiteral(":show"), showId, "occupancy layout of a show");
    if (!query)
        return std::nullopt;
    const qint64 layoutId = query->value(0).toLongLong();
    query->finish();
    return layoutId;
}

std::optional<OccupancyLayout> ReportRepository::occupancyShowLayout(qint64 showId)
{
    return readLayout(m_database, kOccupancyShowLayout, QStringLiteral(":show"), showId, "occupancy show layout");
}

std::optional<OccupancyStates> ReportRepository::occupancyStates(qint64 showId)
{
    QSqlQuery *query = rowFor(m_database, kOccupancyStates, QStringLiteral(":show"), showId, "occupancy states");
    if (!query)
        return std::nullopt;
    OccupancyStates states;
    states.stamp = stampFrom(*query, 0);
    states.nowUs = query->value(3).toLongLong();
    states.snapshotXmin = query->value(4).toLongLong();
    states.layoutId = query->value(5).toLongLong();
    states.seatDigest = query->value(6).toLongLong();
    const QByteArray held = query->value(7).toString().toUtf8();
    const QByteArray booked = query->value(8).toString().toUtf8();
    query->finish();
    if (states.stamp.seats == 0)
        return states; // no such show

    const bool heldParsed = held.isEmpty() || eachLine(held, [&](QByteArrayView line) {
        QByteArrayView field[3];
        if (splitFields(line, field, 3) != 3)
            return false;
        OccupancySeatRow seat;
        seat.seatId = jsonStringText(field[0], true);
        seat.status = OccupancySeatRow::Status::Held;
        seat.holdExpiresUs = toInt64(field[1]);
        seat.house = field[2] == "1";
        states.rows.append(std::move(seat));
        return true;
    });
    // A booking's id and sale time are shared by its seats' rows (QByteArray copies share the bytes).
    const bool bookedParsed = booked.isEmpty() || eachLine(booked, [&](QByteArrayView line) {
        QByteArrayView field[3];
        if (splitFields(line, field, 3) != 3)
            return false;
        OccupancySeatRow seat;
        seat.status = OccupancySeatRow::Status::Booked;
        seat.bookingId = field[0].toByteArray();
        seat.saleKnown = !field[1].isEmpty();
        if (seat.saleKnown) {
            seat.soldUs = toInt64(field[1]);
            seat.soldAt = soldAtText(seat.soldUs);
        }
        for (QByteArrayView rest = field[2]; !rest.isEmpty();) {
            const qsizetype tab = rest.indexOf('\t');
            seat.seatId = jsonStringText(tab < 0 ? rest : rest.first(tab), true);
            states.rows.append(seat);
            rest = tab < 0 ? QByteArrayView() : rest.sliced(tab + 1);
        }
        return true;
    });
    if (!heldParsed || !bookedParsed)
        return std::nullopt;
    return states;
}

std::optional<OccupancyPass> ReportRepository::occupancyPass(qint64 showId, qint64 sinceXmin)
{
    QSqlQuery *query = m_database.prepared(QLatin1String(kOccupancyPass));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":show"), showId);
    query->bindValue(QStringLiteral(":since"), sinceXmin);
    if (!execQuery(*query, "occupancy pass") || !query->next()) {
        m_database.resetAfterError(query->lastError());
        return std::nullopt;
    }
    OccupancyPass pass;
    pass.stamp = stampFrom(*query, 0);
    pass.nowUs = query->value(3).toLongLong();
    pass.snapshotXmin = query->value(4).toLongLong();
    const QByteArray changed = query->value(5).toString().toUtf8();
    query->finish();
    QJsonParseError error;
    const QJsonDocument rows = QJsonDocument::fromJson(changed, &error);
    if (error.error != QJsonParseError::NoError || !rows.isArray())
        return std::nullopt;
    const QJsonArray array = rows.array();
    pass.changed.reserve(array.size());
    for (const QJsonValue &value : array) {
        const QJsonArray row = value.toArray();
        OccupancySeatRow seat;
        seat.seatId = row.at(0).toString().toUtf8();
        seat.status = seatStatus(row.at(1).toString());
        seat.holdExpiresUs = row.at(2).toString().toLongLong();
        seat.house = row.at(3).toBool();
        seat.bookingId = row.at(4).toString().toUtf8();
        const QJsonValue sale = row.at(5);
        if (sale.isArray()) {
            seat.saleKnown = true;
            seat.soldUs = sale[0].toString().toLongLong();
            seat.soldAt = soldAtText(seat.soldUs);
        }
        pass.changed.append(seat);
    }
    return pass;
}

bool ReportRepository::prepareOccupancy()
{
    // A new PostgreSQL backend reads the catalog (tables, indexes, statistics, functions) on a statement's first
    // planning: ~100 ms for these on the bench data, paid by the first report on the connection otherwise.
    constexpr qint64 kNoSuchId = -1;
    return occupancyLayoutIdOf(kNoSuchId).has_value() && occupancyStates(kNoSuchId).has_value() && occupancyLayout(kNoSuchId).has_value()
           && occupancyPass(kNoSuchId, kNoSuchId).has_value();
}

std::optional<QList<qint64>> ReportRepository::showsOnSale(int limit)
{
    // The range of shows_starts after now(); the same window mq_place_hold sells in.
    QSqlQuery *query = m_database.prepared(QStringLiteral(
        "SELECT show_id FROM shows WHERE starts_at > now() AND sales_open_at <= now() AND now() <= sales_close_at "
        "ORDER BY starts_at, show_id LIMIT :limit"));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":limit"), limit);
    if (!execQuery(*query, "shows on sale")) {
        m_database.resetAfterError(query->lastError());
        return std::nullopt;
    }
    QList<qint64> shows;
    while (query->next())
        shows.append(query->value(0).toLongLong());
    query->finish();
    return shows;
}

} // namespace marquee::store
