// SPDX-License-Identifier: AGPL-3.0-or-later
// The real marquee-server binary as a child process (build/bin/marquee-server), for tests that kill it with
// SIGKILL and restart it on the same database (tst_crash.cpp, tst_crashpayments.cpp). Header-only.
#pragma once

#include "httpclient.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTcpServer>

namespace marquee::test {

/** @brief A loopback port that was free a moment ago. */
inline quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

/** @brief marquee-server on @p port against @p databaseUrl, with @p dataDirectory (its signing-kek) and more options. */
class ServerProcess
{
public:
    ServerProcess(const QString &databaseUrl, quint16 port, const QString &dataDirectory, const QStringList &moreArguments = {},
                  const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
        : m_port(port)
    {
        // marquee-server refuses to run as root, and CI runs the tests as root: the explicit escape, unless the
        // test sets the variable itself (to see the refusal).
        QProcessEnvironment childEnvironment = environment;
        if (!childEnvironment.contains(QStringLiteral("MARQUEE_UNSAFE_ALLOW_ROOT")))
            childEnvironment.insert(QStringLiteral("MARQUEE_UNSAFE_ALLOW_ROOT"), QStringLiteral("1"));
        m_process.setProcessEnvironment(childEnvironment);
        m_process.setProgram(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-server"));
        m_process.setArguments(QStringList{QStringLiteral("--database-url"), databaseUrl, QStringLiteral("--listen"),
                                           QStringLiteral("127.0.0.1:%1").arg(port), QStringLiteral("--threads"), QStringLiteral("4"),
                                           QStringLiteral("--data-dir"), dataDirectory}
                               + moreArguments);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
    }
    ~ServerProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(10000)) {
                m_process.kill();
                m_process.waitForFinished(5000);
            }
        }
    }
    /** @brief Wait until /readyz answers 200 (or the process died). */
    bool waitReady()
    {
        HttpClient client(QStringLiteral("127.0.0.1"), m_port);
        QDeadlineTimer deadline(30000);
        while (!deadline.hasExpired()) {
            if (m_process.state() == QProcess::NotRunning)
                return false;
            if (client.get("/readyz").status == 200)
                return true;
            client.disconnect();
            m_process.waitForReadyRead(100);
        }
        return false;
    }
    void kill9()
    {
        m_process.kill(); // SIGKILL: no shutdown code runs
        m_process.waitForFinished(10000);
    }
    QByteArray output() { return m_process.readAll(); }
    QProcess &process() { return m_process; }
    quint16 port() const { return m_port; }

private:
    QProcess m_process;
    quint16 m_port;
};

} // namespace marquee::test
