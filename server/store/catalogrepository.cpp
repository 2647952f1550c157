// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/catalogrepository.h"

#include "core/isotime.h"

#include <QJsonDocument>

namespace marquee::store {

namespace {
// Columns of a show summary; the same projection serves the list and the single show.
const char *const kShowColumns =
    "s.show_id, s.movie_id, v.venue_id, v.name, sc.screen_id, sc.name, s.starts_at, s.currency, "
    "(SELECT coalesce(jsonb_object_agg(p.tier, p.amount_minor), '{}') FROM show_prices p WHERE p.show_id = s.show_id)::text, "
    "s.sales_open_at, s.sales_close_at, s.waiting_room, m.title, c.city_id, c.time_zone, v.currency ";
const char *const kShowJoins =
    "FROM shows s JOIN screens sc USING (screen_id) JOIN venues v USING (venue_id) JOIN cities c USING (city_id) "
    "JOIN movies m ON m.movie_id = s.movie_id ";

QJsonObject showFromRow(const QSqlQuery &query)
{
    QJsonObject show;
    show.insert(QStringLiteral("show_id"), query.value(0).toLongLong());
    show.insert(QStringLiteral("movie_id"), query.value(1).toLongLong());
    show.insert(QStringLiteral("title"), query.value(12).toString());
    show.insert(QStringLiteral("city_id"), query.value(13).toLongLong());
    // The city's zone: clients show and read the show's times in it, never in their machine's zone.
    show.insert(QStringLiteral("time_zone"), query.value(14).toString());
    QJsonObject venue{{QStringLiteral("venue_id"), query.value(2).toLongLong()}, {QStringLiteral("name"), query.value(3).toString()}};
    venue.insert(QStringLiteral("currency"), query.value(15).isNull() ? QJsonValue() : QJsonValue(query.value(15).toString()));
    show.insert(QStringLiteral("venue"), venue);
    show.insert(QStringLiteral("screen"), QJsonObject{{QStringLiteral("screen_id"), query.value(4).toLongLong()},
                                                      {QStringLiteral("name"), query.value(5).toString()}});
    show.insert(QStringLiteral("starts_at"), toIsoUtc(query.value(6).toDateTime()));
    show.insert(QStringLiteral("currency"), query.value(7).toString());
    show.insert(QStringLiteral("price_tiers"), QJsonDocument::fromJson(query.value(8).toString().toUtf8()).object());
    show.insert(QStringLiteral("sales_open_at"), toIsoUtc(query.value(9).toDateTime()));
    show.insert(QStringLiteral("sales_close_at"), toIsoUtc(query.value(10).toDateTime()));
    show.insert(QStringLiteral("waiting_room"), query.value(11).toBool());
    return show;
}
} // namespace

CatalogRepository::CatalogRepository(const Database &database)
    : m_database(database)
{
}

std::optional<QJsonArray> CatalogRepository::cities()
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT city_id, name, country, time_zone FROM cities ORDER BY name"));
    if (!execQuery(query, "list cities"))
        return std::nullopt;
    QJsonArray cities;
    while (query.next()) {
        cities.append(QJsonObject{{QStringLiteral("city_id"), query.value(0).toLongLong()},
                                  {QStringLiteral("name"), query.value(1).toString()},
                                  {QStringLiteral("country"), query.value(2).toString()},
                                  {QStringLiteral("time_zone"), query.value(3).toString()}});
    }
    return cities;
}

bool CatalogRepository::cityExists(qint64 cityId, bool *exists)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT 1 FROM cities WHERE city_id = ?"));
    query.addBindValue(cityId);
    if (!execQuery(query, "find city"))
        return false;
    *exists = query.next();
    return true;
}

std::optional<QJsonArray> CatalogRepository::moviesInCity(qint64 cityId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral(
        "SELECT m.movie_id, m.title, m.runtime_min, m.rating, array_to_json(m.genres)::text, m.kind, m.synopsis, "
        "       min(s.starts_at) "
        "  FROM movies m JOIN shows s ON s.movie_id = m.movie_id JOIN screens sc ON sc.screen_id = s.screen_id "
        "  JOIN venues v ON v.venue_id = sc.venue_id "
        " WHERE v.city_id = ? AND s.starts_at > now() "
        " GROUP BY m.movie_id ORDER BY min(s.starts_at), m.title"));
    query.addBindValue(cityId);
    if (!execQuery(query, "list movies"))
        return std::nullopt;
    QJsonArray movies;
    while (query.next()) {
        movies.append(QJsonObject{{QStringLiteral("movie_id"), query.value(0).toLongLong()},
                                  {QStringLiteral("title"), query.value(1).toString()},
                                  {QStringLiteral("runtime_min"), query.value(2).toInt()},
                                  {QStringLiteral("rating"), query.value(3).toString()},
                                  {QStringLiteral("genres"), QJsonDocument::fromJson(query.value(4).toString().toUtf8()).array()},
                                  {QStringLiteral("kind"), query.value(5).toString()},
                                  {QStringLiteral("synopsis"), query.value(6).toString()},
                                  {QStringLiteral("next_show_at"), toIsoUtc(query.value(7).toDateTime())}});
    }
    return movies;
}

std::optional<QJsonArray> CatalogRepository::showsOfMovie(qint64 movieId, std::optional<qint64> cityId, std::optional<QDate> date)
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery exists(db);
    prepareQuery(exists, QStringLiteral("SELECT 1 FROM movies WHERE movie_id = ?"));
    exists.addBindValue(movieId);
    if (!execQuery(exists, "find movie") || !exists.next())
        return std::nullopt;

    QSqlQuery query(db);
    // The date is the local date where the show plays, not the UTC date.
    prepareQuery(query, QStringLiteral("SELECT ") + QString::fromLatin1(kShowColumns) + QString::fromLatin1(kShowJoins)
                            + QStringLiteral("WHERE s.movie_id = :movie AND (CAST(:city AS bigint) IS NULL OR c.city_id = :city) "
                                             "AND (CAST(:date AS date) IS NULL "
                                             "     OR (s.starts_at AT TIME ZONE c.time_zone)::date = CAST(:date AS date)) "
                                             "AND s.starts_at > now() - interval '1 day' "
                                             "ORDER BY s.starts_at, s.show_id"));
    query.bindValue(QStringLiteral(":movie"), movieId);
    query.bindValue(QStringLiteral(":city"), cityId ? QVariant(*cityId) : QVariant(QMetaType::fromType<qlonglong>()));
    query.bindValue(QStringLiteral(":date"), date ? QVariant(date->toString(Qt::ISODate)) : QVariant(QMetaType::fromType<QString>()));
    if (!execQuery(query, "list shows"))
        return std::nullopt;
    QJsonArray shows;
    while (query.next())
        shows.append(showFromRow(query));
    return shows;
}

std::optional<QJsonObject> CatalogRepository::show(qint64 showId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT ") + QString::fromLatin1(kShowColumns) + QString::fromLatin1(kShowJoins)
                            + QStringLiteral("WHERE s.show_id = ?"));
    query.addBindValue(showId);
    if (!execQuery(query, "find show") || !query.next())
        return std::nullopt;
    return showFromRow(query);
}

std::optional<ShowLayout> CatalogRepository::showLayout(qint64 showId)
{
    QSqlDatabase db = m_database.connection();
    QSqlQuery head(db);
    prepareQuery(head, QStringLiteral(
        "SELECT s.currency, l.layout_id, l.name, l.width, l.height, l.stage::text, "
        "  (SELECT coalesce(jsonb_object_agg(p.tier, p.amount_minor), '{}') FROM show_prices p WHERE p.show_id = s.show_id)::text, "
        "  (SELECT coalesce(jsonb_agg(jsonb_build_object('label', r.row_label, 'x', r.label_x, 'y', r.label_y) "
        "                             ORDER BY r.sort_key), '[]') FROM layout_rows r WHERE r.layout_id = l.layout_id)::text "
        "  FROM shows s JOIN screens sc USING (screen_id) JOIN seat_layouts l ON l.layout_id = sc.layout_id "
        " WHERE s.show_id = ?"));
    head.addBindValue(showId);
    if (!execQuery(head, "load layout") || !head.next())
        return std::nullopt;
    ShowLayout layout;
    layout.showId = showId;
    layout.currency = head.value(0).toString();
    layout.prices = QJsonDocument::fromJson(head.value(6).toString().toUtf8()).object();
    layout.layout = QJsonObject{{QStringLiteral("layout_id"), head.value(1).toLongLong()},
                                {QStringLiteral("name"), head.value(2).toString()},
                                {QStringLiteral("width"), head.value(3).toInt()},
                                {QStringLiteral("height"), head.value(4).toInt()},
                                {QStringLiteral("stage"), QJsonDocument::fromJson(head.value(5).toString().toUtf8()).object()},
                                {QStringLiteral("rows"), QJsonDocument::fromJson(head.value(7).toString().toUtf8()).array()}};
    const qint64 layoutId = head.value(1).toLongLong();

    QSqlQuery seats(db);
    seats.setForwardOnly(true);
    prepareQuery(seats, QStringLiteral("SELECT ls.seat_id, ls.row_label, ls.number, ls.x, ls.y, ls.tier, "
                                       "       array_to_string(ls.attributes, ',') "
                                       "  FROM show_seats ss JOIN layout_seats ls ON ls.layout_id = ? AND ls.seat_id = ss.seat_id "
                                       " WHERE ss.show_id = ? ORDER BY ss.seat_id"));
    seats.addBindValue(layoutId);
    seats.addBindValue(showId);
    if (!execQuery(seats, "load layout seats"))
        return std::nullopt;
    while (seats.next()) {
        Seat seat;
        seat.seatId = seats.value(0).toString();
        seat.row = seats.value(1).toString();
        seat.number = seats.value(2).toInt();
        seat.x = seats.value(3).toDouble();
        seat.y = seats.value(4).toDouble();
        seat.tier = seats.value(5).toString();
        const QString attributes = seats.value(6).toString();
        if (!attributes.isEmpty())
            seat.attributes = attributes.split(QLatin1Char(','));
        layout.seats.push_back(std::move(seat));
    }
    return layout;
}

std::optional<SeatStatuses> CatalogRepository::seatStatuses(qint64 showId)
{
    // One row for the whole show: a status letter per seat in canonical order, and the sum of row versions
    // (every write bumps a row version, so the sum only grows).
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT string_agg(CASE WHEN status = 'held' AND hold_expires_at <= now() THEN 'a' "
        "                       ELSE left(status::text, 1) END, '' ORDER BY seat_id), sum(version), "
        // For refusals from memory (SeatFeed): how long the held seats and the sales window stay as they are.
        "       extract(epoch FROM min(hold_expires_at) FILTER (WHERE status = 'held' AND hold_expires_at > now()) - now()) * 1000, "
        "       (SELECT extract(epoch FROM least(s.starts_at, s.sales_close_at) - now()) * 1000 FROM shows s "
        "         WHERE s.show_id = show_seats.show_id AND now() >= s.sales_open_at AND now() < s.starts_at "
        "           AND now() <= s.sales_close_at) "
        "  FROM show_seats WHERE show_id = ? GROUP BY show_id"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &query = *statement;
    query.addBindValue(showId);
    if (!execQuery(query, "seat statuses")) {
        m_database.resetAfterError(query.lastError());
        return std::nullopt;
    }
    if (!query.next() || query.value(0).isNull()) {
        query.finish();
        return std::nullopt;
    }
    SeatStatuses statuses{query.value(0).toString().toLatin1(), query.value(1).toLongLong()};
    if (!query.value(2).isNull())
        statuses.firstLapseInMs = qint64(query.value(2).toDouble());
    if (!query.value(3).isNull())
        statuses.salesOpenForMs = qint64(query.value(3).toDouble());
    query.finish();
    return statuses;
}

} // namespace marquee::store
