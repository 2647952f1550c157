// SPDX-License-Identifier: AGPL-3.0-or-later
// Protection: per-token and per-address rate limits (429 + Retry-After), connection limits and the
// request-size limit, all decided before the database is asked — shown by a bad token getting the limit's
// answer rather than the 401 that only a database lookup could give.
#include "servertesthelpers.h"

#include <QThread>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

TEST(Protection, PerTokenRateLimitAnswers429WithRetryAfter)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.rateLimitPerToken = 5; })); // bursts of 10
    const QString tokenA = server.deviceToken();
    auto a = server.client(tokenA);
    auto b = server.client(server.deviceToken());
    const QString state = databaseState(server);

    int ok = 0, limited = 0;
    HttpResult last;
    for (int i = 0; i < 40; ++i) {
        const HttpResult r = a->get("/api/v1/cities");
        if (r.status == 200)
            ++ok;
        else if (r.status == 429) {
            ++limited;
            last = r;
        } else
            ADD_FAILURE() << "unexpected " << r.status << " " << r.body.constData();
    }
    EXPECT_GE(ok, 10);  // the burst
    EXPECT_LE(ok, 20);  // and not much more: 40 requests take far less than 2 s here
    EXPECT_GE(limited, 20);
    EXPECT_EQ(last.json()[QStringLiteral("error")].toString(), QStringLiteral("rate_limited"));
    EXPECT_FALSE(last.json()[QStringLiteral("message")].toString().isEmpty());
    bool retryOk = false;
    EXPECT_GE(last.header("Retry-After").toInt(&retryOk), 1);
    EXPECT_TRUE(retryOk);
    // Another token is not affected.
    EXPECT_EQ(b->get("/api/v1/cities").status, 200);
    // A flood of a bad token is refused before its lookup: 429, not the 401 a database lookup would give.
    auto forged = server.client(QStringLiteral("forged-token"));
    int forged401 = 0, forged429 = 0;
    for (int i = 0; i < 30; ++i) {
        const int status = forged->get("/api/v1/cities").status;
        forged401 += status == 401;
        forged429 += status == 429;
    }
    EXPECT_GE(forged429, 15);
    EXPECT_LE(forged401, 20);
    // After waiting as told, the token is served again.
    QThread::msleep(1100);
    EXPECT_EQ(a->get("/api/v1/cities").status, 200);
    EXPECT_EQ(databaseState(server), state) << "refused requests changed nothing";
}

TEST(Protection, PerAddressRateLimitCoversEveryTokenAndPublicCalls)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.rateLimitPerAddress = 5; }));
    auto a = server.client(server.deviceToken());
    auto b = server.client(server.deviceToken());
    int limited = 0;
    for (int i = 0; i < 20; ++i)
        limited += a->get("/api/v1/cities").status == 429;
    // The same address with another token, and a public call, share the address's budget.
    EXPECT_EQ(b->get("/api/v1/cities").status, 429);
    EXPECT_EQ(b->get("/healthz").status, 429);
    EXPECT_GE(limited, 5);
}

TEST(Protection, ConnectionLimitPerAddressAnswers503AndRecovers)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.maxConnectionsPerAddress = 3; }));
    std::vector<std::unique_ptr<HttpClient>> open;
    for (int i = 0; i < 3; ++i) {
        open.push_back(server.client());
        ASSERT_EQ(open.back()->get("/healthz").status, 200) << i; // keep-alive: the connection stays open
    }
    auto fourth = server.client();
    const HttpResult refused = fourth->get("/healthz");
    EXPECT_EQ(refused.status, 503);
    EXPECT_EQ(refused.json()[QStringLiteral("error")].toString(), QStringLiteral("too_many_connections"));
    EXPECT_EQ(refused.header("Retry-After"), QByteArray("1"));
    // Once one closes, a new connection is admitted again.
    open.front()->disconnect();
    int status = 0;
    for (int attempt = 0; attempt < 50 && status != 200; ++attempt) {
        QThread::msleep(50);
        status = server.client()->get("/healthz").status;
    }
    EXPECT_EQ(status, 200);
}

TEST(Protection, OversizedBodyIsRefusedBeforeAuthentication)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    const QString state = databaseState(server);
    auto forged = server.client(QStringLiteral("forged-token"));
    const HttpResult r = forged->request("POST", holdPath(showId), QByteArray(70 * 1024, 'x'), {{"Content-Type", "application/json"}});
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(databaseState(server), state);
}
