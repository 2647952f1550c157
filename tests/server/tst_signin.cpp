// SPDX-License-Identifier: AGPL-3.0-or-later
// Signing in and being thrown out: wrong passwords lock a name or an address out for a while (audited, ending by
// itself), password hashing never holds up other requests, and a revoked device or disabled staff member is refused
// on the next request on every instance of a fleet (LISTEN/NOTIFY), not after the token cache's lifetime.
#include "paysimprocess.h"
#include "serverprocess.h"
#include "servertesthelpers.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QProcess>
#include <QUuid>
#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

QString password()
{
    return QString::fromLatin1(TestServer::kStaffPassword);
}

HttpResult signIn(HttpClient &client, const QString &name, const QString &secret)
{
    return client.post("/api/v1/sessions", QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("password"), secret}});
}

void addStaff(TestServer &server, const QString &name, Role role)
{
    QString error;
    ASSERT_TRUE(server.context().auth.addStaff(name, role, password(), &error)) << error.toStdString();
}

/** @brief Run marquee-admin against @p server's database; its exit code (-1 when it did not finish). */
int admin(TestServer &server, const QStringList &arguments, QByteArray *output = nullptr)
{
    QProcess process;
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                  QStringList{QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory()} + arguments);
    if (!process.waitForFinished(60000))
        return -1;
    if (output)
        *output = process.readAllStandardOutput() + process.readAllStandardError();
    return process.exitCode();
}

} // namespace

TEST(AuthSignIn, WrongPasswordsLockTheNameThenTheAddressOutForAWhileAndTheLockoutIsAudited)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) {
        config.signInFailuresPerName = 3;
        config.signInFailuresPerAddress = 5;
        config.signInLockoutSeconds = 3;
    }));
    addStaff(server, QStringLiteral("erin"), Role::Cashier);
    addStaff(server, QStringLiteral("finn"), Role::Cashier);
    auto client = server.client();
    const auto sessionsOf = [&](const QString &name) {
        return server.scalar(QStringLiteral("SELECT count(*) FROM sessions JOIN staff USING (staff_id) WHERE name = '%1'").arg(name)).toLongLong();
    };

    EXPECT_API_ERROR(signIn(*client, QStringLiteral("erin"), QStringLiteral("guess-1")), 401, "invalid_credentials");
    EXPECT_API_ERROR(signIn(*client, QStringLiteral("erin"), QStringLiteral("guess-2")), 401, "invalid_credentials");
    // The third wrong password reaches the limit: locked, and now even the right one is refused without a look.
    const HttpResult third = signIn(*client, QStringLiteral("erin"), QStringLiteral("guess-3"));
    EXPECT_API_ERROR(third, 429, "sign_in_locked");
    const HttpResult locked = signIn(*client, QStringLiteral("erin"), password());
    EXPECT_API_ERROR(locked, 429, "sign_in_locked");
    const qint64 retryAfter = locked.json().value(QStringLiteral("retry_after_s")).toInteger();
    EXPECT_GE(retryAfter, 1);
    EXPECT_LE(retryAfter, 4);
    EXPECT_EQ(locked.header("Retry-After"), QByteArray::number(retryAfter));
    EXPECT_EQ(sessionsOf(QStringLiteral("erin")), 0);
    // Another name from the same address is not locked (that address has three failures of five).
    ASSERT_EQ(signIn(*client, QStringLiteral("finn"), password()).status, 201);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(action || '|' || actor || '|' || actor_role || '|' || target || '|' || (details->>'failures'), ',') "
                                           "FROM audit_log WHERE action = 'session.sign_in_locked'")).toString(),
              QStringLiteral("session.sign_in_locked|system:sign-in|system|name:erin|3"));

    // The lockout ends by itself.
    QThread::msleep(quint64(retryAfter) * 1000 + 200);
    ASSERT_EQ(signIn(*client, QStringLiteral("erin"), password()).status, 201);
    EXPECT_EQ(sessionsOf(QStringLiteral("erin")), 1);

    // Spraying names from one address: the address is locked out, for every name.
    for (int i = 1; i < 5; ++i)
        EXPECT_API_ERROR(signIn(*client, QStringLiteral("nobody-%1").arg(i), QStringLiteral("x")), 401, "invalid_credentials");
    const HttpResult sprayed = signIn(*client, QStringLiteral("nobody-5"), QStringLiteral("x"));
    EXPECT_API_ERROR(sprayed, 429, "sign_in_locked");
    EXPECT_API_ERROR(signIn(*client, QStringLiteral("finn"), password()), 429, "sign_in_locked");
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'session.sign_in_locked' AND target = 'address:127.0.0.1'")).toLongLong(), 1);
    // A malformed sign-in is refused as before, and counts for nothing.
    EXPECT_API_ERROR(client->post("/api/v1/sessions", QJsonObject{{QStringLiteral("name"), QStringLiteral("erin")}}), 400, "missing_field");
}

TEST(AuthSignIn, PasswordHashingRunsOffTheHttpWorkersSoOtherRequestsKeepAnswering)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) {
        config.threads = 2;
        config.passwordThreads = 1;
        config.signInFailuresPerName = 1000;
        config.signInFailuresPerAddress = 100000;
    }));
    auto kiosk = server.client(server.deviceToken());
    ASSERT_EQ(kiosk->get("/api/v1/cities").status, 200);

    // Many unauthenticated sign-ins at once, each a deliberately slow PBKDF2.
    constexpr int kSignIns = 16;
    std::atomic<int> finished{0};
    std::atomic<int> refused{0};
    QElapsedTimer flood;
    flood.start();
    std::vector<std::thread> attackers;
    for (int i = 0; i < kSignIns; ++i) {
        attackers.emplace_back([&, i] {
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            if (signIn(client, QStringLiteral("guess-%1").arg(i), QStringLiteral("wrong")).status == 401)
                ++refused;
            ++finished;
        });
    }
    // Meanwhile a kiosk browses: its answers must not queue behind the hashing.
    QThread::msleep(30);
    std::vector<qint64> latencies;
    int answeredDuringFlood = 0;
    while (finished.load() < kSignIns && latencies.size() < 200) {
        QElapsedTimer one;
        one.start();
        const HttpResult r = kiosk->get("/api/v1/cities");
        latencies.push_back(one.elapsed());
        EXPECT_EQ(r.status, 200);
        if (finished.load() < kSignIns)
            ++answeredDuringFlood;
    }
    for (std::thread &t : attackers)
        t.join();
    const qint64 floodMs = flood.elapsed();
    EXPECT_EQ(refused.load(), kSignIns);
    ASSERT_FALSE(latencies.empty());
    std::sort(latencies.begin(), latencies.end());
    const qint64 median = latencies[latencies.size() / 2];
    // The flood took a while (one hashing thread), yet the kiosk kept its pace throughout.
    EXPECT_GE(answeredDuringFlood, 5) << "flood " << floodMs << " ms, median " << median << " ms";
    EXPECT_LT(median * 8, floodMs) << "flood " << floodMs << " ms, median " << median << " ms";
}

TEST(AuthRevocation, ARevokedDeviceOrDisabledStaffIsRefusedOnTheNextRequestOnEveryInstance)
{
    TestServer server;
    ServerProcess other(server.databaseUrl(), freePort(), server.dataDirectory());
    ASSERT_TRUE(other.waitReady()) << other.output().constData();
    ASSERT_TRUE(eventually([&] { return server.listensForRevocations(); }, 10000));

    QString error;
    const auto tillToken = server.context().auth.addDevice(QStringLiteral("till-7"), Role::Till, &error);
    ASSERT_TRUE(tillToken) << error.toStdString();
    addStaff(server, QStringLiteral("dora"), Role::Manager);
    const QString doraToken = server.context().auth.createSession(QStringLiteral("dora"), password(), 3600)->token;
    addStaff(server, QStringLiteral("eli"), Role::Cashier);
    const QString eliToken = server.context().auth.createSession(QStringLiteral("eli"), password(), 3600)->token;

    const auto status = [](quint16 port, const QString &token) {
        HttpClient client(QStringLiteral("127.0.0.1"), port);
        client.setToken(token);
        return client.get("/api/v1/cities").status;
    };
    const quint16 here = server.port();
    const quint16 there = other.port();
    // Both instances accept the tokens and have them in their caches now.
    for (const QString &token : {*tillToken, doraToken, eliToken}) {
        EXPECT_EQ(status(here, token), 200);
        EXPECT_EQ(status(there, token), 200);
    }

    // An operator revokes the till with the admin tool: both instances refuse it at once — well inside the cache's
    // ten seconds — while the others go on.
    QByteArray output;
    ASSERT_EQ(admin(server, {QStringLiteral("device"), QStringLiteral("revoke"), QStringLiteral("--name"), QStringLiteral("till-7")}, &output), 0)
        << output.constData();
    QElapsedTimer sinceRevoke;
    sinceRevoke.start();
    EXPECT_TRUE(eventually([&] { return status(here, *tillToken) == 401 && status(there, *tillToken) == 401; }, 1500));
    EXPECT_LT(sinceRevoke.elapsed(), 1500);
    EXPECT_EQ(status(there, doraToken), 200);
    // Revoking it again is refused with a message.
    EXPECT_NE(admin(server, {QStringLiteral("device"), QStringLiteral("revoke"), QStringLiteral("--name"), QStringLiteral("till-7")}), 0);

    // Disabling a staff member ends their sessions everywhere.
    ASSERT_EQ(admin(server, {QStringLiteral("staff"), QStringLiteral("disable"), QStringLiteral("--name"), QStringLiteral("dora")}, &output), 0)
        << output.constData();
    EXPECT_TRUE(eventually([&] { return status(here, doraToken) == 401 && status(there, doraToken) == 401; }, 1500));
    EXPECT_EQ(signIn(*server.client(), QStringLiteral("dora"), password()).status, 401);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(action || '|' || actor || '|' || target, ',' ORDER BY audit_id) FROM audit_log "
                                           "WHERE action IN ('device.revoke', 'staff.disable')")).toString(),
              QStringLiteral("device.revoke|system:marquee-admin|device:%1,staff.disable|system:marquee-admin|staff:%2")
                  .arg(server.scalar(QStringLiteral("SELECT device_id FROM devices WHERE name = 'till-7'")).toLongLong())
                  .arg(server.scalar(QStringLiteral("SELECT staff_id FROM staff WHERE name = 'dora'")).toLongLong()));

    // A session ended by any other means (here plain SQL) is refused at once too: the database itself notifies.
    EXPECT_EQ(status(there, eliToken), 200);
    server.scalar(QStringLiteral("UPDATE sessions SET ended_at = now() WHERE staff_id = (SELECT staff_id FROM staff WHERE name = 'eli') RETURNING 1"));
    EXPECT_TRUE(eventually([&] { return status(here, eliToken) == 401 && status(there, eliToken) == 401; }, 1500));
}
