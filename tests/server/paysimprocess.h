// SPDX-License-Identifier: AGPL-3.0-or-later
// A real marquee-paysim process for the orders tests, on a loopback port it picks itself, sending its webhooks
// to a TestServer. Header-only; used by tst_orders*.cpp / tst_payments*.cpp.
#pragma once

#include "core/tokenhash.h"
#include "httpclient.h"
#include "testserver.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QThread>
#include <functional>
#include <gtest/gtest.h>

namespace marquee::test {

class PaySimProcess
{
public:
    struct Options {
        int slowMs = 300;
        int lateMs = 1500;
        int retryBaseMs = 50;
    };
    static constexpr const char *kSecret = "test-webhook-secret";

    /** @brief The simulator sending its webhooks to @p server, which is pointed at it for card payments. */
    PaySimProcess(TestServer &server, const Options &options)
        : PaySimProcess(QStringLiteral("http://127.0.0.1:%1/webhooks/payment").arg(server.port()), options)
    {
        if (m_port)
            server.context().orderService.setProviderUrl(url());
    }
    /** @brief The simulator sending its webhooks to @p webhookUrl (a marquee-server child process, say). */
    PaySimProcess(const QString &webhookUrl, const Options &options)
    {
        const QString program = QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-paysim");
        m_process.setProgram(program);
        m_process.setArguments({QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--webhook-url"),
                                webhookUrl, QStringLiteral("--secret"),
                                QString::fromLatin1(kSecret), QStringLiteral("--slow-ms"), QString::number(options.slowMs),
                                QStringLiteral("--late-ms"), QString::number(options.lateMs), QStringLiteral("--retry-base-ms"),
                                QString::number(options.retryBaseMs)});
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start();
        if (!m_process.waitForStarted(10000)) {
            ADD_FAILURE() << "marquee-paysim did not start: " << m_process.errorString().toStdString();
            return;
        }
        QByteArray out;
        QDeadlineTimer deadline(15000);
        static const QRegularExpression line(QStringLiteral("listening on [0-9.]+:(\\d+)"));
        while (!deadline.hasExpired()) {
            m_process.waitForReadyRead(200);
            out += m_process.readAllStandardOutput();
            const auto match = line.match(QString::fromUtf8(out));
            if (match.hasMatch()) {
                m_port = quint16(match.captured(1).toUInt());
                break;
            }
        }
        if (!m_port) {
            ADD_FAILURE() << "marquee-paysim did not report its port: " << out.toStdString();
        }
    }
    ~PaySimProcess()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(5000);
    }
    quint16 port() const { return m_port; }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_port); }
    std::unique_ptr<HttpClient> client() const { return std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), m_port); }
    /** @brief What a card terminal does: pay the intent with a test card token. */
    HttpResult pay(const QString &intentId, const QString &token)
    {
        return client()->post("/v1/intents/" + intentId.toUtf8() + "/pay", QJsonObject{{QStringLiteral("card_token"), token}});
    }
    QString intentStatus(const QString &intentId)
    {
        return client()->get("/v1/intents/" + intentId.toUtf8()).json().value(QStringLiteral("status")).toString();
    }

private:
    QProcess m_process;
    quint16 m_port = 0;
};

/** @brief Poll @p condition (every 20 ms) until it holds or @p ms pass; the caller asserts on the result. */
inline bool eventually(const std::function<bool()> &condition, int ms = 20000)
{
    QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired()) {
        if (condition())
            return true;
        QThread::msleep(20);
    }
    return condition();
}

/** @brief A webhook body signed as the simulator signs it. */
inline QList<QPair<QByteArray, QByteArray>> signatureHeader(const QByteArray &body, const QByteArray &secret = PaySimProcess::kSecret)
{
    return {{"X-Signature", "sha256=" + hmacSha256Hex(secret, body)}, {"Content-Type", "application/json"}};
}

} // namespace marquee::test
