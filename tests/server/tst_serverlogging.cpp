// SPDX-License-Identifier: AGPL-3.0-or-later
// The real marquee-server process writes no line per request unless asked (--access-log on, or the usual
// QT_LOGGING_RULES): at flash-sale rates those lines cost 15-25 % of the throughput
// (docs/performance.md, "Server settings that the figures depend on").
#include "serverprocess.h"
#include "servertesthelpers.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief Everything the process printed after serving @p requests /healthz calls and stopping. */
QByteArray outputAfterRequests(TestServer &setup, const QStringList &arguments, const QProcessEnvironment &environment, int requests)
{
    const quint16 port = freePort();
    ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory(), arguments, environment);
    if (!server.waitReady()) {
        ADD_FAILURE() << "marquee-server did not start: " << server.output().constData();
        return {};
    }
    HttpClient client(QStringLiteral("127.0.0.1"), port);
    for (int i = 0; i < requests; ++i)
        EXPECT_EQ(client.get("/healthz").status, 200);
    server.process().terminate();
    EXPECT_TRUE(server.process().waitForFinished(15000));
    return server.output();
}

} // namespace

TEST(ServerLogging, NoLinePerRequestUnlessAsked)
{
    TestServer setup;
    QProcessEnvironment quiet = QProcessEnvironment::systemEnvironment();
    quiet.remove(QStringLiteral("QT_LOGGING_RULES"));
    const QByteArray path = " /healthz 200 ";

    const QByteArray byDefault = outputAfterRequests(setup, {}, quiet, 20);
    EXPECT_TRUE(byDefault.contains("listening on")) << byDefault.constData();
    EXPECT_EQ(byDefault.count(path), 0) << byDefault.constData();

    const QByteArray asked = outputAfterRequests(setup, {QStringLiteral("--access-log"), QStringLiteral("on")}, quiet, 20);
    EXPECT_GE(asked.count(path), 20) << asked.constData();

    QProcessEnvironment rules = quiet;
    rules.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("marquee.http.debug=true"));
    const QByteArray byRules = outputAfterRequests(setup, {}, rules, 20);
    EXPECT_GE(byRules.count(path), 20) << byRules.constData();

    QString error;
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--access-log"), QStringLiteral("loud")}, &error).has_value());
    EXPECT_TRUE(error.contains(QStringLiteral("--access-log"))) << qPrintable(error);
}

TEST(ServerLogging, EveryAnswerCarriesARequestIdAndJsonLinesCarryItToo)
{
    TestServer setup;
    QProcessEnvironment quiet = QProcessEnvironment::systemEnvironment();
    quiet.remove(QStringLiteral("QT_LOGGING_RULES"));
    const quint16 port = freePort();
    ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory(),
                         {QStringLiteral("--log-format"), QStringLiteral("json"), QStringLiteral("--access-log"), QStringLiteral("on")}, quiet);
    ASSERT_TRUE(server.waitReady()) << server.output().constData();
    HttpClient client(QStringLiteral("127.0.0.1"), port);

    // Made up by the server when the request brings none: 16 hex digits, a new one each time.
    const QByteArray first = client.get("/healthz").header("X-Request-Id");
    const QByteArray second = client.get("/api/v1/no-such-thing").header("X-Request-Id");
    static const QRegularExpression hex16(QStringLiteral("^[0-9a-f]{16}$"));
    EXPECT_TRUE(hex16.match(QString::fromLatin1(first)).hasMatch()) << first.constData();
    EXPECT_TRUE(hex16.match(QString::fromLatin1(second)).hasMatch()) << second.constData();
    EXPECT_NE(first, second);
    // The proxy's own id is kept, so that its log and the server's meet; an implausible one is replaced.
    EXPECT_EQ(client.get("/healthz", {{"X-Request-Id", "haproxy-7f3a.42:1"}}).header("X-Request-Id"), "haproxy-7f3a.42:1");
    const QByteArray replaced = client.get("/healthz", {{"X-Request-Id", QByteArray(129, 'a')}}).header("X-Request-Id");
    EXPECT_TRUE(hex16.match(QString::fromLatin1(replaced)).hasMatch()) << replaced.constData();
    const QByteArray forged = client.get("/healthz", {{"X-Request-Id", "x\"} {\"level\":\"fatal"}}).header("X-Request-Id");
    EXPECT_TRUE(hex16.match(QString::fromLatin1(forged)).hasMatch()) << forged.constData();

    server.process().terminate();
    ASSERT_TRUE(server.process().waitForFinished(15000));
    const QByteArray output = server.output();
    int jsonLines = 0;
    bool proxyLineSeen = false;
    for (const QByteArray &line : output.split('\n')) {
        if (line.isEmpty() || line.startsWith("marquee-server listening on"))
            continue; // the one line on standard output, for the person who started it
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        ASSERT_EQ(error.error, QJsonParseError::NoError) << "not one JSON object a line: " << line.constData();
        const QJsonObject object = document.object();
        for (const char *field : {"time", "level", "category", "message"})
            EXPECT_TRUE(object.contains(QLatin1String(field))) << field << " missing in " << line.constData();
        ++jsonLines;
        if (object[QStringLiteral("request_id")].toString() == QLatin1String("haproxy-7f3a.42:1")) {
            proxyLineSeen = true;
            EXPECT_TRUE(object[QStringLiteral("message")].toString().contains(QLatin1String("/healthz 200"))) << line.constData();
            EXPECT_EQ(object[QStringLiteral("category")].toString(), QLatin1String("marquee.http"));
        }
    }
    EXPECT_GE(jsonLines, 5) << output.constData();
    EXPECT_TRUE(proxyLineSeen) << "the access line does not carry the request id: " << output.constData();
}
