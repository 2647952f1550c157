// SPDX-License-Identifier: AGPL-3.0-or-later
// Integration tests of the read API, sessions, auth and routing over real HTTP against a real
// PostgreSQL. Holds have their own file (tst_holds.cpp).
#include "servertesthelpers.h"

#include <QDate>
#include <QSet>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
QByteArray id(qint64 value)
{
    return QByteArray::number(value);
}
} // namespace

TEST(Api, HealthAndReady)
{
    TestServer server;
    auto client = server.client();
    const HttpResult health = client->get("/healthz");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.json().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    const HttpResult ready = client->get("/readyz");
    EXPECT_EQ(ready.status, 200);
    EXPECT_EQ(ready.json().value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
    EXPECT_GE(ready.json().value(QStringLiteral("schema_version")).toInt(), 1);
    // Neither needs a token, and both refuse other methods.
    EXPECT_API_ERROR(client->request("POST", "/healthz", "{}"), 405, "method_not_allowed");
}

TEST(Api, CitiesMoviesAndShows)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 5);
    const qint64 cityId = server.lastCityId();
    const qint64 movieId = server.lastMovieId();
    // A second show of the same movie in another city, two days later: filters must tell them apart.
    const qint64 otherCity = server.scalar(QStringLiteral("INSERT INTO cities (name) VALUES ('Elsewhere') RETURNING city_id")).toLongLong();
    const QDateTime later = QDateTime::currentDateTimeUtc().addDays(3);
    const qint64 laterShow = server.createShow(1, 3, later);
    const qint64 laterMovie = server.lastMovieId();
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE venues SET city_id = %1 WHERE venue_id = (SELECT sc.venue_id FROM shows s "
                                             "JOIN screens sc USING (screen_id) WHERE s.show_id = %2) RETURNING 1")
                                  .arg(otherCity)
                                  .arg(laterShow))
                    .isValid());
    ASSERT_TRUE(server.scalar(QStringLiteral("UPDATE shows SET movie_id = %1 WHERE show_id = %2 RETURNING 1").arg(movieId).arg(laterShow)).isValid());
    Q_UNUSED(laterMovie);

    auto client = server.client(server.deviceToken());

    const HttpResult cities = client->get("/api/v1/cities");
    ASSERT_EQ(cities.status, 200) << cities.body.constData();
    QSet<QString> names;
    for (const QJsonValue &city : cities.jsonArray()) {
        names.insert(city[QStringLiteral("name")].toString());
        EXPECT_GT(city[QStringLiteral("city_id")].toInteger(), 0);
    }
    EXPECT_EQ(names, (QSet<QString>{QStringLiteral("Testville"), QStringLiteral("Elsewhere")}));

    const HttpResult movies = client->get("/api/v1/cities/" + id(cityId) + "/movies");
    ASSERT_EQ(movies.status, 200) << movies.body.constData();
    ASSERT_EQ(movies.jsonArray().size(), 1);
    const QJsonObject movie = movies.jsonArray().first().toObject();
    EXPECT_EQ(movie[QStringLiteral("movie_id")].toInteger(), movieId);
    EXPECT_EQ(movie[QStringLiteral("runtime_min")].toInt(), 100);
    EXPECT_EQ(movie[QStringLiteral("rating")].toString(), QStringLiteral("U"));
    EXPECT_EQ(stringList(movie[QStringLiteral("genres")]), QStringList{QStringLiteral("Drama")});
    EXPECT_FALSE(movie[QStringLiteral("title")].toString().isEmpty());

    // Without filters: both shows, in start order, each with the documented fields.
    const HttpResult all = client->get("/api/v1/movies/" + id(movieId) + "/shows");
    ASSERT_EQ(all.status, 200) << all.body.constData();
    ASSERT_EQ(all.jsonArray().size(), 2);
    const QJsonObject first = all.jsonArray().at(0).toObject();
    EXPECT_EQ(first[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_EQ(all.jsonArray().at(1)[QStringLiteral("show_id")].toInteger(), laterShow);
    EXPECT_EQ(first[QStringLiteral("movie_id")].toInteger(), movieId);
    EXPECT_EQ(first[QStringLiteral("currency")].toString(), QStringLiteral("EUR"));
    EXPECT_EQ(first[QStringLiteral("price_tiers")].toObject(),
              (QJsonObject{{QStringLiteral("standard"), 1250}, {QStringLiteral("premium"), 1800}}));
    EXPECT_FALSE(first[QStringLiteral("venue")].toObject()[QStringLiteral("name")].toString().isEmpty());
    EXPECT_FALSE(first[QStringLiteral("screen")].toObject()[QStringLiteral("name")].toString().isEmpty());
    const QString startsAt = first[QStringLiteral("starts_at")].toString();
    EXPECT_TRUE(startsAt.endsWith(QLatin1Char('Z'))) << qPrintable(startsAt);
    EXPECT_TRUE(QDateTime::fromString(startsAt, Qt::ISODateWithMs).isValid()) << qPrintable(startsAt);

    // City filter, date filter, both, and a date with no show.
    const HttpResult inCity = client->get("/api/v1/movies/" + id(movieId) + "/shows?city=" + id(otherCity));
    ASSERT_EQ(inCity.status, 200);
    ASSERT_EQ(inCity.jsonArray().size(), 1);
    EXPECT_EQ(inCity.jsonArray().first()[QStringLiteral("show_id")].toInteger(), laterShow);
    const QByteArray laterDate = later.date().toString(Qt::ISODate).toLatin1();
    const HttpResult onDate = client->get("/api/v1/movies/" + id(movieId) + "/shows?date=" + laterDate);
    ASSERT_EQ(onDate.status, 200);
    ASSERT_EQ(onDate.jsonArray().size(), 1);
    EXPECT_EQ(onDate.jsonArray().first()[QStringLiteral("show_id")].toInteger(), laterShow);
    const HttpResult both = client->get("/api/v1/movies/" + id(movieId) + "/shows?city=" + id(cityId) + "&date=" + laterDate);
    ASSERT_EQ(both.status, 200);
    EXPECT_EQ(both.jsonArray().size(), 0);
    const QByteArray noShowDate = QDate::currentDate().addDays(20).toString(Qt::ISODate).toLatin1();
    EXPECT_EQ(client->get("/api/v1/movies/" + id(movieId) + "/shows?date=" + noShowDate).jsonArray().size(), 0);

    // Errors.
    EXPECT_API_ERROR(client->get("/api/v1/movies/" + id(movieId) + "/shows?date=2026-13-45"), 400, "invalid_query");
    EXPECT_API_ERROR(client->get("/api/v1/movies/" + id(movieId) + "/shows?date=tomorrow"), 400, "invalid_query");
    EXPECT_API_ERROR(client->get("/api/v1/movies/" + id(movieId) + "/shows?city=abc"), 400, "invalid_query");
    EXPECT_API_ERROR(client->get("/api/v1/movies/" + id(movieId) + "/shows?city=999999"), 404, "city_not_found");
    EXPECT_API_ERROR(client->get("/api/v1/movies/999999/shows"), 404, "movie_not_found");
    EXPECT_API_ERROR(client->get("/api/v1/movies/abc/shows"), 400, "invalid_id");
    EXPECT_API_ERROR(client->get("/api/v1/cities/999999/movies"), 404, "city_not_found");
    EXPECT_API_ERROR(client->get("/api/v1/cities/-3/movies"), 400, "invalid_id");
}

TEST(Api, ShowDetails)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 4);
    auto client = server.client(server.deviceToken());
    const HttpResult show = client->get("/api/v1/shows/" + id(showId));
    ASSERT_EQ(show.status, 200) << show.body.constData();
    const QJsonObject object = show.json();
    EXPECT_EQ(object[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_EQ(object[QStringLiteral("movie_id")].toInteger(), server.lastMovieId());
    EXPECT_EQ(object[QStringLiteral("city_id")].toInteger(), server.lastCityId());
    EXPECT_EQ(object[QStringLiteral("currency")].toString(), QStringLiteral("EUR"));
    EXPECT_EQ(object[QStringLiteral("price_tiers")].toObject()[QStringLiteral("premium")].toInteger(), 1800);
    EXPECT_TRUE(object.contains(QStringLiteral("sales_open_at")));
    EXPECT_TRUE(object.contains(QStringLiteral("sales_close_at")));
    EXPECT_API_ERROR(client->get("/api/v1/shows/987654"), 404, "show_not_found");
    EXPECT_API_ERROR(client->get("/api/v1/shows/zero"), 400, "invalid_id");
}

TEST(Api, SeatMapShapeStatusesAndEtag)
{
    TestServer server;
    const qint64 showId = server.createShow(3, 4);
    auto client = server.client(server.deviceToken());
    const QByteArray path = "/api/v1/shows/" + id(showId) + "/seatmap";

    const HttpResult map = client->get(path);
    ASSERT_EQ(map.status, 200) << map.body.constData();
    const QJsonObject body = map.json();
    EXPECT_EQ(body[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_EQ(body[QStringLiteral("currency")].toString(), QStringLiteral("EUR"));
    EXPECT_TRUE(body[QStringLiteral("version")].isDouble());
    const QJsonObject layout = body[QStringLiteral("layout")].toObject();
    EXPECT_GT(layout[QStringLiteral("width")].toInt(), 0);
    EXPECT_GT(layout[QStringLiteral("height")].toInt(), 0);
    EXPECT_EQ(layout[QStringLiteral("rows")].toArray().size(), 3);
    const QJsonArray seats = body[QStringLiteral("seats")].toArray();
    ASSERT_EQ(seats.size(), 12);
    QSet<QString> ids;
    for (const QJsonValue &value : seats) {
        const QJsonObject seat = value.toObject();
        const QString seatId = seat[QStringLiteral("seat_id")].toString();
        ids.insert(seatId);
        EXPECT_EQ(seat[QStringLiteral("row")].toString() + QString::number(seat[QStringLiteral("number")].toInt()), seatId);
        EXPECT_TRUE(seat[QStringLiteral("x")].isDouble() && seat[QStringLiteral("y")].isDouble());
        EXPECT_TRUE(seat[QStringLiteral("attributes")].isArray());
        EXPECT_EQ(seat[QStringLiteral("status")].toString(), QStringLiteral("available"));
        // The last two rows are premium in createShow(); the price follows the tier.
        const bool premium = seat[QStringLiteral("row")].toString() != QLatin1String("A");
        EXPECT_EQ(seat[QStringLiteral("tier")].toString(), premium ? QStringLiteral("premium") : QStringLiteral("standard"));
        EXPECT_EQ(seat[QStringLiteral("price_minor")].toInteger(), premium ? 1800 : 1250);
        if (seatId == QLatin1String("A1")) {
            EXPECT_EQ(stringList(seat[QStringLiteral("attributes")]), QStringList{QStringLiteral("wheelchair")});
        }
    }
    EXPECT_EQ(ids.size(), 12);

    // ETag and conditional GET.
    const QByteArray etag = map.header("ETag");
    ASSERT_FALSE(etag.isEmpty());
    const HttpResult same = client->get(path, {{"If-None-Match", etag}});
    EXPECT_EQ(same.status, 304);
    EXPECT_TRUE(same.body.isEmpty());
    EXPECT_EQ(same.header("ETag"), etag);
    EXPECT_EQ(client->get(path, {{"If-None-Match", "\"not-the-tag\""}}).status, 200);

    // A hold changes the tag and the statuses; the old tag no longer gets a 304.
    const HttpResult hold = client->post(holdPath(showId), seatsBody({QStringLiteral("B2"), QStringLiteral("B3")}));
    ASSERT_EQ(hold.status, 200) << hold.body.constData();
    const HttpResult after = client->get(path, {{"If-None-Match", etag}});
    ASSERT_EQ(after.status, 200);
    EXPECT_NE(after.header("ETag"), etag);
    EXPECT_GT(after.json()[QStringLiteral("version")].toInteger(), body[QStringLiteral("version")].toInteger());
    const QMap<QString, QString> statuses = seatStatuses(*client, showId);
    for (auto it = statuses.constBegin(); it != statuses.constEnd(); ++it) {
        const bool held = it.key() == QLatin1String("B2") || it.key() == QLatin1String("B3");
        EXPECT_EQ(it.value(), held ? QStringLiteral("held") : QStringLiteral("available")) << qPrintable(it.key());
    }
    // Releasing changes it again.
    const QByteArray heldTag = after.header("ETag");
    ASSERT_EQ(client->del("/api/v1/holds/" + hold.json()[QStringLiteral("hold_id")].toString().toLatin1()).status, 200);
    const HttpResult released = client->get(path, {{"If-None-Match", heldTag}});
    EXPECT_EQ(released.status, 200);
    EXPECT_EQ(seatStatuses(*client, showId).value(QStringLiteral("B2")), QStringLiteral("available"));

    EXPECT_API_ERROR(client->get("/api/v1/shows/424242/seatmap"), 404, "show_not_found");
}

TEST(Api, Sessions)
{
    TestServer server;
    QString error;
    ASSERT_TRUE(server.context().auth.addStaff(QStringLiteral("ana"), Role::Manager, QStringLiteral("s3cret-pass"), &error))
        << qPrintable(error);
    auto anonymous = server.client();
    const QString before = databaseState(server);

    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), QStringLiteral("ana")}, {QStringLiteral("password"), QStringLiteral("wrong-pass")}}),
                     401, "invalid_credentials");
    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), QStringLiteral("nobody")}, {QStringLiteral("password"), QStringLiteral("s3cret-pass")}}),
                     401, "invalid_credentials");
    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), QStringLiteral("ana")}}), 400, "missing_field");
    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("password"), QStringLiteral("s3cret-pass")}}), 400, "missing_field");
    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), QString()}, {QStringLiteral("password"), QStringLiteral("x")}}), 400,
                     "missing_field");
    EXPECT_API_ERROR(anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), 7}, {QStringLiteral("password"), QStringLiteral("s3cret-pass")}}), 400,
                     "invalid_type");
    EXPECT_API_ERROR(anonymous->request("POST", "/api/v1/sessions", "{\"name\": \"ana\","), 400, "malformed_json");
    EXPECT_API_ERROR(anonymous->request("POST", "/api/v1/sessions", "[1,2]"), 400, "invalid_body");
    EXPECT_EQ(databaseState(server), before);

    const HttpResult session = anonymous->post("/api/v1/sessions", {{QStringLiteral("name"), QStringLiteral("ana")}, {QStringLiteral("password"), QStringLiteral("s3cret-pass")}});
    ASSERT_EQ(session.status, 201) << session.body.constData();
    const QString token = session.json()[QStringLiteral("token")].toString();
    EXPECT_FALSE(token.isEmpty());
    EXPECT_EQ(session.json()[QStringLiteral("role")].toString(), QStringLiteral("manager"));
    EXPECT_GT(QDateTime::fromString(session.json()[QStringLiteral("expires_at")].toString(), Qt::ISODateWithMs), QDateTime::currentDateTimeUtc());
    // Only a hash of the token is stored.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM sessions WHERE token_hash = '%1'").arg(token)).toInt(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM sessions")).toInt(), 1);

    // The token works, ending the session makes it stop working.
    auto staff = server.client(token);
    EXPECT_EQ(staff->get("/api/v1/cities").status, 200);
    const HttpResult ended = staff->del("/api/v1/sessions/current");
    EXPECT_EQ(ended.status, 204);
    EXPECT_API_ERROR(staff->get("/api/v1/cities"), 401, "unauthorized");
}

TEST(Api, AuthenticationAndRoles)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    const QByteArray hold = holdPath(showId);
    const QJsonObject body = seatsBody({QStringLiteral("A1")});
    const QString before = databaseState(server);

    auto anonymous = server.client();
    EXPECT_API_ERROR(anonymous->get("/api/v1/cities"), 401, "unauthorized");
    const HttpResult noToken = anonymous->post(hold, body);
    EXPECT_API_ERROR(noToken, 401, "unauthorized");
    EXPECT_FALSE(noToken.header("WWW-Authenticate").isEmpty());
    EXPECT_API_ERROR(anonymous->get("/api/v1/cities", {{"Authorization", "Basic YW5hOnBhc3M="}}), 401, "unauthorized");
    EXPECT_API_ERROR(anonymous->get("/api/v1/cities", {{"Authorization", "Bearer "}}), 401, "unauthorized");
    auto forged = server.client(QStringLiteral("mq_this-token-was-never-issued"));
    EXPECT_API_ERROR(forged->post(hold, body), 401, "unauthorized");
    EXPECT_API_ERROR(forged->get("/api/v1/shows/" + id(showId) + "/seatmap"), 401, "unauthorized");
    // A revoked device is refused too (after the auth cache is dropped, as revocation will do).
    const QString revokedToken = server.deviceToken();
    server.scalar(QStringLiteral("UPDATE devices SET revoked_at = now() WHERE device_id = (SELECT max(device_id) FROM devices) RETURNING 1"));
    server.context().auth.clearCache();
    EXPECT_API_ERROR(server.client(revokedToken)->post(hold, body), 401, "unauthorized");
    EXPECT_EQ(databaseState(server), before);

    // Staff-only: a kiosk may not end a session.
    auto kiosk = server.client(server.deviceToken(QStringLiteral("kiosk")));
    EXPECT_API_ERROR(kiosk->del("/api/v1/sessions/current"), 403, "forbidden");
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    EXPECT_API_ERROR(till->del("/api/v1/sessions/current"), 403, "forbidden");
    EXPECT_EQ(databaseState(server), before);

    // Every role may read and hold.
    for (const QString &role : {QStringLiteral("cashier"), QStringLiteral("manager"), QStringLiteral("admin")}) {
        auto staff = server.client(server.staffToken(role));
        EXPECT_EQ(staff->get("/api/v1/cities").status, 200) << qPrintable(role);
    }
    EXPECT_EQ(till->get("/api/v1/shows/" + id(showId)).status, 200);
}

TEST(Api, RoutingErrorsAndBodyLimit)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    auto client = server.client(server.deviceToken());
    const QString before = databaseState(server);

    EXPECT_API_ERROR(client->get("/api/v1/nothing-here"), 404, "not_found");
    EXPECT_API_ERROR(client->get("/api/v2/cities"), 404, "not_found");
    EXPECT_API_ERROR(client->get("/api/v1/shows/" + id(showId) + "/seatmap/extra"), 404, "not_found");

    const HttpResult wrongMethod = client->request("PUT", "/api/v1/cities", "{}");
    EXPECT_API_ERROR(wrongMethod, 405, "method_not_allowed");
    EXPECT_EQ(wrongMethod.header("Allow"), QByteArray("GET"));
    const HttpResult getHold = client->get(holdPath(showId));
    EXPECT_API_ERROR(getHold, 405, "method_not_allowed");
    EXPECT_EQ(getHold.header("Allow"), QByteArray("POST"));
    EXPECT_API_ERROR(client->request("PATCH", "/api/v1/holds/00000000-0000-0000-0000-000000000000", "{}"), 405, "method_not_allowed");
    EXPECT_API_ERROR(client->del("/api/v1/shows/" + id(showId)), 405, "method_not_allowed");
    EXPECT_EQ(databaseState(server), before);

    // A body over 64 KiB is refused before anything is parsed or held, even a valid one.
    QJsonArray seats{QStringLiteral("A1")};
    QJsonObject body{{QStringLiteral("seat_ids"), seats}, {QStringLiteral("padding"), QString(66 * 1024, QLatin1Char('x'))}};
    const HttpResult tooLarge = client->post(holdPath(showId), body);
    EXPECT_API_ERROR(tooLarge, 413, "body_too_large");
    EXPECT_EQ(databaseState(server), before);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 0);
    // Just under the limit is accepted (the padding field is ignored), so the limit is what refused it.
    body[QStringLiteral("padding")] = QString(60 * 1024, QLatin1Char('x'));
    EXPECT_EQ(client->post(holdPath(showId), body).status, 200);
    EXPECT_EQ(seatsInStatus(server, showId, "held"), 1);
}
