// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/framingsocket.h"

#include <QMetaMethod>
#include <algorithm>
#include <sys/socket.h>

namespace marquee::protection {

namespace {
// How much of a head is peeked at a time: heads are small; a large one is looked at in a few steps.
constexpr qint64 kLookAhead = 8192;
// After a refusal the client may still be sending (a huge body): its bytes are read and dropped this long, so that
// closing with unread data (a TCP reset) does not destroy the answer before the client has read it.
constexpr int kLingerMs = 2000;
constexpr qint64 kMaxLingerBytes = 1024 * 1024;
} // namespace

FramingSocket::FramingSocket(const FramingLimits &limits, QObject *parent)
    : QTcpSocket(parent)
    , m_limits(limits)
    , m_framer(limits)
{
    // Connected before Qt's parser connects (it does when the server takes the connection), so it runs first.
    connect(this, &QTcpSocket::readyRead, this, &FramingSocket::beforeQt);
    m_beforeHooked = true;
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &FramingSocket::timedOut);
    connect(this, &QTcpSocket::bytesWritten, this, [this] {
        if (m_closing && !m_shutDown && bytesToWrite() == 0)
            shutDownWriting();
    });
    updateDeadline();
}

void FramingSocket::connectNotify(const QMetaMethod &signal)
{
    // The first readyRead connection after this socket's own is Qt's parser: note what it leaves unread after it.
    if (m_beforeHooked && !m_afterHooked && signal == QMetaMethod::fromSignal(&QTcpSocket::readyRead)) {
        m_afterHooked = true;
        connect(this, &QTcpSocket::readyRead, this, &FramingSocket::afterQt);
    }
}

void FramingSocket::beforeQt()
{
    if (m_closing) {
        m_dropped += bytesAvailable();
        dropUnread();
        if (m_dropped > kMaxLingerBytes)
            // A client still streaming a refused body is not worth reading any longer; aborted once Qt's slot has run.
            QMetaObject::invokeMethod(this, &QAbstractSocket::abort, Qt::QueuedConnection);
        return;
    }
    if (m_framer.phase() == RequestFramer::Phase::Upgraded)
        return;
    const qint64 available = bytesAvailable();
    qint64 offset = std::min(m_leftUnread, available);
    QByteArray window;
    while (offset < available && m_framer.phase() != RequestFramer::Phase::Upgraded) {
        const qint64 fresh = available - offset;
        if (const qint64 skippable = m_framer.skippable(); skippable > 0) {
            // Body bytes: counted, never copied.
            const qint64 count = std::min(skippable, fresh);
            m_framer.skip(count);
            offset += count;
            continue;
        }
        const qint64 look = std::min(fresh, kLookAhead);
        window = peek(offset + look);
        if (window.size() < offset + look)
            break; // cannot happen: peek returns what bytesAvailable() promised
        qint64 used = 0;
        if (const auto violation = m_framer.feed(window.constData() + offset, look, &used)) {
            refuse(*violation);
            return;
        }
        offset += used;
    }
    m_leftUnread = available;
    updateDeadline();
}

void FramingSocket::afterQt()
{
    m_leftUnread = m_closing ? 0 : bytesAvailable();
}

void FramingSocket::answered()
{
    ++m_answered;
    if (m_framer.phase() == RequestFramer::Phase::Idle)
        m_waiting = Wait::None; // a new idle period begins with every answer
    updateDeadline();
}

void FramingSocket::updateDeadline()
{
    Wait wanted = Wait::None;
    int timeoutMs = 0;
    switch (m_framer.phase()) {
    case RequestFramer::Phase::Head:
        wanted = Wait::Head;
        break;
    case RequestFramer::Phase::Body:
        wanted = Wait::Body;
        break;
    case RequestFramer::Phase::Idle:
        // Nothing is timed while the server works on a request (a long poll may take its time).
        if (m_framer.completedRequests() <= m_answered)
            wanted = m_framer.completedRequests() == 0 ? Wait::Head : Wait::Idle;
        break;
    case RequestFramer::Phase::Upgraded:
    case RequestFramer::Phase::Failed:
        break;
    }
    if (wanted == m_waiting)
        return; // a deadline runs from the start of its wait, not from the last byte (slow senders)
    m_waiting = wanted;
    switch (wanted) {
    case Wait::None:
        m_deadline.stop();
        return;
    case Wait::Head:
        timeoutMs = m_limits.headerTimeoutMs;
        break;
    case Wait::Body:
        timeoutMs = m_limits.bodyTimeoutMs;
        break;
    case Wait::Idle:
        timeoutMs = m_limits.idleTimeoutMs;
        break;
    }
    m_deadline.start(timeoutMs);
}

void FramingSocket::timedOut()
{
    if (m_closing)
        return;
    switch (m_waiting) {
    case Wait::Head:
        if (m_framer.phase() == RequestFramer::Phase::Head) {
            refuse(FramingViolation {
                408, "request_timeout", "The request head did not arrive in time; the connection is closed."});
            return;
        }
        break; // a connection that never sent a byte is just closed
    case Wait::Body:
        refuse(FramingViolation {
            408, "request_timeout", "The request body did not arrive in time; the connection is closed."});
        return;
    case Wait::Idle:
    case Wait::None:
        break;
    }
    m_closing = true;
    m_deadline.stop();
    disconnectFromHost();
}

void FramingSocket::refuse(const FramingViolation &violation)
{
    m_closing = true;
    m_waiting = Wait::None;
    m_deadline.stop();
    dropUnread();
    write(violation.response());
    flush();
    if (bytesToWrite() == 0)
        shutDownWriting();
    // A client that goes on sending is cut off after the linger time; one that reads and closes ends it sooner.
    QTimer::singleShot(kLingerMs, this, [this] { abort(); });
}

void FramingSocket::dropUnread()
{
    // Qt's parser keeps what it read in a transaction until its request is complete; this one never will be.
    if (isTransactionStarted())
        commitTransaction();
    skip(bytesAvailable());
    m_leftUnread = 0;
}

void FramingSocket::shutDownWriting()
{
    m_shutDown = true;
    ::shutdown(int(socketDescriptor()), SHUT_WR);
}

} // namespace marquee::protection
