// SPDX-License-Identifier: AGPL-3.0-or-later
// Text hygiene: NUL, control characters and invalid Unicode in bodies, paths and query values are refused as
// 400 invalid_text before anything reaches the database; control characters in a path are escaped in the access
// log; ids have one spelling; request bodies must be declared JSON.
#include "rawconnection.h"
#include "serverprocess.h"
#include "servertesthelpers.h"

#include <QProcessEnvironment>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
void expectError(const HttpResult &r, int status, const char *code, const char *what)
{
    EXPECT_EQ(r.status, status) << what << ": " << r.body.constData();
    EXPECT_EQ(r.json().value(QStringLiteral("error")).toString(), QString::fromLatin1(code))
        << what << ": " << r.body.constData();
    EXPECT_FALSE(r.json().value(QStringLiteral("message")).toString().isEmpty()) << what;
}
} // namespace

TEST(TextHygiene, NulAndControlCharactersAreInvalidTextNotADatabaseError)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    auto kiosk = server.client(server.deviceToken());
    auto cashier = server.client(server.staffToken());
    auto anonymous = server.client();
    const QString state = databaseState(server);

    const QString nul = QStringLiteral("A") + QChar(0) + QStringLiteral("1");
    expectError(kiosk->post(holdPath(showId), seatsBody({nul})), 400, "invalid_text", "NUL in a seat id");
    expectError(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A") + QChar(7)})), 400, "invalid_text",
        "BEL in a seat id");
    expectError(anonymous->post("/api/v1/sessions",
                    QJsonObject {{QStringLiteral("name"), nul}, {QStringLiteral("password"), QStringLiteral("x")}}),
        400, "invalid_text", "NUL in a staff name");
    // A lone surrogate, as JSON escapes it (QJsonDocument would not write one).
    expectError(kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\ud800\"]}"), 400, "invalid_text",
        "lone surrogate");
    expectError(kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\udc00B\"]}"), 400, "invalid_text",
        "lone low surrogate");
    expectError(
        kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\xff\"]}"), 400, "invalid_text", "invalid UTF-8");
    // Escaped control characters (found by fuzz_jsonbody): \b is U+0008, \f is U+000C, and the parser reads a
    // backslash before a raw control byte as that byte.
    expectError(kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\b1\"]}"), 400, "invalid_text", "backspace escape");
    expectError(kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\f1\"]}"), 400, "invalid_text", "form feed escape");
    expectError(kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\\x01\"]}"), 400, "invalid_text", "escaped raw SOH");
    expectError(kiosk->get("/api/v1/bookings?ref=AB%00CD"), 400, "invalid_text", "NUL in a query value");
    expectError(
        cashier->get("/api/v1/customers/bookings?phone=%0012345678"), 400, "invalid_text", "NUL in a phone query");
    expectError(kiosk->get("/api/v1/bookings/abc%00def"), 400, "invalid_text", "NUL in a path parameter");
    expectError(kiosk->get("/api/v1/bookings/abc%0Adef"), 400, "invalid_text", "LF in a path parameter");
    EXPECT_EQ(databaseState(server), state);

    // Plain text with an emoji (a valid surrogate pair, escaped or not) is still text.
    const HttpResult emoji = kiosk->request("POST", holdPath(showId), "{\"seat_ids\": [\"A\\ud83d\\ude00\"]}");
    EXPECT_NE(emoji.json().value(QStringLiteral("error")).toString(), QStringLiteral("invalid_text"))
        << emoji.body.constData();
    EXPECT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")})).status, 200);
}

TEST(TextHygiene, IdsHaveOneSpelling)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    auto kiosk = server.client(server.deviceToken());
    const QByteArray id = QByteArray::number(showId);
    ASSERT_EQ(kiosk->get("/api/v1/shows/" + id + "/seatmap").status, 200);
    for (const QByteArray &spelling : {"+" + id, "0" + id, "%20" + id, id + "%20", id + ".0"})
        expectError(kiosk->get("/api/v1/shows/" + spelling + "/seatmap"), 400, "invalid_id", spelling.constData());
    // An empty segment is not the same resource: a trailing slash, a doubled one, an encoded one at a segment's end.
    for (const QByteArray &path :
        {"/api/v1/shows/" + id + "/", "/api/v1/shows/" + id + "//seatmap", "/api/v1/shows/" + id + "%2F/seatmap"})
        expectError(kiosk->get(path), 400, "invalid_path", path.constData());
    expectError(kiosk->get("/api/v1/movies/1/shows?city=+1"), 400, "invalid_query", "city=+1");
    expectError(kiosk->get("/api/v1/movies/1/shows?city=01"), 400, "invalid_query", "city=01");
}

TEST(TextHygiene, BodiesMustBeDeclaredJson)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    const QString token = server.deviceToken();
    const QString state = databaseState(server);
    const QByteArray body = "{\"seat_ids\":[\"A1\"]}";
    auto send = [&](const QByteArray &contentType) {
        RawConnection connection(server.port());
        connection.send("POST " + holdPath(showId) + " HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + token.toLatin1()
            + "\r\n" + contentType + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        const QList<QByteArray> answers = connection.responses(1, 5000);
        return answers.isEmpty() ? QByteArray() : answers[0];
    };
    for (const QByteArray &type :
        {QByteArray("Content-Type: text/plain\r\n"), QByteArray("Content-Type: application/x-www-form-urlencoded\r\n"),
            QByteArray(), QByteArray("Content-Type: application/json\r\nContent-Type: text/plain\r\n")}) {
        const QByteArray answer = send(type);
        EXPECT_EQ(RawConnection::status(answer), 415) << type.constData() << answer.constData();
        EXPECT_TRUE(answer.contains("\"unsupported_media_type\"")) << answer.constData();
    }
    EXPECT_EQ(databaseState(server), state);
    EXPECT_EQ(RawConnection::status(send("Content-Type: application/json; charset=utf-8\r\n")), 200);
}

TEST(TextHygiene, ControlCharactersInAPathAreEscapedInTheAccessLog)
{
    TestServer setup;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("QT_LOGGING_RULES"));
    const quint16 port = freePort();
    ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory(),
        {QStringLiteral("--access-log"), QStringLiteral("on")}, environment);
    ASSERT_TRUE(server.waitReady()) << server.output().constData();
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    client.get("/api/v1/nothing%0AGET%20/api/v1/forged%20200%201%20us");
    client.get("/api/v1/nothing%1B%5B2J");
    EXPECT_EQ(client.get("/healthz").status, 200);
    server.process().terminate();
    ASSERT_TRUE(server.process().waitForFinished(15000));
    const QByteArray output = server.output();
    EXPECT_TRUE(output.contains(" /healthz 200 ")) << output.constData();
    EXPECT_FALSE(output.contains("\nGET /api/v1/forged")) << output.constData();
    EXPECT_FALSE(output.contains('\x1b')) << output.constData();
    EXPECT_TRUE(output.contains("/api/v1/nothing\\x0aGET /api/v1/forged")) << output.constData();
}
