// SPDX-License-Identifier: AGPL-3.0-or-later
// Device pairing: marquee-admin device add --pairing prints a one-time code, POST /api/v1/devices/pair trades it
// for the device's token once; used, expired, wrong codes are refused, audited and throttled.
#include "servertesthelpers.h"
#include "wiretext.h"

#include "runtime/venuetls.h"
#include "store/pairingrepository.h"

#include <QCoreApplication>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief A code for a new device @p name, made as the owner would (marquee-admin's repository call). */
QString newCode(TestServer &server, const QString &name, Role role = Role::Kiosk)
{
    QString error;
    const auto code = store::PairingRepository(server.context().database).create(name, role, store::PairingRepository::kValidSeconds, &error);
    EXPECT_TRUE(code) << error.toStdString();
    return code ? store::PairingRepository::display(code->code) : QString();
}

HttpResult pair(TestServer &server, const QString &code)
{
    return server.client()->post("/api/v1/devices/pair", QJsonObject{{QStringLiteral("code"), code}});
}

/** @brief marquee-admin device add --name NAME --role kiosk --pairing on @p server's database, run to its end. */
void adminPairing(TestServer &server, const QString &name, QProcess &admin)
{
    admin.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory(), QStringLiteral("device"),
                 QStringLiteral("add"), QStringLiteral("--name"), name, QStringLiteral("--role"), QStringLiteral("kiosk"), QStringLiteral("--pairing")});
    if (!admin.waitForFinished(60000))
        admin.kill();
}

qint64 count(TestServer &server, const QString &sql)
{
    return server.scalar(sql).toLongLong();
}

} // namespace

TEST(Pairing, TheAdminsCodePairsOnceAndTheTokenWorks)
{
    QTemporaryDir tls;
    QString error;
    const auto subject = VenueTls::subject({QStringLiteral("tickets.venue.test")}, {}, &error);
    ASSERT_TRUE(subject && VenueTls::init(tls.path(), *subject, false, &error)) << error.toStdString();
    TestServer server(TestServer::Options::withConfig([&tls](ServerConfig &config) { config.venueCaFile = VenueTls::caCertificateFile(tls.path()); }));

    QProcess admin;
    adminPairing(server, QStringLiteral("lobby-7"), admin);
    ASSERT_EQ(admin.exitCode(), 0) << admin.readAllStandardError().constData();
    const QStringList lines = QString::fromUtf8(admin.readAllStandardOutput()).trimmed().split(QLatin1Char('\n'));
    const QString code = lines.last();
    ASSERT_TRUE(QRegularExpression(QStringLiteral("^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$")).match(code).hasMatch()) << code.toStdString();
    // Hashed at rest: the code is nowhere in the database, and no device exists until it is redeemed.
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM pairing_codes WHERE code_hash LIKE '%%1%' OR code_hash LIKE '%%2%'")
                                .arg(code.left(4), code.mid(5))),
              0);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices WHERE name = 'lobby-7'")), 0);

    // Typed in lower case without the dash, with O for 0 and I for 1: the same code.
    QString typed = code.toLower().remove(QLatin1Char('-'));
    typed.replace(QLatin1Char('0'), QLatin1Char('o')).replace(QLatin1Char('1'), QLatin1Char('i'));
    const HttpResult paired = pair(server, typed);
    ASSERT_EQ(paired.status, 201) << paired.body.constData();
    const QJsonObject answer = paired.json();
    EXPECT_EQ(answer.value(QStringLiteral("name")).toString(), QStringLiteral("lobby-7"));
    EXPECT_EQ(answer.value(QStringLiteral("role")).toString(), QStringLiteral("kiosk"));
    EXPECT_EQ(answer.value(QStringLiteral("venue_ca_fingerprint")).toString(), VenueTls::show(tls.path(), &error)->caFingerprint);
    const QString token = answer.value(QStringLiteral("token")).toString();
    ASSERT_GE(token.size(), 40);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices WHERE name = 'lobby-7' AND role = 'kiosk'")), 1);
    const HttpResult heartbeat = server.client(token)->post("/api/v1/devices/heartbeat", QJsonObject{{QStringLiteral("queue_length"), 0}, {QStringLiteral("printer_state"), QStringLiteral("ok")}, {QStringLiteral("app_version"), QStringLiteral("0.1.0")}});
    EXPECT_EQ(heartbeat.status, 200) << heartbeat.body.constData();

    // Once: the second use is refused and gives no token.
    const HttpResult again = pair(server, code);
    EXPECT_API_ERROR(again, 409, "pairing_code_used");
    EXPECT_FALSE(again.json().contains(QStringLiteral("token")));
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices WHERE name = 'lobby-7'")), 1);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'device.paired' AND target = 'device:lobby-7' "
                                           "AND actor = 'system:pairing' AND details->>'address' = '127.0.0.1'")),
              1);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'device.pair_refused' AND details->>'result' = 'code_used'")), 1);

    // A code for a name that is enrolled already is not even made.
    QProcess taken;
    adminPairing(server, QStringLiteral("lobby-7"), taken);
    EXPECT_EQ(taken.exitCode(), 1);
    EXPECT_TRUE(taken.readAllStandardError().contains("already exists"));
}

TEST(Pairing, AnExpiredCodeAndBadInputAreRefused)
{
    TestServer server;
    const QString code = newCode(server, QStringLiteral("till-2"), Role::Till);
    server.scalar(QStringLiteral("UPDATE pairing_codes SET expires_at = now() - interval '1 second' RETURNING 1"));
    EXPECT_API_ERROR(pair(server, code), 410, "pairing_code_expired");
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices")), 0);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'device.pair_refused' AND details->>'result' = 'code_expired' "
                                           "AND target = 'device:till-2'")),
              1);
    // A new code for the same name replaces the expired one, and pairs.
    ASSERT_EQ(pair(server, newCode(server, QStringLiteral("till-2"), Role::Till)).status, 201);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT role FROM devices WHERE name = 'till-2'")).toString(), QStringLiteral("till"));

    // Not a code at all: 400, nothing audited or counted.
    const qint64 audited = count(server, QStringLiteral("SELECT count(*) FROM audit_log"));
    const qint64 counted = count(server, QStringLiteral("SELECT coalesce(sum(failures), 0) FROM sign_in_throttle"));
    ASSERT_EQ(counted, 2); // the expired code above, fleet-wide and for this address
    EXPECT_API_ERROR(pair(server, QStringLiteral("1234")), 400, "invalid_pairing_code");
    EXPECT_API_ERROR(pair(server, QStringLiteral("ABCD-EFGU")), 400, "invalid_pairing_code"); // U is not Crockford base32
    EXPECT_API_ERROR(server.client()->post("/api/v1/devices/pair", QJsonObject{}), 400, "missing_field");
    EXPECT_API_ERROR(server.client()->post("/api/v1/devices/pair", QJsonObject{{QStringLiteral("code"), 12345678}}), 400, "invalid_type");
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log")), audited);
    EXPECT_EQ(count(server, QStringLiteral("SELECT coalesce(sum(failures), 0) FROM sign_in_throttle")), counted);
}

TEST(Pairing, WrongCodesAreRefusedAuditedAndThrottled)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.pairingFailuresPerAddress = 3; }));
    const QString right = newCode(server, QStringLiteral("lobby-9"));
    EXPECT_API_ERROR(pair(server, QStringLiteral("0000-0000")), 404, "pairing_code_not_found");
    EXPECT_API_ERROR(pair(server, QStringLiteral("0000-0001")), 404, "pairing_code_not_found");
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'device.pair_refused' AND details->>'result' = 'unknown_code'")), 2);
    // The failure that reaches the limit locks this address out; then even the right code waits.
    const HttpResult third = pair(server, QStringLiteral("0000-0002"));
    EXPECT_API_ERROR(third, 429, "pairing_locked");
    EXPECT_GE(third.json().value(QStringLiteral("retry_after_s")).toInt(), 1);
    EXPECT_API_ERROR(pair(server, right), 429, "pairing_locked");
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices")), 0);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'session.sign_in_locked' AND target = 'address:pair:127.0.0.1'")), 1);
    // Staff sign-in from the same address is not locked by wrong pairing codes.
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM sign_in_throttle WHERE key = '127.0.0.1'")), 0);

    // The lockout over, the right code still pairs.
    server.scalar(QStringLiteral("UPDATE sign_in_throttle SET locked_until = now() - interval '1 second', window_start = now() - interval '1 hour' RETURNING 1"));
    EXPECT_EQ(pair(server, right).status, 201);
}

TEST(Pairing, ConcurrentRedeemsOfOneCodePairOneDevice)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.pairingFailuresPerAddress = 1000; }));
    const QString code = newCode(server, QStringLiteral("lobby-race"));
    std::atomic<int> paired{0};
    std::atomic<int> used{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
            const HttpResult r = pair(server, code);
            if (r.status == 201)
                ++paired;
            else if (r.status == 409 && r.json().value(QStringLiteral("error")).toString() == QLatin1String("pairing_code_used"))
                ++used;
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(paired.load(), 1);
    EXPECT_EQ(used.load(), 7);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM devices WHERE name = 'lobby-race'")), 1);
}

namespace {
/** @brief A pairing answer as the wire carries it: status, the headers a client reads and the body, with the values
 *  a run decides masked (the token, the device id, the seconds a lockout has left). */
std::string pairingWire(const HttpResult &result)
{
    static const std::vector<WireMask> masks{{QRegularExpression(QStringLiteral("Retry-After: \\d+")), QStringLiteral("Retry-After: <s>")},
                                             {QRegularExpression(QStringLiteral("\"token\":\"[^\"]+\"")), QStringLiteral("\"token\":\"<token>\"")},
                                             {QRegularExpression(QStringLiteral("\"(device_id|retry_after_s)\":\\d+")), QStringLiteral("\"\\1\":<n>")}};
    return maskedWire(result, masks);
}
std::string pairingAnswer(int status, const char *body)
{
    return std::to_string(status) + "\nContent-Type: application/json\n" + body;
}
} // namespace

// Every answer of the pairing route, byte for byte: a device's first start parses these, so the insides may move
// (the route, its service, the catalogue) but not this. Each is provoked for real.
TEST(Pairing, EveryAnswerIsPinnedByteForByte)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.pairingFailuresPerAddress = 3; }));
    EXPECT_EQ(pairingWire(pair(server, QStringLiteral("1234"))),
              pairingAnswer(400, R"({"error":"invalid_pairing_code","message":"A pairing code is 8 letters and digits, like 7K3M-Q9TZ."})"));
    EXPECT_EQ(pairingWire(pair(server, QStringLiteral("0000-0000"))),
              pairingAnswer(404, R"({"error":"pairing_code_not_found","message":"No such pairing code; check it and try again."})"));

    const QString code = newCode(server, QStringLiteral("lobby-pin"));
    EXPECT_EQ(pairingWire(pair(server, code)),
              pairingAnswer(201, R"({"device_id":<n>,"name":"lobby-pin","role":"kiosk","token":"<token>"})"));
    EXPECT_EQ(pairingWire(pair(server, code)),
              pairingAnswer(409, R"({"error":"pairing_code_used","message":"This pairing code was used already; ask for a new one."})"));

    const QString late = newCode(server, QStringLiteral("till-pin"), Role::Till);
    server.scalar(QStringLiteral("UPDATE pairing_codes SET expires_at = now() - interval '1 second' WHERE device_name = 'till-pin' RETURNING 1"));
    server.scalar(QStringLiteral("DELETE FROM sign_in_throttle RETURNING 1")); // three wrong codes so far: not yet locked
    EXPECT_EQ(pairingWire(pair(server, late)),
              pairingAnswer(410, R"({"error":"pairing_code_expired","message":"This pairing code has expired; ask for a new one."})"));

    const QString taken = newCode(server, QStringLiteral("lobby-taken"));
    server.scalar(QStringLiteral("INSERT INTO devices (name, role, token_hash) VALUES ('lobby-taken', 'kiosk', 'pin-taken') RETURNING 1"));
    EXPECT_EQ(pairingWire(pair(server, taken)),
              pairingAnswer(409, R"({"error":"device_exists","message":"A device of this code's name was enrolled meanwhile; ask for a new code."})"));

    // The third wrong code from this address locks it; then the fleet-wide lock (no address of its own) says so.
    EXPECT_EQ(pairingWire(pair(server, QStringLiteral("0000-0001"))),
              "429\nContent-Type: application/json\nRetry-After: <s>\n"
              R"({"error":"pairing_locked","message":"Too many wrong pairing codes from this address: pairing is locked for a while.","retry_after_s":<n>})");
    EXPECT_EQ(pairingWire(pair(server, QStringLiteral("0000-0002"))),
              "429\nContent-Type: application/json\nRetry-After: <s>\n"
              R"({"error":"pairing_locked","message":"Too many wrong pairing codes from this address: pairing is locked for a while.","retry_after_s":<n>})");
    server.scalar(QStringLiteral("UPDATE sign_in_throttle SET locked_until = CASE scope WHEN 'name' THEN now() + interval '5 minutes' END RETURNING 1"));
    EXPECT_EQ(pairingWire(pair(server, QStringLiteral("0000-0003"))),
              "429\nContent-Type: application/json\nRetry-After: <s>\n"
              R"({"error":"pairing_locked","message":"Too many wrong pairing codes lately: pairing is locked for a while.","retry_after_s":<n>})");
}
