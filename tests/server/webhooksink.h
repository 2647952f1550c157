// SPDX-License-Identifier: AGPL-3.0-or-later
// A webhook subscriber on loopback for the outbox relay's tests (tst_events.cpp, tst_fleet.cpp). Header-only.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <arpa/inet.h>
#include <atomic>
#include <gtest/gtest.h>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace marquee::test {

/** @brief A webhook subscriber on loopback: records every request; answers 500 to the first @p failFirst. */
class WebhookSink
{
public:
    struct Request {
        QByteArray body;
        QByteArray signature;
        QByteArray eventId;
        int answered = 0;
    };

    explicit WebhookSink(int failFirst)
        : m_failFirst(failFirst)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        EXPECT_EQ(::bind(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        EXPECT_EQ(::listen(m_fd, 16), 0);
        socklen_t length = sizeof address;
        ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&address), &length);
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~WebhookSink()
    {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/hooks/marquee").arg(m_port); }
    QList<Request> requests()
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }
    /** @brief Event ids of the acknowledged (2xx) deliveries, in arrival order. */
    QList<qint64> acknowledged()
    {
        QList<qint64> ids;
        for (const Request &r : requests())
            if (r.answered == 200)
                ids << r.eventId.toLongLong();
        return ids;
    }

private:
    void serve()
    {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int client = ::accept(m_fd, nullptr, nullptr);
            if (client < 0)
                continue;
            QByteArray data;
            char buffer[4096];
            qsizetype headerEnd = -1;
            qsizetype contentLength = 0;
            while (true) {
                const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
                if (n <= 0)
                    break;
                data.append(buffer, n);
                if (headerEnd < 0 && (headerEnd = data.indexOf("\r\n\r\n")) >= 0) {
                    for (const QByteArray &line : data.left(headerEnd).split('\n'))
                        if (line.toLower().startsWith("content-length:"))
                            contentLength = line.mid(15).trimmed().toLongLong();
                }
                if (headerEnd >= 0 && data.size() >= headerEnd + 4 + contentLength)
                    break;
            }
            Request request;
            request.body = data.mid(headerEnd + 4, contentLength);
            for (const QByteArray &line : data.left(headerEnd).split('\n')) {
                const QByteArray lower = line.toLower();
                if (lower.startsWith("x-signature:"))
                    request.signature = line.mid(12).trimmed();
                if (lower.startsWith("x-event-id:"))
                    request.eventId = line.mid(11).trimmed();
            }
            {
                std::lock_guard lock(m_mutex);
                request.answered = m_requests.size() < m_failFirst ? 500 : 200;
                m_requests.append(request);
            }
            const QByteArray reply = request.answered == 200 ? QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                                                             : QByteArray("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            ::send(client, reply.constData(), size_t(reply.size()), MSG_NOSIGNAL);
            ::close(client);
        }
    }

    int m_failFirst;
    int m_fd = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::mutex m_mutex;
    QList<Request> m_requests;
};

} // namespace marquee::test
