// SPDX-License-Identifier: AGPL-3.0-or-later
#include "loadengine.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

namespace marquee::bench {

namespace {
int64_t monoNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

sockaddr_in address(const QString &host, quint16 port)
{
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    const QByteArray ip = host == QLatin1String("localhost") ? QByteArray("127.0.0.1") : host.toLatin1();
    ::inet_pton(AF_INET, ip.constData(), &sa.sin_addr);
    return sa;
}

// Finds "\r\nName:" case-insensitively in a header block; returns the trimmed value or an empty view.
std::string_view headerValue(std::string_view head, std::string_view name)
{
    size_t pos = 0;
    while ((pos = head.find("\r\n", pos)) != std::string_view::npos) {
        pos += 2;
        if (head.size() - pos > name.size() && head[pos + name.size()] == ':'
            && ::strncasecmp(head.data() + pos, name.data(), name.size()) == 0) {
            size_t start = pos + name.size() + 1;
            size_t end = head.find("\r\n", start);
            if (end == std::string_view::npos)
                end = head.size();
            while (start < end && head[start] == ' ')
                ++start;
            return head.substr(start, end - start);
        }
    }
    return {};
}

struct Connection {
    Session *session = nullptr;
    int fd = -1;
    bool connecting = false;
    bool inFlight = false;
    bool idle = false; ///< the session had nothing to send; asked again on the next idle sweep
    std::string out;
    size_t outOffset = 0;
    std::string in;
    size_t headEnd = std::string::npos; ///< end of the answer's header block, once seen
    size_t scanned = 0;                 ///< bytes of `in` already searched for it (big bodies arrive in pieces)
    size_t needed = 0;                  ///< header + body length, once the header is known
    int64_t sentNs = 0;
};

class Worker
{
public:
    Worker(const EngineOptions &options, std::vector<Session *> sessions, int64_t measureFromNs, int64_t measureToNs)
        : m_options(options)
        , m_measureFrom(measureFromNs)
        , m_measureTo(measureToNs)
    {
        m_connections.resize(sessions.size());
        for (size_t i = 0; i < sessions.size(); ++i)
            m_connections[i].session = sessions[i];
    }

    Stats run()
    {
        m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
        for (Connection &c : m_connections)
            open(c);
        epoll_event events[256];
        bool draining = false;
        int64_t drainUntil = 0;
        for (;;) {
            const int64_t now = monoNs();
            if (!draining && (now >= m_measureTo || (m_options.finished && m_options.finished()))) {
                draining = true;
                drainUntil = now + 10'000'000'000LL;
                m_endNs = std::min(now, m_measureTo);
            }
            if (draining && (m_inFlight == 0 || now >= drainUntil))
                break;
            if (!draining && m_idle > 0 && now - m_lastIdleSweep >= 2'000'000) {
                m_lastIdleSweep = now;
                for (Connection &c : m_connections) {
                    if (c.idle && c.fd >= 0 && !c.connecting) {
                        c.idle = false;
                        --m_idle;
                        send(c);
                    }
                }
            }
            const int n = ::epoll_wait(m_epoll, events, 256, m_idle > 0 ? 2 : 50);
            for (int i = 0; i < n; ++i) {
                Connection &c = *static_cast<Connection *>(events[i].data.ptr);
                if (c.fd < 0)
                    continue;
                if (c.connecting) {
                    int error = 0;
                    socklen_t length = sizeof error;
                    ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
                    if (error != 0 || (events[i].events & (EPOLLERR | EPOLLHUP))) {
                        fail(c, draining);
                        continue;
                    }
                    c.connecting = false;
                    if (!draining)
                        send(c);
                    continue;
                }
                if (events[i].events & EPOLLOUT)
                    flush(c);
                if (c.fd >= 0 && (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                    receive(c, draining);
            }
        }
        for (Connection &c : m_connections)
            close(c);
        ::close(m_epoll);
        m_stats.windowSeconds = double(std::max<int64_t>(std::min(m_endNs, m_measureTo) - m_measureFrom, 0)) / 1e9;
        return std::move(m_stats);
    }

private:
    void open(Connection &c)
    {
        c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        const int one = 1;
        ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        const sockaddr_in sa = address(m_options.host, m_options.port);
        const int rc = ::connect(c.fd, reinterpret_cast<const sockaddr *>(&sa), sizeof sa);
        c.connecting = rc != 0 && errno == EINPROGRESS;
        c.in.clear();
        c.headEnd = std::string::npos;
        c.scanned = 0;
        c.needed = 0;
        c.outOffset = 0;
        c.out.clear();
        if (c.idle) {
            c.idle = false;
            --m_idle;
        }
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
        ev.data.ptr = &c;
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, c.fd, &ev);
        if (rc == 0)
            send(c);
        else if (!c.connecting)
            ++m_connectFailures; // reported through the next fail()
    }

    void close(Connection &c)
    {
        if (c.fd >= 0) {
            ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, c.fd, nullptr);
            ::close(c.fd);
        }
        c.fd = -1;
        if (c.inFlight) {
            c.inFlight = false;
            --m_inFlight;
        }
    }

    // A broken connection counts as one failed answer (status 0); the client reconnects and goes on.
    void fail(Connection &c, bool draining)
    {
        const bool wasInFlight = c.inFlight || c.connecting;
        close(c);
        if (wasInFlight) {
            const int64_t now = monoNs();
            const bool measured = now >= m_measureFrom && now <= m_measureTo;
            if (measured)
                ++m_stats.statuses[0];
            c.session->response(0, {}, {}, measured);
        }
        if (++m_connectFailures > 10000) {
            if (!m_gaveUp)
                ::fprintf(stderr, "marquee-load: too many connection failures, a worker gives up\n");
            m_gaveUp = true;
            return;
        }
        if (!draining) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            open(c);
        }
    }

    void send(Connection &c)
    {
        c.out.clear();
        c.session->request(c.out);
        if (c.out.empty()) {
            c.idle = true;
            ++m_idle;
            return;
        }
        c.outOffset = 0;
        c.sentNs = monoNs();
        c.inFlight = true;
        ++m_inFlight;
        flush(c);
    }

    void flush(Connection &c)
    {
        while (c.fd >= 0 && c.outOffset < c.out.size()) {
            const ssize_t n = ::send(c.fd, c.out.data() + c.outOffset, c.out.size() - c.outOffset, MSG_NOSIGNAL);
            if (n > 0) {
                c.outOffset += size_t(n);
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && errno == EAGAIN) {
                return; // EPOLLOUT (edge) tells when there is room again
            } else {
                fail(c, false);
                return;
            }
        }
    }

    void receive(Connection &c, bool draining)
    {
        char buffer[65536];
        bool closed = false;
        for (;;) {
            const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
            if (n > 0) {
                c.in.append(buffer, size_t(n));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno == EAGAIN)
                break;
            closed = true;
            break;
        }
        // Only one request is ever in flight, so at most one complete answer is in the buffer. The header is
        // searched for once, and only in new bytes: a seat map of several megabytes arrives in many pieces.
        if (c.headEnd == std::string::npos && c.inFlight) {
            const size_t from = c.scanned > 3 ? c.scanned - 3 : 0;
            const size_t at = c.in.find("\r\n\r\n", from);
            c.scanned = c.in.size();
            if (at != std::string::npos) {
                c.headEnd = at;
                const std::string_view length = headerValue(std::string_view(c.in.data(), at), "Content-Length");
                c.needed = at + 4 + (length.empty() ? 0 : size_t(std::strtoull(std::string(length).c_str(), nullptr, 10)));
            }
        }
        if (c.headEnd != std::string::npos && c.inFlight && c.in.size() >= c.needed) {
            const size_t headEnd = c.headEnd;
            const size_t bodyLength = c.needed - headEnd - 4;
            const std::string_view head(c.in.data(), headEnd);
            {
                const int status = head.size() > 12 ? std::atoi(head.data() + 9) : 0;
                const int64_t now = monoNs();
                const bool measured = now >= m_measureFrom && now <= m_measureTo && c.session->measuring();
                if (measured) {
                    const auto latencyUs = uint32_t(std::min<int64_t>((now - c.sentNs) / 1000, UINT32_MAX));
                    m_stats.latencyUs.push_back(latencyUs);
                    m_stats.latencyUsByStatus[status].push_back(latencyUs);
                    m_stats.recordServerTiming(status, headerValue(head, "Server-Timing"));
                    ++m_stats.statuses[status];
                    m_stats.bytesIn += headEnd + 4 + bodyLength;
                } else {
                    ++m_stats.unmeasured;
                }
                c.inFlight = false;
                --m_inFlight;
                c.session->response(status, head, std::string_view(c.in.data() + headEnd + 4, bodyLength), measured);
                const bool serverCloses = headerValue(head, "Connection") == "close";
                c.in.erase(0, headEnd + 4 + bodyLength);
                c.headEnd = std::string::npos;
                c.scanned = 0;
                c.needed = 0;
                if (serverCloses || closed) {
                    close(c);
                    if (!draining)
                        open(c);
                    return;
                }
                if (!draining)
                    send(c);
                return;
            }
        }
        if (closed)
            fail(c, draining);
    }

    const EngineOptions &m_options;
    const int64_t m_measureFrom;
    const int64_t m_measureTo;
    std::vector<Connection> m_connections;
    int m_epoll = -1;
    int m_inFlight = 0;
    int m_idle = 0;              ///< connections whose session had nothing to send
    int64_t m_lastIdleSweep = 0;
    int64_t m_endNs = INT64_MAX; ///< when the run ended early (finished())
    int m_connectFailures = 0;
    bool m_gaveUp = false;
    Stats m_stats;
};
} // namespace

LoadEngine::LoadEngine(EngineOptions options)
    : m_options(std::move(options))
{
}

Stats LoadEngine::run(std::vector<std::unique_ptr<Session>> &sessions)
{
    const int threads = std::max(1, std::min<int>(m_options.threads, int(sessions.size())));
    auto parts = std::vector<std::vector<Session *>>(size_t(threads));
    for (size_t i = 0; i < sessions.size(); ++i)
        parts[i % size_t(threads)].push_back(sessions[i].get());
    const int64_t start = monoNs();
    const int64_t from = start + int64_t(m_options.warmupSeconds * 1e9);
    const int64_t to = from + int64_t(m_options.durationSeconds * 1e9);
    auto results = std::vector<Stats>(size_t(threads));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            Worker worker(m_options, parts[size_t(t)], from, to);
            results[size_t(t)] = worker.run();
        });
    }
    Stats merged;
    for (int t = 0; t < threads; ++t) {
        workers[size_t(t)].join();
        merged.merge(results[size_t(t)]);
    }
    merged.windowSeconds = m_options.durationSeconds;
    return merged;
}

int blockingGet(const QString &host, quint16 port, const std::string &path, const std::string &token, std::string *body)
{
    return blockingRequest(host, port, "GET", path, token, {}, body);
}

int blockingRequest(const QString &host, quint16 port, const std::string &method, const std::string &path, const std::string &token,
                    const std::string &jsonBody, std::string *body)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{60, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    const sockaddr_in sa = address(host, port);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&sa), sizeof sa) != 0) {
        ::close(fd);
        return 0;
    }
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host.toStdString() + "\r\nConnection: close\r\n";
    if (!token.empty())
        request += "Authorization: Bearer " + token + "\r\n";
    if (!jsonBody.empty())
        request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(jsonBody.size()) + "\r\n";
    request += "\r\n" + jsonBody;
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string in;
    char buffer[65536];
    int status = 0;
    size_t headEnd = std::string::npos;
    for (;;) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        const size_t from = in.size() > 3 ? in.size() - 3 : 0;
        in.append(buffer, size_t(n));
        if (headEnd == std::string::npos)
            headEnd = in.find("\r\n\r\n", from);
        if (headEnd == std::string::npos)
            continue;
        const std::string_view length = headerValue(std::string_view(in.data(), headEnd), "Content-Length");
        const size_t bodyLength = size_t(std::strtoull(std::string(length).c_str(), nullptr, 10));
        if (in.size() >= headEnd + 4 + bodyLength) {
            status = std::atoi(in.data() + 9);
            *body = in.substr(headEnd + 4, bodyLength);
            break;
        }
    }
    ::close(fd);
    return status;
}

qint64 wallMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace marquee::bench
