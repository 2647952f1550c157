// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/serverpool.h"
#include "logging.h"

#include "http/apiserver.h"
#include "metrics/requestmetrics.h"
#include "protection/connectionlimiter.h"
#include "runtime/servercontext.h"
#include "seating/livefanout.h"

#include <QEventLoop>
#include <QLoggingCategory>
#include <QSemaphore>
#include <QTcpServer>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cstddef>
#include <unistd.h>


namespace marquee::http {

namespace {
int bindTo(int fd, const QHostAddress &address, quint16 port)
{
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        sockaddr_in6 sa{};
        sa.sin6_family = AF_INET6;
        sa.sin6_port = htons(port);
        const Q_IPV6ADDR ip = address.toIPv6Address();
        std::memcpy(&sa.sin6_addr, &ip, sizeof ip);
        return ::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa);
    }
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(address.toIPv4Address());
    return ::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa);
}

// A listening socket that shares its port with the other workers' sockets.
int reusePortListener(const QHostAddress &address, quint16 port, QString *error)
{
    const bool v6 = address.protocol() == QAbstractSocket::IPv6Protocol;
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return -1;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    const int rc = bindTo(fd, address, port);
    if (rc != 0 || ::listen(fd, 4096) != 0) {
        *error = QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(QString::fromLocal8Bit(std::strerror(errno)));
        ::close(fd);
        return -1;
    }
    return fd;
}

// True when no other socket holds the port. The workers' own sockets share it with SO_REUSEPORT, which would also let
// this process share it silently with another server started on the same port by the same user (and the kernel
// would then split the connections between the two): a plain bind without SO_REUSEPORT fails on any socket already
// there, so it is tried first, and let go before the workers bind.
bool portIsFree(const QHostAddress &address, quint16 port, QString *error)
{
    const bool v6 = address.protocol() == QAbstractSocket::IPv6Protocol;
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); // a previous run's TIME_WAIT connections are fine
    const int rc = bindTo(fd, address, port);
    const int bindError = errno;
    ::close(fd);
    if (rc != 0) {
        *error = bindError == EADDRINUSE
                     ? QStringLiteral("cannot listen on %1:%2: another process is already listening there (is another "
                                      "marquee-server running with the same --listen?)")
                           .arg(address.toString())
                           .arg(port)
                     : QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(QString::fromLocal8Bit(std::strerror(bindError)));
        return false;
    }
    return true;
}

// The port for this process alone, among marquee-servers: see the class comment. Returns the claiming socket.
int claimPort(const QHostAddress &address, quint16 port, QString *error)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return -1;
    }
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    const QByteArray name = "marquee-server-port-" + QByteArray::number(port);
    std::memcpy(sa.sun_path + 1, name.constData(), size_t(name.size())); // sun_path[0] == 0: the abstract namespace
    const socklen_t length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(name.size()));
    if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), length) != 0) {
        const int bindError = errno;
        ::close(fd);
        *error = bindError == EADDRINUSE
                     ? QStringLiteral("cannot listen on %1:%2: another process is already listening there (another marquee-server "
                                      "holds port %2)")
                           .arg(address.toString())
                           .arg(port)
                     : QStringLiteral("cannot claim port %1: %2").arg(port).arg(QString::fromLocal8Bit(std::strerror(bindError)));
        return -1;
    }
    return fd;
}

quint16 boundPort(int fd)
{
    sockaddr_storage sa{};
    socklen_t length = sizeof sa;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &length);
    if (sa.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<sockaddr_in6 *>(&sa)->sin6_port);
    return ntohs(reinterpret_cast<sockaddr_in *>(&sa)->sin_port);
}
} // namespace

ServerPool::ServerPool(const Router &router, ServerContext &context)
    : m_router(router)
    , m_context(context)
{
    QStringList routes;
    for (const Router::Route &route : router.routes())
        routes << QString::fromLatin1(methodName(route.method)) + QLatin1Char(' ') + route.pattern;
    m_requestMetrics = std::make_unique<metrics::RequestMetrics>(routes);
}

ServerPool::~ServerPool()
{
    stop();
}

bool ServerPool::start(const QHostAddress &address, quint16 port, int threads)
{
    // Claimed before the check: from here on no other marquee-server can bind between the check and our binds.
    if (port != 0 && (m_portClaim = claimPort(address, port, &m_error)) < 0)
        return false;
    std::vector<int> sockets;
    const auto fail = [&] {
        for (int open : sockets)
            ::close(open);
        if (m_portClaim >= 0)
            ::close(m_portClaim);
        m_portClaim = -1;
        return false;
    };
    if (port != 0 && !portIsFree(address, port, &m_error))
        return fail();
    for (int i = 0; i < threads; ++i) {
        const int fd = reusePortListener(address, i == 0 ? port : m_port, &m_error);
        if (fd < 0)
            return fail();
        sockets.push_back(fd);
        if (i == 0) {
            m_port = boundPort(fd);
            // A port the kernel picked is claimed too, so that a server started on it later is refused.
            if (port == 0 && (m_portClaim = claimPort(address, m_port, &m_error)) < 0)
                return fail();
        }
    }
    m_liveFanout = std::make_unique<LiveFanout>(m_context.seatMaps.feed(), m_context.config.liveThreads, m_context.config.liveMaxBufferedBytes);
    for (int i = 0; i < threads; ++i) {
        const int fd = sockets[size_t(i)];
        auto ready = std::make_shared<QSemaphore>();
        std::unique_ptr<QThread> thread(QThread::create([this, fd, ready, i] {
            QThread::currentThread()->setObjectName(QStringLiteral("http-%1").arg(i));
            ApiServer server(m_router, m_context, *m_liveFanout, m_requestMetrics.get());
            protection::FramingLimits framing = m_context.config.framing;
            framing.maxBodyBytes = m_context.config.maxBodyBytes;
            QTcpServer *tcp = new protection::LimitedTcpServer(m_context.connections, framing, &server);
            if (!tcp->setSocketDescriptor(fd))
                qCCritical(lcHttp) << "cannot adopt listening socket:" << tcp->errorString();
            tcp->setMaxPendingConnections(4096);
            server.bind(tcp);
            ready->release();
            // Before the first request: its database connection and the statements of a cold occupancy report (a
            // request that arrives meanwhile waits in the queue, as it would have waited for the connection anyway).
            m_context.occupancyReports.prepareThisThread();
            QEventLoop loop; // QThread::quit() ends it
            loop.exec();
            m_context.database.closeThreadConnection();
        }));
        thread->start();
        ready->acquire();
        m_threads.push_back(std::move(thread));
    }
    qCInfo(lcHttp) << "serving on" << address.toString() << m_port << "with" << threads << "threads";
    return true;
}

void ServerPool::stop()
{
    for (auto &thread : m_threads) {
        thread->quit();
        thread->wait();
    }
    m_threads.clear();
    m_liveFanout.reset();
    if (m_portClaim >= 0)
        ::close(m_portClaim);
    m_portClaim = -1;
}

} // namespace marquee::http
