// SPDX-License-Identifier: AGPL-3.0-or-later
#include "reportrepository.h"

#include "core/isotime.h"

#include <QSqlQuery>

namespace marquee::store {

namespace {
/** @brief The SQL pieces of one grouping: the key of a booking row `b`, of a refund row `r`, and the label. */
struct GroupingSql {
    const char *bookingKey;
    const char *refundKey;
    const char *keyText;  ///< of the aggregated key j.k
    const char *label;
    const char *labelJoin;
};

GroupingSql groupingSql(SalesGrouping grouping)
{
    switch (grouping) {
    case SalesGrouping::Day:
        // Refunds count on the day they were asked for; everything else groups a refund like its booking.
        return {"(b.created_at AT TIME ZONE 'UTC')::date", "(r.created_at AT TIME ZONE 'UTC')::date", "to_char(j.k, 'YYYY-MM-DD')",
                "to_char(j.k, 'YYYY-MM-DD')", ""};
    case SalesGrouping::Show:
        return {"b.show_id", "b.show_id", "j.k::text",
                "coalesce(m.title, '') || ' ' || coalesce(to_char(sh.starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI\"Z\"'), '')",
                "LEFT JOIN shows sh ON sh.show_id = j.k LEFT JOIN movies m ON m.movie_id = sh.movie_id"};
    case SalesGrouping::Movie:
        return {"b.movie_id", "b.movie_id", "j.k::text", "coalesce(m.title, '')", "LEFT JOIN movies m ON m.movie_id = j.k"};
    case SalesGrouping::Channel:
        return {"b.channel", "b.channel", "j.k", "j.k", ""};
    case SalesGrouping::Device:
        // 0: sold without a device (a desk session, or a cashier with no till on the shift).
        return {"coalesce(b.device_id, 0)", "coalesce(b.device_id, 0)", "j.k::text", "coalesce(d.name, 'no device')",
                "LEFT JOIN devices d ON d.device_id = j.k"};
    }
    return groupingSql(SalesGrouping::Day);
}

// One show's seats with their report state and, for sold seats, when they were sold and in which order.
const char *kShowSeats =
    "WITH seats AS ("
    "  SELECT ss.seat_id, ls.row_label, ls.number, ls.tier, "
    "         CASE WHEN ss.status = 'booked' THEN 'sold' "
    "              WHEN ss.status = 'held' AND ss.hold_expires_at > now() AND h.owner = 'house' THEN 'house' "
    "              WHEN ss.status = 'held' AND ss.hold_expires_at > now() THEN 'held' "
    "              ELSE 'free' END AS state, "
    "         b.created_at AS sold_at "
    "    FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id "
    "    JOIN show_seats ss ON ss.show_id = s.show_id "
    "    JOIN layout_seats ls ON ls.layout_id = sc.layout_id AND ls.seat_id = ss.seat_id "
    "    LEFT JOIN holds h ON h.hold_id = ss.held_by "
    "    LEFT JOIN bookings b ON b.booking_id = ss.booking_id "
    "   WHERE s.show_id = ?) ";
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
    const QString sql = QStringLiteral(
        "WITH sold AS ("
        "  SELECT %1 AS k, b.currency, sum(b.amount_minor) AS revenue, sum(b.tickets) AS tickets, count(*) AS bookings "
        "    FROM bookings b WHERE b.created_at >= CAST(:from AS timestamptz) AND b.created_at < CAST(:to AS timestamptz) "
        "   GROUP BY 1, 2), "
        "back AS ("
        "  SELECT %2 AS k, r.currency, sum(r.amount_minor) AS refunded, count(*) AS refunds "
        "    FROM refunds r JOIN bookings b ON b.booking_id = r.booking_id "
        "   WHERE r.created_at >= CAST(:from AS timestamptz) AND r.created_at < CAST(:to AS timestamptz) "
        "   GROUP BY 1, 2), "
        "j AS ("
        "  SELECT coalesce(s.k, f.k) AS k, coalesce(s.currency, f.currency) AS currency, coalesce(s.revenue, 0) AS revenue, "
        "         coalesce(s.tickets, 0) AS tickets, coalesce(s.bookings, 0) AS bookings, coalesce(f.refunds, 0) AS refunds, "
        "         coalesce(f.refunded, 0) AS refunded "
        "    FROM sold s FULL JOIN back f ON f.k = s.k AND f.currency = s.currency) "
        "SELECT %3, %4, j.currency, j.revenue, j.tickets, j.bookings, j.refunds, j.refunded "
        "  FROM j %5 ORDER BY j.k, j.currency")
                            .arg(QLatin1String(g.bookingKey), QLatin1String(g.refundKey), QLatin1String(g.keyText),
                                 QLatin1String(g.label), QLatin1String(g.labelJoin));
    QSqlQuery query(m_database.connection());
    if (!prepareQuery(query, sql))
        return std::nullopt;
    query.bindValue(QStringLiteral(":from"), from.toUTC());
    query.bindValue(QStringLiteral(":to"), to.toUTC());
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
    QSqlDatabase db = m_database.connection();
    QSqlQuery totals(db);
    if (!prepareQuery(totals, QLatin1String(kShowSeats) + QStringLiteral(
            "SELECT tier, GROUPING(tier), count(*), count(*) FILTER (WHERE state = 'sold'), count(*) FILTER (WHERE state = 'held'), "
            "       count(*) FILTER (WHERE state = 'house'), count(*) FILTER (WHERE state = 'free') "
            "  FROM seats GROUP BY ROLLUP (tier) ORDER BY GROUPING(tier), tier")))
        return std::nullopt;
    totals.addBindValue(showId);
    if (!execQuery(totals, "occupancy totals"))
        return std::nullopt;
    auto counts = [&totals]() {
        return QJsonObject{{QStringLiteral("capacity"), totals.value(2).toLongLong()},
                           {QStringLiteral("sold"), totals.value(3).toLongLong()},
                           {QStringLiteral("held"), totals.value(4).toLongLong()},
                           {QStringLiteral("house_held"), totals.value(5).toLongLong()},
                           {QStringLiteral("free"), totals.value(6).toLongLong()}};
    };
    QJsonObject result;
    QJsonArray tiers;
    while (totals.next()) {
        if (totals.value(1).toInt() == 1) {
            result = counts();
            continue;
        }
        QJsonObject tier = counts();
        tier.insert(QStringLiteral("tier"), totals.value(0).toString());
        tiers.append(tier);
    }
    // ROLLUP answers a grand total even over no rows: a show always has seats, so none means no such show.
    if (result.value(QStringLiteral("capacity")).toInteger() == 0)
        return QJsonObject();
    result.insert(QStringLiteral("show_id"), showId);
    result.insert(QStringLiteral("tiers"), tiers);

    QSqlQuery seats(db);
    if (!prepareQuery(seats, QLatin1String(kShowSeats) + QStringLiteral(
            "SELECT seat_id, row_label, number, tier, state, sold_at, "
            "       CASE WHEN state = 'sold' THEN dense_rank() OVER (PARTITION BY state = 'sold' ORDER BY sold_at) END "
            "  FROM seats ORDER BY row_label, number")))
        return std::nullopt;
    seats.addBindValue(showId);
    if (!execQuery(seats, "occupancy seats"))
        return std::nullopt;
    QJsonArray seatRows;
    while (seats.next()) {
        const bool sold = !seats.value(5).isNull();
        seatRows.append(QJsonObject{{QStringLiteral("seat_id"), seats.value(0).toString()},
                                    {QStringLiteral("row"), seats.value(1).toString()},
                                    {QStringLiteral("number"), seats.value(2).toInt()},
                                    {QStringLiteral("tier"), seats.value(3).toString()},
                                    {QStringLiteral("state"), seats.value(4).toString()},
                                    {QStringLiteral("sold_at"), sold ? QJsonValue(toIsoUtc(seats.value(5).toDateTime())) : QJsonValue()},
                                    {QStringLiteral("sell_order"), sold ? QJsonValue(seats.value(6).toLongLong()) : QJsonValue()}});
    }
    result.insert(QStringLiteral("seats"), seatRows);
    return result;
}

} // namespace marquee::store
