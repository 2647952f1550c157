// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "protection/requestframer.h"

#include <QTcpSocket>
#include <QTimer>

namespace marquee::protection {

/**
 * @brief An accepted connection whose bytes are checked (RequestFramer) before Qt's HTTP parser reads them, and
 * whose header, body and idle times are bounded.
 *
 * Qt's parser reads every byte the socket has on each readyRead. This socket's own readyRead slot is connected
 * first, so it sees each new stretch of bytes before Qt does: it peeks at request heads and chunk-size lines
 * (never at bodies: those are only counted) and, on a violation, answers `{error, message}` itself, drops the
 * unread bytes so that Qt never sees them and closes the connection. A second slot, connected right after Qt's
 * (connectNotify), notes what Qt left unread.
 */
class FramingSocket : public QTcpSocket
{
    Q_OBJECT
public:
    FramingSocket(const FramingLimits &limits, QObject *parent = nullptr);

    /** @brief Called by the HTTP server when it has written the answer to one request of this connection. */
    void answered();

protected:
    void connectNotify(const QMetaMethod &signal) override;

private:
    void beforeQt();
    void afterQt();
    void refuse(const FramingViolation &violation);
    void timedOut();
    void updateDeadline();
    void dropUnread();
    void shutDownWriting();

    FramingLimits m_limits;
    RequestFramer m_framer;
    QTimer m_deadline;
    enum class Wait { None, Head, Body, Idle } m_waiting = Wait::None;
    qint64 m_leftUnread = 0; ///< bytes already checked that Qt has not read yet
    quint64 m_answered = 0; ///< answers written (see completedRequests())
    qint64 m_dropped = 0; ///< bytes read and dropped after a refusal
    bool m_beforeHooked = false;
    bool m_afterHooked = false;
    bool m_closing = false; ///< refused or timed out: every further byte is dropped
    bool m_shutDown = false; ///< our side of the connection is shut (the answer is out)
};

} // namespace marquee::protection
