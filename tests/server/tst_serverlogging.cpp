// SPDX-License-Identifier: AGPL-3.0-or-later
// The real marquee-server process writes no line per request unless asked (--access-log on, or the usual
// QT_LOGGING_RULES): at flash-sale rates those lines cost 15-25 % of the throughput
// (docs/performance.md, "Server settings that the figures depend on").
#include "serverprocess.h"
#include "servertesthelpers.h"

#include <QProcessEnvironment>
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
