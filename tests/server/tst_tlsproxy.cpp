// SPDX-License-Identifier: AGPL-3.0-or-later
// The venue deployment end to end, with the real HAProxy: marquee-admin tls init makes the venue CA and the server
// certificate, HAProxy runs the installer's own haproxy.cfg (only its environment settings changed: ports and the
// bundle's path) in front of a real marquee-server, and a client that trusts only the venue CA gets /readyz, places a
// hold and sees the seat change on the live feed over WSS. TLS 1.1, plain HTTP on the TLS port, a client that does
// not trust the CA and a name the certificate is not for are all refused; X-Forwarded-For is the proxy's alone.
#include "serverprocess.h"
#include "servertesthelpers.h"

#include "runtime/venuetls.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslError>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QWebSocket>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
const QString kVenueName = QStringLiteral("tickets.venue.test");

struct Answer {
    bool encrypted = false;
    QString error;
    QList<QSslError> sslErrors;
    QSsl::SslProtocol protocol = QSsl::UnknownProtocol;
    int status = 0;
    QByteArray head;
    QByteArray body;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray header(const QByteArray &name) const
    {
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }
};

/** @brief Everything @p socket receives until the peer closes it or @p ms pass. */
QByteArray readUntilClosed(QAbstractSocket &socket, int ms)
{
    QByteArray data;
    QElapsedTimer timer;
    timer.start();
    while (socket.state() == QAbstractSocket::ConnectedState && timer.elapsed() < ms) {
        socket.waitForReadyRead(200);
        data += socket.readAll();
    }
    return data + socket.readAll();
}

/** @brief A client TLS configuration that trusts only the CA in @p caFile and verifies the server. */
QSslConfiguration trusting(const QString &caFile)
{
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates(QSslCertificate::fromPath(caFile));
    tls.setPeerVerifyMode(QSslSocket::VerifyPeer);
    return tls;
}

/** @brief One HTTPS request on a new connection (Connection: close), from @p from when given. */
Answer https(quint16 port, const QSslConfiguration &tls, const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
             const QList<QPair<QByteArray, QByteArray>> &headers = {}, const QString &peerName = kVenueName, const QHostAddress &from = {})
{
    Answer answer;
    QSslSocket socket;
    socket.setSslConfiguration(tls);
    if (!from.isNull() && !socket.bind(from)) {
        answer.error = socket.errorString();
        return answer;
    }
    socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), port, peerName);
    answer.encrypted = socket.waitForEncrypted(10000);
    answer.sslErrors = socket.sslHandshakeErrors();
    if (!answer.encrypted) {
        answer.error = socket.errorString();
        return answer;
    }
    answer.protocol = socket.sessionProtocol();
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: " + peerName.toLatin1() + "\r\nConnection: close\r\n";
    for (const auto &[name, value] : headers)
        request += name + ": " + value + "\r\n";
    if (!body.isEmpty())
        request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    socket.write(request + "\r\n" + body);
    const QByteArray data = readUntilClosed(socket, 15000);
    const qsizetype split = data.indexOf("\r\n\r\n");
    answer.head = data.left(split);
    answer.body = split < 0 ? QByteArray() : data.mid(split + 4);
    if (answer.head.startsWith("HTTP/1.1 "))
        answer.status = answer.head.mid(9, 3).toInt();
    return answer;
}

int run(const QString &program, const QStringList &arguments, QByteArray *output = nullptr, int ms = 30000)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(ms)) {
        process.kill();
        process.waitForFinished();
        return -1;
    }
    if (output)
        *output = process.readAll();
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QString tlsInit(const QString &dir)
{
    QByteArray output;
    const int rc = run(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                       {QStringLiteral("tls"), QStringLiteral("init"), QStringLiteral("--dir"), dir, QStringLiteral("--name"), kVenueName,
                        QStringLiteral("--ip"), QStringLiteral("127.0.0.1")},
                       &output);
    EXPECT_EQ(rc, 0) << output.constData();
    return VenueTls::caCertificateFile(dir);
}

/** @brief HAProxy with the installer's haproxy.cfg, in the foreground, its settings from the environment. */
class Proxy
{
public:
    Proxy(const QString &haproxy, const QString &bundle, quint16 port, quint16 backend, int ratePer10s)
        : m_port(port)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("MARQUEE_PROXY_BIND"), QStringLiteral("127.0.0.1:%1").arg(port));
        environment.insert(QStringLiteral("MARQUEE_PROXY_CERT"), bundle);
        environment.insert(QStringLiteral("MARQUEE_BACKEND"), QStringLiteral("127.0.0.1:%1").arg(backend));
        environment.insert(QStringLiteral("MARQUEE_PROXY_RATE_10S"), QString::number(ratePer10s));
        m_process.setProcessEnvironment(environment);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(haproxy, {QStringLiteral("-db"), QStringLiteral("-f"), QStringLiteral(MARQUEE_SOURCE_DIR "/installer/marquee-proxy/haproxy.cfg")});
    }
    ~Proxy()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(10000)) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    bool waitReady(const QSslConfiguration &tls)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 20000 && m_process.state() != QProcess::NotRunning) {
            if (https(m_port, tls, "GET", "/readyz").status == 200)
                return true;
            m_process.waitForReadyRead(200);
        }
        return false;
    }
    QByteArray output() { return m_process.readAll(); }

private:
    QProcess m_process;
    quint16 m_port;
};

} // namespace

TEST(TlsProxy, HaproxyWithTheVenueCertificateServesHttpsAndWssAndRefusesEverythingElse)
{
    const QString haproxy = QStandardPaths::findExecutable(QStringLiteral("haproxy"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin")});
    if (haproxy.isEmpty())
        GTEST_SKIP() << "haproxy is not installed (scripts/test installs it: apt-get install haproxy)";
    QTemporaryDir dir;
    const QString caFile = tlsInit(dir.path() + QStringLiteral("/tls"));
    const QSslConfiguration venue = trusting(caFile);
    ASSERT_EQ(venue.caCertificates().size(), 1);

    TestServer server(TestServer::Options::withConfig([](ServerConfig &config) {
        QString error;
        config.trustedProxies = *protection::TrustedProxies::parse(QStringLiteral("127.0.0.1"), &error);
        config.signInFailuresPerAddress = 3;
    }));
    const quint16 port = freePort();
    Proxy proxy(haproxy, VenueTls::bundleFile(dir.path() + QStringLiteral("/tls")), port, server.port(), 60);
    ASSERT_TRUE(proxy.waitReady(venue)) << proxy.output().constData();

    // HTTPS verified against the venue CA alone, TLS 1.2 or later, the proxy's request id or ours passed through.
    const Answer ready = https(port, venue, "GET", "/readyz", {}, {{"X-Request-Id", "venue-test-42"}});
    EXPECT_EQ(ready.status, 200) << ready.head.constData();
    EXPECT_TRUE(ready.sslErrors.isEmpty());
    EXPECT_TRUE(ready.protocol == QSsl::TlsV1_3 || ready.protocol == QSsl::TlsV1_2) << int(ready.protocol);
    EXPECT_EQ(ready.header("X-Request-Id"), QByteArray("venue-test-42"));
    EXPECT_TRUE(https(port, venue, "GET", "/healthz").header("X-Request-Id").contains('-')) << "the proxy's own id, not the server's";
    // The certificate's IP address works as a name too (devices configured with https://ADDRESS).
    EXPECT_EQ(https(port, venue, "GET", "/healthz", {}, {}, QStringLiteral("127.0.0.1")).status, 200);

    // A hold through the proxy, and its seats turning held on the live feed over WSS.
    const qint64 showId = server.createShow(1, 5);
    const QString token = server.deviceToken();
    const QByteArray bearer = "Bearer " + token.toLatin1();
    QWebSocket live;
    live.setSslConfiguration(venue);
    QStringList messages;
    QObject::connect(&live, &QWebSocket::textMessageReceived, [&](const QString &text) { messages << text; });
    QNetworkRequest request(QUrl(QStringLiteral("wss://127.0.0.1:%1/api/v1/shows/%2/live").arg(port).arg(showId)));
    request.setRawHeader("Authorization", bearer);
    live.open(request);
    ASSERT_TRUE(pumpUntil([&] { return !messages.isEmpty(); })) << "no snapshot over WSS: " << live.errorString().toStdString();
    EXPECT_TRUE(messages.first().contains(QLatin1String("\"snapshot\""))) << messages.first().toStdString();
    const Answer held = https(port, venue, "POST", holdPath(showId), QJsonDocument(seatsBody({QStringLiteral("A2")})).toJson(QJsonDocument::Compact),
                              {{"Authorization", bearer}});
    ASSERT_EQ(held.status, 200) << held.head.constData() << held.body.constData();
    ASSERT_TRUE(pumpUntil([&] {
        return std::any_of(messages.begin(), messages.end(), [](const QString &m) { return m.contains(QLatin1String("\"delta\"")) && m.contains(QLatin1String("A2")); });
    })) << messages.join(QLatin1Char('\n')).toStdString();
    live.close();

    // X-Forwarded-For is what the proxy saw (the client connects from 127.0.0.2), not what the client claims.
    for (int i = 0; i < 3; ++i) {
        https(port, venue, "POST", "/api/v1/sessions", R"({"name":"nobody","password":"wrong"})", {{"X-Forwarded-For", "203.0.113.5"}}, kVenueName,
              QHostAddress(QStringLiteral("127.0.0.2")));
    }
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(target, ',') FROM audit_log WHERE action = 'session.sign_in_locked'")).toString(),
              QStringLiteral("address:127.0.0.2"));

    // Refused: a client that trusts only the system's CAs, one that trusts another venue's CA, a name the
    // certificate is not for.
    const Answer untrusted = https(port, QSslConfiguration::defaultConfiguration(), "GET", "/readyz");
    EXPECT_FALSE(untrusted.encrypted);
    EXPECT_EQ(untrusted.status, 0);
    EXPECT_FALSE(untrusted.sslErrors.isEmpty()) << untrusted.error.toStdString();
    const Answer otherVenue = https(port, trusting(tlsInit(dir.path() + QStringLiteral("/other"))), "GET", "/readyz");
    EXPECT_FALSE(otherVenue.encrypted);
    EXPECT_EQ(otherVenue.status, 0);
    const Answer wrongName = https(port, venue, "GET", "/readyz", {}, {}, QStringLiteral("elsewhere.test"));
    EXPECT_FALSE(wrongName.encrypted);
    EXPECT_TRUE(std::any_of(wrongName.sslErrors.begin(), wrongName.sslErrors.end(),
                            [](const QSslError &e) { return e.error() == QSslError::HostNameMismatch; }))
        << wrongName.error.toStdString();

    // Plain HTTP to the TLS port gets no HTTP answer.
    QTcpSocket plain;
    plain.connectToHost(QStringLiteral("127.0.0.1"), port);
    ASSERT_TRUE(plain.waitForConnected(5000));
    plain.write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
    const QByteArray plainAnswer = readUntilClosed(plain, 5000);
    EXPECT_FALSE(plainAnswer.startsWith("HTTP/")) << plainAnswer.constData();
    EXPECT_NE(plain.state(), QAbstractSocket::ConnectedState) << "the proxy kept a plain-text connection open";

    // TLS 1.1: refused by the proxy, while the same client command does speak TLS 1.1 to a server that allows it
    // (so the refusal is the proxy's, not the client's).
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    ASSERT_FALSE(openssl.isEmpty()) << "openssl is not installed (scripts/common.sh installs it)";
    const auto tls11 = [&](quint16 to, QByteArray *output) {
        return run(openssl, {QStringLiteral("s_client"), QStringLiteral("-connect"), QStringLiteral("127.0.0.1:%1").arg(to), QStringLiteral("-tls1_1"),
                             QStringLiteral("-cipher"), QStringLiteral("DEFAULT@SECLEVEL=0"), QStringLiteral("-CAfile"), caFile},
                   output, 15000);
    };
    QByteArray refused;
    EXPECT_NE(tls11(port, &refused), 0) << refused.constData();
    EXPECT_TRUE(refused.contains("Cipher is (NONE)")) << refused.constData();
    EXPECT_TRUE(refused.contains("alert protocol version")) << refused.constData();
    {
        const quint16 control = freePort();
        QProcess sServer;
        sServer.setProcessChannelMode(QProcess::MergedChannels);
        sServer.start(openssl, {QStringLiteral("s_server"), QStringLiteral("-accept"), QStringLiteral("127.0.0.1:%1").arg(control),
                                QStringLiteral("-cert"), VenueTls::serverCertificateFile(dir.path() + QStringLiteral("/tls")), QStringLiteral("-key"),
                                VenueTls::serverKeyFile(dir.path() + QStringLiteral("/tls")), QStringLiteral("-tls1_1"), QStringLiteral("-cipher"),
                                QStringLiteral("DEFAULT@SECLEVEL=0"), QStringLiteral("-www")});
        QByteArray accepted;
        int rc = -1;
        for (int attempt = 0; attempt < 50 && rc != 0; ++attempt) {
            sServer.waitForReadyRead(100);
            rc = tls11(control, &accepted);
        }
        sServer.kill();
        sServer.waitForFinished();
        EXPECT_EQ(rc, 0) << "the control: this client cannot speak TLS 1.1 at all, so the refusal above proves nothing\n" << accepted.constData();
        EXPECT_TRUE(accepted.contains("Protocol  : TLSv1.1")) << accepted.constData();
        EXPECT_FALSE(accepted.contains("Cipher is (NONE)")) << accepted.constData();
    }

    // The per-address limit at the proxy (60 requests in 10 s here): 429 with the API's error shape.
    int limited = 0;
    Answer last;
    for (int i = 0; i < 80 && limited == 0; ++i) {
        last = https(port, venue, "GET", "/healthz");
        limited += last.status == 429;
    }
    EXPECT_EQ(limited, 1) << last.head.constData();
    EXPECT_EQ(last.json().value(QStringLiteral("error")).toString(), QStringLiteral("rate_limited")) << last.body.constData();
    EXPECT_EQ(last.header("Retry-After"), QByteArray("10"));
}
