// SPDX-License-Identifier: AGPL-3.0-or-later
#include "faultproxy.h"

#include <QHostAddress>
#include <QList>
#include <QMutex>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <sys/socket.h>
#include <utility>

namespace marquee::test {

class FaultProxyWorker : public QObject
{
public:
    explicit FaultProxyWorker(quint16 upstreamPort)
        : m_upstreamPort(upstreamPort)
    {
    }

    quint16 start()
    {
        m_server = new QTcpServer(this);
        QObject::connect(m_server, &QTcpServer::newConnection, this, [this] { accept(); });
        m_server->listen(QHostAddress::LocalHost, 0);
        m_port = m_server->serverPort();
        return m_port;
    }

    void stop()
    {
        const QList<PairPtr> pairs = std::exchange(m_pairs, {});
        for (const auto &pair : pairs)
            abortPair(pair);
        delete m_server;
        m_server = nullptr;
    }

    void setMode(FaultProxy::Mode mode, int count)
    {
        QMutexLocker lock(&m_mutex);
        m_mode = mode;
        m_remaining = count;
    }
    FaultProxy::Mode mode() const
    {
        QMutexLocker lock(&m_mutex);
        return m_mode;
    }
    int faults() const
    {
        QMutexLocker lock(&m_mutex);
        return m_faults;
    }
    int accepted() const
    {
        QMutexLocker lock(&m_mutex);
        return m_accepted;
    }

    void setRefusing(bool refusing)
    {
        if (refusing) {
            m_server->close();
            const QList<PairPtr> pairs = std::exchange(m_pairs, {});
            for (const auto &pair : pairs)
                resetPair(pair);
        } else if (!m_server->isListening()) {
            // SO_REUSEADDR (set by QTcpServer) lets us take the same port again at once.
            for (int attempt = 0; attempt < 50 && !m_server->listen(QHostAddress::LocalHost, m_port); ++attempt)
                QThread::msleep(20);
        }
    }

    void dropFor(int ms)
    {
        setRefusing(true);
        QTimer::singleShot(ms, this, [this] { setRefusing(false); });
    }

private:
    struct Pair {
        QPointer<QTcpSocket> client;
        QPointer<QTcpSocket> upstream;
        QByteArray pendingToUpstream;
        bool blackholed = false;
    };
    using PairPtr = std::shared_ptr<Pair>;

    // Consume one fault of @p mode if that is the current mode; Blackhole is sticky and uncounted.
    bool takeFault(FaultProxy::Mode mode)
    {
        QMutexLocker lock(&m_mutex);
        if (m_mode != mode || m_remaining == 0)
            return false;
        ++m_faults;
        if (mode != FaultProxy::Mode::Blackhole && m_remaining > 0 && --m_remaining == 0)
            m_mode = FaultProxy::Mode::Pass;
        return true;
    }

    static void resetSocket(QTcpSocket *socket)
    {
        if (!socket)
            return;
        // SO_LINGER 0 turns close() into a RST instead of a FIN.
        const qintptr fd = socket->socketDescriptor();
        if (fd >= 0) {
            struct linger lg {1, 0};
            ::setsockopt(static_cast<int>(fd), SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        }
        socket->abort();
        socket->deleteLater();
    }
    static void resetPair(const PairPtr &pair)
    {
        resetSocket(pair->client);
        resetSocket(pair->upstream);
    }
    void abortPair(const PairPtr &pair)
    {
        if (pair->client) {
            pair->client->abort();
            pair->client->deleteLater();
        }
        if (pair->upstream) {
            pair->upstream->abort();
            pair->upstream->deleteLater();
        }
    }
    // Cut: deliver what was written so far, then drop both sides abruptly.
    void cutPair(const PairPtr &pair)
    {
        for (QTcpSocket *socket : {pair->client.data(), pair->upstream.data()}) {
            if (socket && socket->state() == QAbstractSocket::ConnectedState)
                socket->flush();
        }
        m_pairs.removeAll(pair);
        resetPair(pair);
    }

    void accept()
    {
        while (QTcpSocket *client = m_server->nextPendingConnection()) {
            {
                QMutexLocker lock(&m_mutex);
                ++m_accepted;
            }
            client->setParent(this);
            if (takeFault(FaultProxy::Mode::Reset)) {
                resetSocket(client);
                continue;
            }
            auto pair = std::make_shared<Pair>();
            pair->client = client;
            pair->blackholed = takeFault(FaultProxy::Mode::Blackhole);
            m_pairs.append(pair);
            if (!pair->blackholed) {
                auto *upstream = new QTcpSocket(this);
                pair->upstream = upstream;
                QObject::connect(upstream, &QTcpSocket::connected, this, [pair] {
                    if (pair->upstream && !pair->pendingToUpstream.isEmpty()) {
                        pair->upstream->write(pair->pendingToUpstream);
                        pair->pendingToUpstream.clear();
                    }
                });
                QObject::connect(upstream, &QTcpSocket::readyRead, this, [this, pair] { fromUpstream(pair); });
                QObject::connect(upstream, &QTcpSocket::disconnected, this, [this, pair] { closePair(pair); });
                QObject::connect(upstream, &QTcpSocket::errorOccurred, this, [this, pair] { closePair(pair); });
                upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
            }
            QObject::connect(client, &QTcpSocket::readyRead, this, [this, pair] { fromClient(pair); });
            QObject::connect(client, &QTcpSocket::disconnected, this, [this, pair] { closePair(pair); });
        }
    }

    void closePair(const PairPtr &pair)
    {
        if (!m_pairs.contains(pair))
            return;
        m_pairs.removeAll(pair);
        for (QTcpSocket *socket : {pair->client.data(), pair->upstream.data()}) {
            if (!socket)
                continue;
            if (socket->state() == QAbstractSocket::ConnectedState)
                socket->disconnectFromHost(); // after flushing what is queued
            socket->deleteLater();
        }
    }

    void fromClient(const PairPtr &pair)
    {
        if (!pair->client)
            return;
        QByteArray data = pair->client->readAll();
        if (pair->blackholed || takeFault(FaultProxy::Mode::Blackhole)) {
            pair->blackholed = true;
            return; // swallowed: the server never hears of it
        }
        if (takeFault(FaultProxy::Mode::CutRequest)) {
            data.truncate(data.size() / 2);
            sendUpstream(pair, data);
            cutPair(pair);
            return;
        }
        sendUpstream(pair, data);
    }

    void sendUpstream(const PairPtr &pair, const QByteArray &data)
    {
        if (!pair->upstream)
            return;
        if (pair->upstream->state() == QAbstractSocket::ConnectedState)
            pair->upstream->write(data);
        else
            pair->pendingToUpstream.append(data);
    }

    void fromUpstream(const PairPtr &pair)
    {
        if (!pair->upstream || !pair->client)
            return;
        QByteArray data = pair->upstream->readAll();
        if (pair->blackholed || takeFault(FaultProxy::Mode::Blackhole)) {
            pair->blackholed = true;
            return;
        }
        if (takeFault(FaultProxy::Mode::CutResponse)) {
            data.truncate(data.size() / 2);
            pair->client->write(data);
            cutPair(pair);
            return;
        }
        pair->client->write(data);
    }

    const quint16 m_upstreamPort;
    quint16 m_port = 0;
    QTcpServer *m_server = nullptr;
    QList<PairPtr> m_pairs;
    mutable QMutex m_mutex;
    FaultProxy::Mode m_mode = FaultProxy::Mode::Pass;
    int m_remaining = -1;
    int m_faults = 0;
    int m_accepted = 0;
};

FaultProxy::FaultProxy(quint16 upstreamPort)
    : m_thread(std::make_unique<QThread>())
    , m_worker(new FaultProxyWorker(upstreamPort))
{
    m_thread->setObjectName(QStringLiteral("faultproxy"));
    m_worker->moveToThread(m_thread.get());
    m_thread->start();
    QMetaObject::invokeMethod(m_worker, [this] { m_port = m_worker->start(); }, Qt::BlockingQueuedConnection);
}

FaultProxy::~FaultProxy()
{
    QMetaObject::invokeMethod(m_worker, [this] { m_worker->stop(); }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_worker; // its thread has ended: nothing runs in it any more
}

quint16 FaultProxy::port() const
{
    return m_port;
}

void FaultProxy::setMode(Mode mode, int count)
{
    m_worker->setMode(mode, count);
}

FaultProxy::Mode FaultProxy::mode() const
{
    return m_worker->mode();
}

void FaultProxy::dropFor(int ms)
{
    QMetaObject::invokeMethod(m_worker, [this, ms] { m_worker->dropFor(ms); }, Qt::BlockingQueuedConnection);
}

void FaultProxy::setRefusing(bool refusing)
{
    QMetaObject::invokeMethod(m_worker, [this, refusing] { m_worker->setRefusing(refusing); }, Qt::BlockingQueuedConnection);
}

int FaultProxy::faultsInjected() const
{
    return m_worker->faults();
}

int FaultProxy::connectionsAccepted() const
{
    return m_worker->accepted();
}

} // namespace marquee::test
