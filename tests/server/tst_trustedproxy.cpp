// SPDX-License-Identifier: AGPL-3.0-or-later
// The trusted reverse proxy: X-Forwarded-For names the client only when the TCP peer is a --trusted-proxy. A forged
// header from anyone else changes nothing; from the proxy, the per-address rate limit, the sign-in throttle and the
// access log see the forwarded address, and the proxy's own connections are not capped per address.
#include "serverprocess.h"
#include "servertesthelpers.h"

#include "protection/trustedproxies.h"

#include <QJsonObject>
#include <QProcessEnvironment>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;
using protection::TrustedProxies;

namespace {
TrustedProxies proxies(const QString &text)
{
    QString error;
    const auto parsed = TrustedProxies::parse(text, &error);
    EXPECT_TRUE(parsed.has_value()) << error.toStdString();
    return parsed.value_or(TrustedProxies{});
}

QList<QPair<QByteArray, QByteArray>> forwardedFor(const QByteArray &address)
{
    return {{"X-Forwarded-For", address}};
}

HttpResult signIn(HttpClient &client, const QString &name, const QList<QPair<QByteArray, QByteArray>> &headers)
{
    return client.post("/api/v1/sessions", QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("password"), QStringLiteral("wrong")}}, headers);
}
} // namespace

TEST(TrustedProxy, ParsesAddressesAndSubnetsAndReadsTheLastHopOnlyFromATrustedPeer)
{
    QString error;
    EXPECT_FALSE(TrustedProxies::parse(QStringLiteral("127.0.0.1,proxy.example"), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("proxy.example"))) << error.toStdString();
    EXPECT_FALSE(TrustedProxies::parse(QStringLiteral("10.0.0.0/33"), &error));

    const TrustedProxies trusted = proxies(QStringLiteral("127.0.0.1, 10.1.0.0/16,::1"));
    EXPECT_EQ(trusted.toString(), QStringLiteral("127.0.0.1/32,10.1.0.0/16,::1/128"));
    EXPECT_TRUE(trusted.contains(QHostAddress(QStringLiteral("::ffff:127.0.0.1")))); // a dual-stack socket's IPv4 peer
    EXPECT_TRUE(trusted.contains(QHostAddress(QStringLiteral("10.1.200.3"))));
    EXPECT_FALSE(trusted.contains(QHostAddress(QStringLiteral("10.2.0.1"))));

    const QHostAddress proxy(QStringLiteral("127.0.0.1"));
    const QHostAddress stranger(QStringLiteral("192.0.2.50"));
    const auto client = [&](const QHostAddress &peer, const QList<QByteArray> &headers) { return trusted.clientAddress(peer, headers).toString(); };
    // From an untrusted peer the header is ignored, whatever it says.
    EXPECT_EQ(client(stranger, {"203.0.113.5"}), QStringLiteral("192.0.2.50"));
    // From the proxy: the last hop, which the proxy added; what the client put before it does not count.
    EXPECT_EQ(client(proxy, {"203.0.113.5"}), QStringLiteral("203.0.113.5"));
    EXPECT_EQ(client(proxy, {"1.1.1.1, 203.0.113.5"}), QStringLiteral("203.0.113.5"));
    EXPECT_EQ(client(proxy, {"1.1.1.1", "203.0.113.5"}), QStringLiteral("203.0.113.5"));
    // A chain of trusted proxies is walked back to the first address that is not one of them.
    EXPECT_EQ(client(proxy, {"9.9.9.9, 203.0.113.5, 10.1.0.7"}), QStringLiteral("203.0.113.5"));
    EXPECT_EQ(client(proxy, {"2001:db8::7"}), QStringLiteral("2001:db8::7"));
    // Garbage where the proxy's entry should be: the proxy's own address, never a guess.
    EXPECT_EQ(client(proxy, {"203.0.113.5, not-an-address"}), QStringLiteral("127.0.0.1"));
    EXPECT_EQ(client(proxy, {}), QStringLiteral("127.0.0.1"));
    // No trusted proxies at all: the peer, always.
    EXPECT_EQ(TrustedProxies().clientAddress(proxy, {"203.0.113.5"}).toString(), QStringLiteral("127.0.0.1"));

    // The option, from the command line and from a config file's line.
    const auto config = ServerConfig::fromArguments({QStringLiteral("--trusted-proxy"), QStringLiteral("127.0.0.1,::1")}, &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_TRUE(config->trustedProxies.contains(QHostAddress(QStringLiteral("::1"))));
    EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--trusted-proxy"), QStringLiteral("nonsense")}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("--trusted-proxy"))) << error.toStdString();
}

TEST(TrustedProxy, ForgedForwardedForFromAnUntrustedPeerChangesNothing)
{
    // A proxy is configured, but it is not us (the test connects from 127.0.0.1).
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) {
        config.rateLimitPerAddress = 5;
        config.signInFailuresPerAddress = 3;
        config.trustedProxies = proxies(QStringLiteral("192.0.2.9"));
    }));
    auto client = server.client();
    // A new forged address on every request: all of them still share 127.0.0.1's budget (bursts of 10).
    int ok = 0, limited = 0;
    for (int i = 0; i < 30; ++i) {
        const int status = client->get("/healthz", forwardedFor("203.0.113." + QByteArray::number(i + 1))).status;
        ok += status == 200;
        limited += status == 429;
    }
    EXPECT_LE(ok, 20);
    EXPECT_GE(limited, 10);
    EXPECT_EQ(client->get("/healthz").status, 429) << "the forged addresses spent the peer's own budget";

    QThread::msleep(2100); // the bucket refills
    // Wrong passwords under forged addresses lock the peer's address out, and only it is recorded.
    for (int i = 0; i < 3; ++i)
        signIn(*client, QStringLiteral("nobody-%1").arg(i), forwardedFor("198.51.100." + QByteArray::number(i + 1)));
    EXPECT_API_ERROR(signIn(*client, QStringLiteral("someone"), forwardedFor("198.51.100.99")), 429, "sign_in_locked");
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(target, ',') FROM audit_log WHERE action = 'session.sign_in_locked'")).toString(),
              QStringLiteral("address:127.0.0.1"));
}

TEST(TrustedProxy, FromATrustedProxyThePerAddressLimitAppliesToTheForwardedAddress)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) {
        config.rateLimitPerAddress = 5;
        config.signInFailuresPerAddress = 3;
        config.maxConnectionsPerAddress = 2;
        config.trustedProxies = proxies(QStringLiteral("127.0.0.1"));
    }));
    auto proxy = server.client();
    int limited = 0;
    for (int i = 0; i < 30; ++i)
        limited += proxy->get("/healthz", forwardedFor("203.0.113.5")).status == 429;
    EXPECT_GE(limited, 10) << "one client behind the proxy is limited";
    // Another client behind the same proxy, and the proxy itself, each have their own budget.
    EXPECT_EQ(proxy->get("/healthz", forwardedFor("203.0.113.6")).status, 200);
    EXPECT_EQ(proxy->get("/healthz", forwardedFor("198.51.100.1, 203.0.113.7")).status, 200);
    EXPECT_EQ(proxy->get("/healthz", forwardedFor("203.0.113.5")).status, 429) << "still 203.0.113.5's spent budget";
    EXPECT_EQ(proxy->get("/healthz").status, 200);
    // What a client puts before the proxy's entry does not pick the budget: 203.0.113.5 is still spent.
    EXPECT_EQ(proxy->get("/healthz", forwardedFor("203.0.113.99, 203.0.113.5")).status, 429);

    // The proxy carries many clients: its connections are not capped per address (the limit here is 2).
    std::vector<std::unique_ptr<HttpClient>> open;
    for (int i = 0; i < 5; ++i) {
        open.push_back(server.client());
        EXPECT_EQ(open.back()->get("/healthz", forwardedFor("192.0.2." + QByteArray::number(i + 1))).status, 200) << i;
    }

    // Wrong passwords from one forwarded address lock that address out, not the proxy's other clients.
    for (int i = 0; i < 3; ++i)
        signIn(*proxy, QStringLiteral("nobody-%1").arg(i), forwardedFor("198.51.100.20"));
    EXPECT_API_ERROR(signIn(*proxy, QStringLiteral("someone"), forwardedFor("198.51.100.20")), 429, "sign_in_locked");
    EXPECT_API_ERROR(signIn(*proxy, QStringLiteral("someone"), forwardedFor("198.51.100.21")), 401, "invalid_credentials");
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(target, ',') FROM audit_log WHERE action = 'session.sign_in_locked'")).toString(),
              QStringLiteral("address:198.51.100.20"));
}

TEST(TrustedProxy, TheAccessLogNamesTheForwardedClientOnlyBehindATrustedProxy)
{
    TestServer setup;
    QProcessEnvironment quiet = QProcessEnvironment::systemEnvironment();
    quiet.remove(QStringLiteral("QT_LOGGING_RULES"));
    for (const bool trusted : {true, false}) {
        const quint16 port = freePort();
        ServerProcess server(setup.databaseUrl(), port, setup.dataDirectory(),
                             {QStringLiteral("--access-log"), QStringLiteral("on"), QStringLiteral("--trusted-proxy"),
                              trusted ? QStringLiteral("127.0.0.1") : QStringLiteral("192.0.2.9")},
                             quiet);
        ASSERT_TRUE(server.waitReady()) << server.output().constData();
        HttpClient client(QStringLiteral("127.0.0.1"), port);
        EXPECT_EQ(client.get("/healthz", forwardedFor("203.0.113.5")).status, 200);
        server.process().terminate();
        ASSERT_TRUE(server.process().waitForFinished(15000));
        const QByteArray output = server.output();
        EXPECT_EQ(output.contains("203.0.113.5 GET /healthz 200"), trusted) << output.constData();
        EXPECT_EQ(output.contains("127.0.0.1 GET /healthz 200"), !trusted) << output.constData();
    }
}
