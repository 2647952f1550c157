// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/showrepository.h"

#include <QJsonDocument>

namespace marquee::store {

namespace {
std::optional<qint64> insertReturningId(QSqlQuery &query, const char *what)
{
    if (!execQuery(query, what) || !query.next())
        return std::nullopt;
    return query.value(0).toLongLong();
}
} // namespace

ShowRepository::ShowRepository(const Database &database)
    : m_database(database)
{
}

std::optional<qint64> ShowRepository::cityCount(QString *error)
{
    QSqlQuery query(m_database.connection());
    if (!query.exec(QStringLiteral("SELECT count(*) FROM cities")) || !query.next()) {
        if (error)
            *error = query.lastError().text();
        return std::nullopt;
    }
    return query.value(0).toLongLong();
}

std::optional<qint64> ShowRepository::addCity(const QString &name, const QString &country, const QString &timeZone)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO cities (name, country, time_zone) VALUES (?, ?, ?) RETURNING city_id"));
    query.addBindValue(name);
    query.addBindValue(nonNull(country));
    query.addBindValue(timeZone.isEmpty() ? QStringLiteral("UTC") : timeZone);
    return insertReturningId(query, "add city");
}

std::optional<qint64> ShowRepository::addVenue(qint64 cityId, const QString &name, const QString &address, const QString &currency)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO venues (city_id, name, address, currency) VALUES (?, ?, ?, ?) RETURNING venue_id"));
    query.addBindValue(cityId);
    query.addBindValue(name);
    query.addBindValue(nonNull(address));
    query.addBindValue(currency.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(currency));
    return insertReturningId(query, "add venue");
}

std::optional<qint64> ShowRepository::addLayout(const NewLayout &layout)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("INSERT INTO seat_layouts (name, width, height, stage) VALUES (?, ?, ?, ?::jsonb) RETURNING layout_id"));
    query.addBindValue(layout.name);
    query.addBindValue(layout.width);
    query.addBindValue(layout.height);
    query.addBindValue(QString::fromUtf8(QJsonDocument(layout.stage).toJson(QJsonDocument::Compact)));
    const auto layoutId = insertReturningId(query, "add layout");
    if (!layoutId)
        return std::nullopt;

    // Whole rows and seats go in as arrays: one statement each, whatever the size of the layout.
    QStringList labels, labelXs, labelYs, sortKeys;
    int sortKey = 0;
    for (const NewLayoutRow &row : layout.rows) {
        labels << row.label;
        labelXs << QString::number(row.x);
        labelYs << QString::number(row.y);
        sortKeys << QString::number(sortKey++);
    }
    QSqlQuery rows(db);
    prepareQuery(rows, QStringLiteral("INSERT INTO layout_rows (layout_id, row_label, sort_key, label_x, label_y) "
                                      "SELECT ?, * FROM unnest(?::text[], ?::int[], ?::int[], ?::int[])"));
    rows.addBindValue(*layoutId);
    rows.addBindValue(toPgTextArray(labels));
    rows.addBindValue(toPgTextArray(sortKeys));
    rows.addBindValue(toPgTextArray(labelXs));
    rows.addBindValue(toPgTextArray(labelYs));
    if (!execQuery(rows, "add layout rows"))
        return std::nullopt;

    QStringList ids, rowLabels, numbers, xs, ys, tiers, attributes;
    for (const Seat &seat : layout.seats) {
        ids << seat.seatId;
        rowLabels << seat.row;
        numbers << QString::number(seat.number);
        xs << QString::number(qRound64(seat.x)); // whole layout units in the table
        ys << QString::number(qRound64(seat.y));
        tiers << seat.tier;
        attributes << seat.attributes.join(QLatin1Char(','));
    }
    QSqlQuery seats(db);
    prepareQuery(seats, QStringLiteral("INSERT INTO layout_seats (layout_id, seat_id, row_label, number, x, y, tier, attributes) "
                                       "SELECT ?, s, r, n, x, y, t, CASE WHEN a = '' THEN '{}'::text[] ELSE string_to_array(a, ',') END "
                                       "  FROM unnest(?::text[], ?::text[], ?::int[], ?::int[], ?::int[], ?::text[], ?::text[]) "
                                       "       AS u(s, r, n, x, y, t, a)"));
    seats.addBindValue(*layoutId);
    seats.addBindValue(toPgTextArray(ids));
    seats.addBindValue(toPgTextArray(rowLabels));
    seats.addBindValue(toPgTextArray(numbers));
    seats.addBindValue(toPgTextArray(xs));
    seats.addBindValue(toPgTextArray(ys));
    seats.addBindValue(toPgTextArray(tiers));
    seats.addBindValue(toPgTextArray(attributes));
    if (!execQuery(seats, "add layout seats") || !transaction.commit())
        return std::nullopt;
    return layoutId;
}

std::optional<qint64> ShowRepository::addScreen(qint64 venueId, const QString &name, qint64 layoutId)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO screens (venue_id, name, layout_id) VALUES (?, ?, ?) RETURNING screen_id"));
    query.addBindValue(venueId);
    query.addBindValue(name);
    query.addBindValue(layoutId);
    return insertReturningId(query, "add screen");
}

std::optional<qint64> ShowRepository::addMovie(const QString &title, const QString &kind, int runtimeMin, const QString &rating,
                                               const QStringList &genres, const QString &synopsis)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("INSERT INTO movies (title, kind, runtime_min, rating, genres, synopsis) "
                                       "VALUES (?, ?, ?, ?, ?::text[], ?) RETURNING movie_id"));
    query.addBindValue(title);
    query.addBindValue(kind);
    query.addBindValue(runtimeMin);
    query.addBindValue(nonNull(rating));
    query.addBindValue(toPgTextArray(genres));
    query.addBindValue(nonNull(synopsis));
    return insertReturningId(query, "add movie");
}

std::optional<qint64> ShowRepository::addShow(const NewShow &show, QString *error, const AlsoInTransaction &also)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("INSERT INTO shows (movie_id, screen_id, starts_at, sales_open_at, sales_close_at, currency) "
                                       "VALUES (?, ?, ?, ?, ?, ?) RETURNING show_id"));
    query.addBindValue(show.movieId);
    query.addBindValue(show.screenId);
    query.addBindValue(show.startsAt.toUTC());
    query.addBindValue(show.salesOpenAt.toUTC());
    query.addBindValue((show.salesCloseAt.isValid() ? show.salesCloseAt : show.startsAt).toUTC());
    query.addBindValue(show.currency);
    const auto showId = insertReturningId(query, "add show");
    if (!showId) {
        if (error)
            *error = query.lastError().text();
        return std::nullopt;
    }
    QSqlQuery prices(db);
    prepareQuery(prices, QStringLiteral("INSERT INTO show_prices (show_id, tier, amount_minor) VALUES (?, ?, ?)"));
    for (auto it = show.prices.constBegin(); it != show.prices.constEnd(); ++it) {
        prices.addBindValue(*showId);
        prices.addBindValue(it.key());
        prices.addBindValue(it.value());
        if (!execQuery(prices, "add price")) {
            if (error)
                *error = prices.lastError().text();
            return std::nullopt;
        }
    }
    QSqlQuery seats(db);
    prepareQuery(seats, QStringLiteral("INSERT INTO show_seats (show_id, seat_id) "
                                       "SELECT ?, ls.seat_id FROM layout_seats ls JOIN screens sc ON sc.layout_id = ls.layout_id "
                                       " WHERE sc.screen_id = ?"));
    seats.addBindValue(*showId);
    seats.addBindValue(show.screenId);
    if (!execQuery(seats, "add show seats") || (also && !also(db, *showId)) || !transaction.commit()) {
        if (error)
            *error = seats.lastError().text();
        return std::nullopt;
    }
    return showId;
}

std::optional<QStringList> ShowRepository::screenTiers(qint64 screenId, bool *ok, QString *venueCurrency)
{
    *ok = false;
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT sc.screen_id, array_to_string(ARRAY(SELECT DISTINCT ls.tier FROM layout_seats ls "
                                       "                                         WHERE ls.layout_id = sc.layout_id ORDER BY 1), ','), "
                                       "       coalesce(v.currency, '') "
                                       "  FROM screens sc JOIN venues v ON v.venue_id = sc.venue_id WHERE sc.screen_id = ?"));
    query.addBindValue(screenId);
    if (!execQuery(query, "screen tiers"))
        return std::nullopt;
    *ok = true;
    if (!query.next())
        return std::nullopt;
    if (venueCurrency)
        *venueCurrency = query.value(2).toString();
    return query.value(1).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
}

bool ShowRepository::movieExists(qint64 movieId, bool *exists)
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT 1 FROM movies WHERE movie_id = ?"));
    query.addBindValue(movieId);
    if (!execQuery(query, "find movie"))
        return false;
    *exists = query.next();
    return true;
}

ShowRepository::UpdateResult ShowRepository::updateShow(qint64 showId, const ShowChanges &changes, QString *error,
                                                        const AlsoInTransaction &also)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return UpdateResult::Error;
    QSqlQuery current(db);
    prepareQuery(current, QStringLiteral("SELECT starts_at, sales_open_at, sales_close_at, waiting_room FROM shows WHERE show_id = ? FOR UPDATE"));
    current.addBindValue(showId);
    if (!execQuery(current, "lock show"))
        return UpdateResult::Error;
    if (!current.next())
        return UpdateResult::NotFound;
    const QDateTime startsAt = changes.startsAt.value_or(current.value(0).toDateTime());
    const QDateTime salesOpenAt = changes.salesOpenAt.value_or(current.value(1).toDateTime());
    // Moving the start earlier than the old close pulls the close with it unless a close was given.
    QDateTime salesCloseAt = changes.salesCloseAt.value_or(current.value(2).toDateTime());
    if (!changes.salesCloseAt && changes.startsAt && salesCloseAt > startsAt)
        salesCloseAt = startsAt;
    if (!(salesOpenAt <= salesCloseAt && salesCloseAt <= startsAt)) {
        *error = QStringLiteral("sales must open before they close, and close no later than the start");
        return UpdateResult::Invalid;
    }
    QSqlQuery update(db);
    prepareQuery(update, QStringLiteral("UPDATE shows SET starts_at = ?, sales_open_at = ?, sales_close_at = ?, waiting_room = ? WHERE show_id = ?"));
    update.addBindValue(startsAt.toUTC());
    update.addBindValue(salesOpenAt.toUTC());
    update.addBindValue(salesCloseAt.toUTC());
    update.addBindValue(changes.waitingRoom.value_or(current.value(3).toBool()));
    update.addBindValue(showId);
    if (!execQuery(update, "update show"))
        return UpdateResult::Error;
    QSqlQuery price(db);
    prepareQuery(price, QStringLiteral("INSERT INTO show_prices (show_id, tier, amount_minor) VALUES (?, ?, ?) "
                                       "ON CONFLICT (show_id, tier) DO UPDATE SET amount_minor = EXCLUDED.amount_minor"));
    for (auto it = changes.prices.constBegin(); it != changes.prices.constEnd(); ++it) {
        price.addBindValue(showId);
        price.addBindValue(it.key());
        price.addBindValue(it.value());
        if (!execQuery(price, "reprice show"))
            return UpdateResult::Error;
    }
    QSqlQuery event(db);
    prepareQuery(event, QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) "
                                       "VALUES ('show.updated', ?, jsonb_build_object('show_id', ?::bigint))"));
    event.addBindValue(QString::number(showId));
    event.addBindValue(showId);
    if (!execQuery(event, "show event") || (also && !also(db, showId)) || !transaction.commit())
        return UpdateResult::Error;
    return UpdateResult::Updated;
}

} // namespace marquee::store
