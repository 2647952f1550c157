// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seating/livefanout.h"
#include "logging.h"

#include "seating/seatfeed.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTcpSocket>
#include <QTimer>
#include <QWebSocket>
#include <algorithm>
#include <sys/socket.h>


namespace marquee {

namespace {
/** @brief @p payload as one unmasked WebSocket text frame, as a server sends it (RFC 6455, section 5.2). */
QByteArray textFrame(const QByteArray &payload)
{
    const quint64 length = quint64(payload.size());
    QByteArray frame;
    frame.reserve(payload.size() + 10);
    frame += char(0x81); // FIN, opcode 1 (text)
    if (length < 126) {
        frame += char(length);
    } else if (length <= 0xffff) {
        frame += char(126);
        frame += char(length >> 8);
        frame += char(length & 0xff);
    } else {
        frame += char(127);
        for (int shift = 56; shift >= 0; shift -= 8)
            frame += char((length >> shift) & 0xff);
    }
    frame += payload;
    return frame;
}
} // namespace

/** @brief The subscribers of one fan-out thread; lives on that thread, reached by queued calls. */
class LiveFanout::Worker : public QObject
{
public:
    Worker(SeatFeed &feed, qint64 maxBufferedBytes)
        : m_feed(feed)
        , m_maxBufferedBytes(maxBufferedBytes)
    {
    }

    /** @brief On the worker's thread: listen to the feed. */
    void start()
    {
        // Called by the feed with its lock held, so the versions of a show are posted here in order; once
        // removeListener() has returned nothing new is posted, and what was posted dies with this object.
        m_listener = m_feed.addListener([this](qint64 showId, qint64 version, const QByteArray &message) {
            QMetaObject::invokeMethod(this, [this, showId, version, message] { deliver(showId, version, message); }, Qt::QueuedConnection);
        });
    }

    /** @brief On the worker's thread: stop listening and close every subscriber. */
    void stop()
    {
        m_feed.removeListener(m_listener);
        const auto sockets = m_subscribers.keys();
        for (QWebSocket *socket : sockets) {
            socket->disconnect(this);
            socket->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("server stopping"));
            delete socket;
        }
        m_subscribers.clear();
        m_byShow.clear();
    }

    void adopt(QWebSocket *socket, qint64 showId, qint64 sinceVersion, const QByteArray &epoch)
    {
        socket->setParent(this);
        if (socket->state() != QAbstractSocket::ConnectedState) {
            socket->deleteLater(); // gone while it was handed over
            return;
        }
        // Subscribed here, on the thread that delivers: every delta posted after this call comes after the
        // first messages, so none falls in between.
        const SeatFeed::Start start = m_feed.subscribe(m_listener, showId, sinceVersion, epoch);
        if (start.kind == SeatFeed::Start::Kind::Unknown)
            return refuse(socket, NotFound, QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id."));
        if (start.kind == SeatFeed::Start::Kind::FutureVersion)
            return refuse(socket, BadRequest, QStringLiteral("invalid_version"),
                          QStringLiteral("Version %1 of this feed does not exist yet (the current one is %2).").arg(sinceVersion).arg(start.version));
        // LiveHub made the TCP socket the WebSocket's child; deltas are written to it as ready-made frames.
        m_subscribers.insert(socket, Subscriber{showId, start.version, socket->findChild<QTcpSocket *>()});
        m_byShow[showId].append(socket);
        for (const QByteArray &message : start.messages)
            socket->sendTextMessage(QString::fromUtf8(message));
        socket->flush();
        connect(socket, &QWebSocket::disconnected, this, [this, socket] { drop(socket); });
        // The protocol is server → client only; anything a client sends is ignored (pings are answered by Qt).
    }

private:
    struct Subscriber {
        qint64 showId = 0;
        qint64 version = 0; ///< the last version this client was sent
        QTcpSocket *tcp = nullptr; ///< under the WebSocket (its child)
    };

    void deliver(qint64 showId, qint64 version, const QByteArray &message)
    {
        const auto it = m_byShow.constFind(showId);
        if (it == m_byShow.constEnd())
            return;
        const QList<QWebSocket *> sockets = *it; // a copy: a slow socket is dropped from the list on the way
        QByteArray frame; // framed once for every subscriber of this thread
        for (QWebSocket *socket : sockets) {
            Subscriber &subscriber = m_subscribers[socket];
            if (version <= subscriber.version)
                continue; // already in its first messages
            if (socket->bytesToWrite() > m_maxBufferedBytes) {
                // It does not read: cut it off now and free its buffer (a polite close would wait behind the
                // unsent data). The client reconnects with `since` and gets what it missed.
                qCInfo(lcHttp) << "live subscriber of show" << showId << "cut off:" << socket->bytesToWrite() << "bytes unsent";
                if (const auto *tcp = socket->findChild<QTcpSocket *>()) {
                    // A reset, not a close: the kernel would otherwise keep trying to deliver what it holds.
                    const linger reset{1, 0};
                    ::setsockopt(int(tcp->socketDescriptor()), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
                }
                socket->disconnect(this);
                drop(socket);
                socket->abort();
                continue;
            }
            subscriber.version = version;
            if (!subscriber.tcp) {
                socket->sendTextMessage(QString::fromUtf8(message));
                socket->flush();
                continue;
            }
            // The same bytes for every subscriber: no per-socket UTF-16 → UTF-8 conversion nor framing, as
            // QWebSocket::sendTextMessage would do. QWebSocket writes its own frames (the first messages, pongs)
            // whole into this same socket, so frames never interleave.
            if (frame.isEmpty())
                frame = textFrame(message);
            subscriber.tcp->write(frame);
            subscriber.tcp->flush(); // written now, not on a later pass of the event loop over every socket
        }
    }

    void drop(QWebSocket *socket)
    {
        const auto it = m_subscribers.constFind(socket);
        if (it == m_subscribers.constEnd())
            return;
        m_feed.unsubscribe(m_listener, it->showId);
        const auto show = m_byShow.find(it->showId);
        if (show != m_byShow.end()) {
            show->removeOne(socket);
            if (show->isEmpty())
                m_byShow.erase(show);
        }
        m_subscribers.erase(it);
        socket->deleteLater();
    }

    SeatFeed &m_feed;
    const qint64 m_maxBufferedBytes;
    int m_listener = 0;
    QHash<QWebSocket *, Subscriber> m_subscribers;
    QHash<qint64, QList<QWebSocket *>> m_byShow;
};

LiveFanout::LiveFanout(SeatFeed &feed, int threads, qint64 maxBufferedBytes)
    : m_feed(feed)
{
    for (int i = 0; i < std::max(1, threads); ++i) {
        auto thread = std::make_unique<QThread>();
        thread->setObjectName(QStringLiteral("live-%1").arg(i));
        auto *worker = new Worker(feed, maxBufferedBytes);
        worker->moveToThread(thread.get());
        thread->start();
        QMetaObject::invokeMethod(worker, [worker] { worker->start(); }, Qt::BlockingQueuedConnection);
        m_workers.push_back(worker);
        m_threads.push_back(std::move(thread));
    }
    Worker *batcher = m_workers.front();
    m_feed.setBatching(kBatchWindowMs, [this, batcher](qint64 showId, int delayMs) {
        // With the feed's lock held: only post. The timer starts on the batching thread itself.
        QMetaObject::invokeMethod(batcher, [this, batcher, showId, delayMs] {
            QTimer::singleShot(delayMs, Qt::PreciseTimer, batcher, [this, showId] { m_feed.flushPending(showId); });
        }, Qt::QueuedConnection);
    });
}

LiveFanout::~LiveFanout()
{
    m_feed.setBatching(0, nullptr); // sends what is pending; nothing is posted to the workers from now on
    for (size_t i = 0; i < m_workers.size(); ++i) {
        Worker *worker = m_workers[i];
        QMetaObject::invokeMethod(worker, [worker] { worker->stop(); }, Qt::BlockingQueuedConnection);
        m_threads[i]->quit();
        m_threads[i]->wait();
        delete worker;
    }
}

void LiveFanout::adopt(QWebSocket *socket, qint64 showId, qint64 sinceVersion, const QByteArray &epoch)
{
    Worker *worker = m_workers[m_next.fetch_add(1) % m_workers.size()];
    socket->setParent(nullptr);
    socket->moveToThread(worker->thread());
    QMetaObject::invokeMethod(worker, [worker, socket, showId, sinceVersion, epoch] { worker->adopt(socket, showId, sinceVersion, epoch); },
                              Qt::QueuedConnection);
}

void LiveFanout::refuse(QWebSocket *socket, quint16 code, const QString &error, const QString &message)
{
    // The reason travels twice: as a JSON message a client can parse, and in the close frame for simple clients.
    socket->sendTextMessage(QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("type"), QStringLiteral("error")},
                                                                          {QStringLiteral("error"), error},
                                                                          {QStringLiteral("message"), message}})
                                                  .toJson(QJsonDocument::Compact)));
    socket->close(QWebSocketProtocol::CloseCode(code), error);
    QObject::connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
}

} // namespace marquee
