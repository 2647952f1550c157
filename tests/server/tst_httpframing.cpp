// SPDX-License-Identifier: AGPL-3.0-or-later
// The HTTP layer in front of Qt's parser (FramingSocket): size limits decided at the headers, strict framing
// (no request smuggling), header/body/idle timeouts and the per-address connection cap, all over real loopback
// sockets against a real server.
#include "rawconnection.h"
#include "servertesthelpers.h"

#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QThread>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief This process's resident memory (the test server runs in it). */
qint64 residentBytes()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return 0;
}

QJsonObject jsonBody(const QByteArray &response)
{
    return QJsonDocument::fromJson(RawConnection::body(response)).object();
}

/** @brief One framing-level refusal: exactly one answer, the JSON error, Connection: close, then the close. */
void expectRefusedAndClosed(RawConnection &connection, int status, const QString &code, const char *what)
{
    const QList<QByteArray> answers = connection.responses(1, 3000);
    ASSERT_EQ(answers.size(), 1) << what << ": got " << connection.received().constData();
    EXPECT_EQ(RawConnection::status(answers[0]), status) << what << ": " << answers[0].constData();
    EXPECT_EQ(jsonBody(answers[0]).value(QStringLiteral("error")).toString(), code) << what;
    EXPECT_FALSE(jsonBody(answers[0]).value(QStringLiteral("message")).toString().isEmpty()) << what;
    EXPECT_TRUE(answers[0].toLower().contains("connection: close")) << what;
    // Refused before parsing, yet traceable like every other answer.
    static const QRegularExpression requestId(QStringLiteral("\r\nx-request-id: [0-9a-f]{16}\r\n"));
    EXPECT_TRUE(requestId.match(QString::fromLatin1(answers[0].toLower())).hasMatch()) << what << ": no X-Request-Id";
    EXPECT_TRUE(connection.closedWithin(3000)) << what << ": the connection stays open";
    EXPECT_EQ(RawConnection::split(connection.received()).size(), 1) << what << ": a second request was answered";
}
} // namespace

TEST(HttpFraming, DeclaredBodyOverTheLimitIsRefusedAtTheHeaders)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    const QString state = databaseState(server);
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.isOpen());
    // A gigabyte announced: the answer must come before the body, not after buffering it.
    ASSERT_TRUE(connection.send("POST " + holdPath(showId)
        + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
          "Content-Length: 1000000000\r\n\r\n"
        + QByteArray(256 * 1024, 'x')));
    expectRefusedAndClosed(connection, 413, QStringLiteral("body_too_large"), "Content-Length 1e9");
    EXPECT_EQ(databaseState(server), state);
}

TEST(HttpFraming, StreamedBodyIsCutOffWithoutBeingBuffered)
{
    TestServer server;
    RawConnection connection(server.port());
    const qint64 rssBefore = residentBytes();
    ASSERT_TRUE(connection.send("POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                                "Content-Length: 1000000000\r\n\r\n"));
    // Keep streaming as an attacker would: the server (this process) must neither buffer the body nor keep reading it.
    const QByteArray megabyte(1024 * 1024, 'x');
    qint64 sent = 0;
    QElapsedTimer timer;
    timer.start();
    while (sent < 400LL * 1024 * 1024 && timer.elapsed() < 10000 && connection.send(megabyte))
        sent += megabyte.size();
    EXPECT_LT(sent, 400LL * 1024 * 1024) << "the server went on reading a 400 MiB body it had refused";
    EXPECT_LT(residentBytes() - rssBefore, 64LL * 1024 * 1024) << "the server's memory grew with the refused body";
    connection.closedWithin(2000);
    EXPECT_TRUE(connection.received().startsWith("HTTP/1.1 413")) << connection.received().left(200).constData();
}

TEST(HttpFraming, ChunkedBodyPastTheLimitIsRefused)
{
    TestServer server;
    RawConnection connection(server.port());
    QByteArray request = "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const QByteArray chunk(16 * 1024, ' ');
    for (int i = 0; i < 6; ++i) // 96 KiB of a 64 KiB limit, and no last chunk: the refusal cannot wait for the end
        request += "4000\r\n" + chunk + "\r\n";
    connection.send(request);
    expectRefusedAndClosed(connection, 413, QStringLiteral("body_too_large"), "chunked past the limit");
}

TEST(HttpFraming, SmallChunkedBodyIsServed)
{
    TestServer server;
    RawConnection connection(server.port());
    const QByteArray json = "{\"name\":\"nobody\",\"password\":\"wrong\"}";
    ASSERT_TRUE(connection.send("POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: "
                                "application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + QByteArray::number(10, 16) + "\r\n" + json.left(10) + "\r\n" + QByteArray::number(json.size() - 10, 16)
        + "\r\n" + json.mid(10) + "\r\n0\r\n\r\n"));
    const QList<QByteArray> answers = connection.responses(1, 5000);
    ASSERT_EQ(answers.size(), 1) << connection.received().constData();
    EXPECT_EQ(RawConnection::status(answers[0]), 401) << answers[0].constData(); // the route's own answer
}

TEST(HttpFraming, ContentLengthWithTransferEncodingIsNotSmuggled)
{
    TestServer server;
    RawConnection connection(server.port());
    // The classic CL.TE desync: a front end going by Content-Length forwards all of it as one request; a back end
    // going by chunked would see a second request (GET /healthz) on the same connection.
    const QByteArray smuggled = "0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
    ASSERT_TRUE(connection.send(
        "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(smuggled.size()) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + smuggled));
    expectRefusedAndClosed(connection, 400, QStringLiteral("malformed_request"), "CL + TE");
}

TEST(HttpFraming, DuplicateContentLengthIsRefused)
{
    TestServer server;
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.send(
        "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Content-Length: 38\r\n\r\n{}GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
    expectRefusedAndClosed(connection, 400, QStringLiteral("malformed_request"), "two Content-Length");
}

TEST(HttpFraming, BareLineFeedsAndOtherMalformedHeadsAreRefused)
{
    TestServer server;
    const std::vector<std::pair<const char *, QByteArray>> cases = {
        {"bare LF", "GET /healthz HTTP/1.1\nHost: t\n\n"},
        {"bare LF after CRLF lines", "GET /healthz HTTP/1.1\r\nHost: t\n\r\n"},
        {"CR without LF", "GET /healthz HTTP/1.1\r\nHost: t\rX: y\r\n\r\n"},
        {"space before the colon", "GET /healthz HTTP/1.1\r\nHost : t\r\n\r\n"},
        {"obsolete folding", "GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: b\r\n c\r\n\r\n"},
        {"transfer coding other than chunked",
            "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"},
        {"bare LF in a chunk-size line",
            "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n"},
        {"NUL in a header value", QByteArray("GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\0b\r\n\r\n", 44)},
        {"non-numeric Content-Length", "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Length: +2\r\n\r\n{}"},
    };
    for (const auto &[what, request] : cases) {
        RawConnection connection(server.port());
        ASSERT_TRUE(connection.send(request)) << what;
        expectRefusedAndClosed(connection, 400, QStringLiteral("malformed_request"), what);
    }
    // A well-formed request on a fresh connection is still served, and keep-alive pipelining still works.
    RawConnection good(server.port());
    ASSERT_TRUE(good.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
    const QList<QByteArray> answers = good.responses(2, 3000);
    ASSERT_EQ(answers.size(), 2) << good.received().constData();
    EXPECT_EQ(RawConnection::status(answers[0]), 200);
    EXPECT_EQ(RawConnection::status(answers[1]), 200);
}

TEST(HttpFraming, SlowHeadIsTimedOut)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.framing.headerTimeoutMs = 400; }));
    RawConnection slowloris(server.port());
    ASSERT_TRUE(slowloris.send("GET /healthz HTTP/1.1\r\nHost: t\r\n"));
    QThread::msleep(200);
    ASSERT_TRUE(slowloris.send("X-A: 1\r\n")); // trickling bytes does not extend the deadline
    expectRefusedAndClosed(slowloris, 408, QStringLiteral("request_timeout"), "slow head");
    // A connection that never sends a byte is closed as well.
    RawConnection silent(server.port());
    EXPECT_TRUE(silent.closedWithin(3000));
}

TEST(HttpFraming, SlowBodyIsTimedOut)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.framing.bodyTimeoutMs = 400; }));
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.send("POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: "
                                "application/json\r\nContent-Length: 40\r\n\r\n{\"na"));
    expectRefusedAndClosed(connection, 408, QStringLiteral("request_timeout"), "slow body");
}

TEST(HttpFraming, IdleKeepAliveConnectionIsClosed)
{
    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) { config.framing.idleTimeoutMs = 500; }));
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
    ASSERT_EQ(connection.responses(1, 3000).size(), 1);
    // Within the idle time the connection is reused...
    QThread::msleep(250);
    ASSERT_TRUE(connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
    ASSERT_EQ(connection.responses(2, 3000).size(), 2);
    // ...and after it, with nothing in flight, it is closed.
    QElapsedTimer timer;
    timer.start();
    EXPECT_TRUE(connection.closedWithin(3000));
    EXPECT_GE(timer.elapsed(), 300);
}

TEST(HttpFraming, PerAddressConnectionCapIsOnByDefault)
{
    TestServer server; // the default configuration
    const int cap = ServerConfig().maxConnectionsPerAddress;
    ASSERT_GT(cap, 0) << "no per-address connection cap by default";
    ASSERT_LE(cap, 1000);
    std::vector<std::unique_ptr<HttpClient>> open;
    for (int i = 0; i < cap; ++i) {
        open.push_back(server.client());
        ASSERT_EQ(open.back()->get("/healthz").status, 200) << i;
    }
    const HttpResult refused = server.client()->get("/healthz");
    EXPECT_EQ(refused.status, 503);
    EXPECT_EQ(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("too_many_connections"));
    EXPECT_EQ(refused.header("X-Request-Id").size(), 16) << "the refusal carries no request id";
}
