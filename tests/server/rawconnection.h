// SPDX-License-Identifier: AGPL-3.0-or-later
// A raw TCP connection for framing tests: send exactly these bytes, read what comes back, see whether the server
// closed the connection. No HTTP logic of its own beyond splitting responses.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace marquee::test {

class RawConnection
{
public:
    explicit RawConnection(quint16 port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
            ::close(m_fd);
            m_fd = -1;
        }
    }
    ~RawConnection()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    RawConnection(const RawConnection &) = delete;
    RawConnection &operator=(const RawConnection &) = delete;

    bool isOpen() const { return m_fd >= 0; }

    /** @brief Send all of @p data; false when the server closed or reset the connection meanwhile. */
    bool send(const QByteArray &data)
    {
        qsizetype sent = 0;
        while (sent < data.size()) {
            const ssize_t n = ::send(m_fd, data.constData() + sent, size_t(data.size() - sent), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += n;
        }
        return true;
    }

    /**
     * @brief Read until @p until returns true for what has arrived, the server closes, or @p timeoutMs pass.
     * Everything read is kept in received().
     */
    template<typename Until> void readUntil(Until until, int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        while (!m_closed && !until(m_received) && timer.elapsed() < timeoutMs) {
            pollfd p {m_fd, POLLIN, 0};
            if (::poll(&p, 1, int(std::max<qint64>(1, timeoutMs - timer.elapsed()))) <= 0)
                continue;
            char buffer[65536];
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                m_closed = true; // EOF or reset
                break;
            }
            m_received.append(buffer, n);
        }
    }

    /** @brief Wait up to @p timeoutMs for the server to close; true when it did. */
    bool closedWithin(int timeoutMs)
    {
        readUntil([](const QByteArray &) { return false; }, timeoutMs);
        return m_closed;
    }

    /** @brief Read up to @p timeoutMs for @p count complete responses (by Content-Length). */
    QList<QByteArray> responses(int count, int timeoutMs)
    {
        readUntil([count](const QByteArray &data) { return split(data).size() >= count; }, timeoutMs);
        return split(m_received);
    }

    const QByteArray &received() const { return m_received; }
    bool closed() const { return m_closed; }

    /** @brief Status code of one response ("HTTP/1.1 400 ..." → 400). */
    static int status(const QByteArray &response) { return response.mid(9, 3).toInt(); }
    /** @brief The body of one response. */
    static QByteArray body(const QByteArray &response) { return response.mid(response.indexOf("\r\n\r\n") + 4); }

    /** @brief Complete responses in @p data, each head and body. */
    static QList<QByteArray> split(const QByteArray &data)
    {
        QList<QByteArray> out;
        qsizetype at = 0;
        while (true) {
            const qsizetype headEnd = data.indexOf("\r\n\r\n", at);
            if (headEnd < 0)
                break;
            const QByteArray head = data.mid(at, headEnd - at).toLower();
            qsizetype length = 0;
            const qsizetype cl = head.indexOf("content-length:");
            if (cl >= 0)
                length = head.mid(cl + 15, head.indexOf("\r\n", cl) < 0 ? -1 : head.indexOf("\r\n", cl) - cl - 15)
                             .trimmed()
                             .toLongLong();
            if (data.size() < headEnd + 4 + length)
                break;
            out.append(data.mid(at, headEnd + 4 + length - at));
            at = headEnd + 4 + length;
        }
        return out;
    }

private:
    int m_fd = -1;
    QByteArray m_received;
    bool m_closed = false;
};

} // namespace marquee::test
