// SPDX-License-Identifier: AGPL-3.0-or-later
// ApiClient's transport: HTTPS verified against the venue CA alone (marquee-admin tls init's files, served by a
// QSslServer in this test), refused for another venue's CA, the system's CAs and a name the certificate is not
// for; plain http:// to anything but loopback refused before it reaches the network unless allowed.
#include "runtime/venuetls.h"
#include "sync/apiclient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;

namespace {
QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString venue(const QString &dir, const QString &name)
{
    QString error;
    const auto subject = VenueTls::subject({name}, {QStringLiteral("127.0.0.1")}, &error);
    EXPECT_TRUE(subject && VenueTls::init(dir, *subject, false, &error)) << error.toStdString();
    return VenueTls::caCertificateFile(dir);
}

/** @brief An HTTPS server with the venue's server certificate that answers every request with 200 {"ok":true}. */
class TlsServer
{
public:
    explicit TlsServer(const QString &dir)
    {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(contents(VenueTls::serverCertificateFile(dir))));
        tls.setPrivateKey(QSslKey(contents(VenueTls::serverKeyFile(dir)), QSsl::Ec));
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        m_server.setSslConfiguration(tls);
        QObject::connect(&m_server, &QSslServer::pendingConnectionAvailable, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QIODevice::readyRead, socket, [this, socket] {
                    m_received += socket->readAll();
                    if (m_received.contains("\r\n\r\n")) {
                        socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}");
                        socket->disconnectFromHost();
                        ++m_answered;
                    }
                });
                QObject::connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return m_server.serverPort(); }
    int answered() const { return m_answered; }

private:
    QSslServer m_server;
    QByteArray m_received;
    int m_answered = 0;
};

TransportPolicy trusting(const QString &caFile)
{
    QString error;
    TransportPolicy policy;
    policy.tls = TransportPolicy::venueTls(caFile, &error);
    EXPECT_TRUE(policy.tls) << error.toStdString();
    return policy;
}

ApiResult get(const QString &base, const TransportPolicy &policy)
{
    ApiClient client{QUrl(base)};
    client.setTransport(policy);
    return client.requestBlocking(QStringLiteral("GET"), QStringLiteral("/healthz"));
}
} // namespace

TEST(Transport, HttpsTrustsTheVenueCaAloneAndVerifiesTheName)
{
    QTemporaryDir dir;
    const QString ca = venue(dir.filePath(QStringLiteral("venue")), QStringLiteral("tickets.venue.test"));
    const QString otherCa = venue(dir.filePath(QStringLiteral("other")), QStringLiteral("tickets.venue.test"));
    TlsServer server(dir.filePath(QStringLiteral("venue")));
    ASSERT_NE(server.port(), 0);
    const QString base = QStringLiteral("https://127.0.0.1:%1").arg(server.port());

    const ApiResult ok = get(base, trusting(ca));
    EXPECT_TRUE(ok.ok()) << ok.describe().toStdString();
    EXPECT_EQ(ok.json().value(QStringLiteral("ok")).toBool(), true);
    EXPECT_EQ(server.answered(), 1);

    // Another venue's CA, and the system's CAs: the handshake fails, no request is answered.
    const ApiResult wrongCa = get(base, trusting(otherCa));
    EXPECT_EQ(wrongCa.kind, ApiResult::Kind::NetworkError);
    EXPECT_FALSE(wrongCa.networkError.isEmpty());
    const ApiResult systemCas = get(base, TransportPolicy{});
    EXPECT_EQ(systemCas.kind, ApiResult::Kind::NetworkError);
    // The right CA but a name the certificate is not for (localhost is not in it).
    const ApiResult wrongName = get(QStringLiteral("https://localhost:%1").arg(server.port()), trusting(ca));
    EXPECT_EQ(wrongName.kind, ApiResult::Kind::NetworkError) << wrongName.describe().toStdString();
    EXPECT_EQ(server.answered(), 1) << "a refused connection got an answer";
}

TEST(Transport, PlainHttpToAnotherMachineIsRefusedBeforeTheNetworkUnlessAllowed)
{
    // 192.0.2.1 is TEST-NET-1: nothing answers there, so a request that went out would wait for its deadline.
    ApiClient client{QUrl(QStringLiteral("http://192.0.2.1:8080"))};
    client.setTransport(TransportPolicy{});
    client.setTimeoutMs(20000);
    QElapsedTimer timer;
    timer.start();
    const ApiResult refused = client.requestBlocking(QStringLiteral("GET"), QStringLiteral("/healthz"));
    EXPECT_LT(timer.elapsed(), 2000) << "the request went out";
    EXPECT_EQ(refused.kind, ApiResult::Kind::NetworkError);
    EXPECT_FALSE(refused.timedOut);
    EXPECT_TRUE(refused.networkError.contains(QStringLiteral("refusing plain http:// to 192.0.2.1"))) << refused.networkError.toStdString();

    // Allowed: it does go out (and times out, nothing being there).
    TransportPolicy insecure;
    insecure.allowInsecureHttp = true;
    client.setTransport(insecure);
    client.setTimeoutMs(300);
    const ApiResult sent = client.requestBlocking(QStringLiteral("GET"), QStringLiteral("/healthz"));
    EXPECT_EQ(sent.kind, ApiResult::Kind::NetworkError);
    EXPECT_FALSE(sent.networkError.contains(QStringLiteral("refusing"))) << sent.networkError.toStdString();

    // Loopback needs no permission; ws:// is judged like http://.
    EXPECT_TRUE(TransportPolicy{}.refusal(QUrl(QStringLiteral("http://127.0.0.1:8080"))).isEmpty());
    EXPECT_TRUE(TransportPolicy{}.refusal(QUrl(QStringLiteral("ws://[::1]:8080/x"))).isEmpty());
    EXPECT_FALSE(TransportPolicy{}.refusal(QUrl(QStringLiteral("ws://192.0.2.1/x"))).isEmpty());
    EXPECT_TRUE(TransportPolicy{}.refusal(QUrl(QStringLiteral("wss://192.0.2.1/x"))).isEmpty());
    EXPECT_FALSE(TransportPolicy{}.refusal(QUrl(QStringLiteral("ftp://127.0.0.1/x"))).isEmpty());
}
