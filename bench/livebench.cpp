// SPDX-License-Identifier: AGPL-3.0-or-later
#include "livebench.h"

#include "loadstats.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace marquee::bench {

namespace {
qint64 monotonicUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/** @brief The text between @p key (e.g. `"statuses":"`) and the next quote, from @p from on; empty if absent. */
std::string_view quotedAfter(std::string_view text, std::string_view key, size_t *from)
{
    const size_t at = text.find(key, *from);
    if (at == std::string_view::npos)
        return {};
    const size_t begin = at + key.size();
    const size_t end = text.find('"', begin);
    if (end == std::string_view::npos)
        return {};
    *from = end + 1;
    return text.substr(begin, end - begin);
}

/**
 * @brief One subscriber on a raw non-blocking socket: the WebSocket handshake by hand, then unmasked server
 * frames parsed in place. No Qt objects, no JSON parser: the measuring client must cost far less per message
 * than the server it measures, on the same two cores (docs/perf/journal.md, "How the client's cost was separated").
 */
struct Subscriber {
    int fd = -1;
    std::string in;      ///< bytes received and not yet consumed
    bool upgraded = false;
    bool closed = false;
    std::string message; ///< a fragmented message being assembled
};

/** @brief What the delta names, per seat: "held" or "available" and so on. */
using ChangeVisitor = std::function<void(std::string_view seat, std::string_view status)>;

void forEachChange(std::string_view delta, const ChangeVisitor &visit)
{
    // The server writes every change as {"seat_id":"…","status":"…"} (seat ids of the demo shows need no escaping).
    size_t from = 0;
    for (;;) {
        const std::string_view seat = quotedAfter(delta, "\"seat_id\":\"", &from);
        if (seat.empty())
            return;
        const std::string_view status = quotedAfter(delta, "\"status\":\"", &from);
        visit(seat, status);
    }
}
} // namespace

int runLiveBench(const EngineOptions &engine, const LiveBenchOptions &options, QTextStream &out, QTextStream &err)
{
    // The seats in the seat map's order: a snapshot's statuses are in this order.
    std::string mapBody;
    const std::string showPath = "/api/v1/shows/" + std::to_string(options.showId);
    if (blockingGet(engine.host, engine.port, showPath + "/seatmap", options.token, &mapBody) != 200) {
        err << "marquee-load live: cannot read the seat map of show " << options.showId << "\n";
        return 2;
    }
    std::vector<std::string> seatIds;
    for (const QJsonValue &seat : QJsonDocument::fromJson(QByteArray::fromStdString(mapBody)).object().value(QStringLiteral("seats")).toArray())
        seatIds.push_back(seat[QStringLiteral("seat_id")].toString().toStdString());

    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(engine.port);
    ::inet_pton(AF_INET, engine.host.toLatin1().constData(), &address.sin_addr);
    const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
    std::vector<Subscriber> subscribers(size_t(options.subscribers));
    const std::string handshake = "GET " + showPath + "/live HTTP/1.1\r\nHost: " + engine.host.toStdString()
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ";
    for (size_t i = 0; i < subscribers.size(); ++i) {
        Subscriber &s = subscribers[i];
        s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s.fd < 0 || ::connect(s.fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) {
            err << "marquee-load live: cannot connect subscriber " << i << ": " << std::strerror(errno) << "\n";
            return 2;
        }
        quint8 nonce[16];
        for (quint8 &byte : nonce)
            byte = quint8(QRandomGenerator::global()->bounded(256));
        const std::string request = handshake + QByteArray(reinterpret_cast<const char *>(nonce), 16).toBase64().toStdString()
            + "\r\nAuthorization: Bearer " + options.token + "\r\n\r\n";
        ::send(s.fd, request.data(), request.size(), MSG_NOSIGNAL);
        ::fcntl(s.fd, F_SETFL, ::fcntl(s.fd, F_GETFL) | O_NONBLOCK);
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = i;
        ::epoll_ctl(epoll, EPOLL_CTL_ADD, s.fd, &event);
    }

    struct Change {
        qint64 sentUs = 0;
        qint64 answeredUs = 0;
        std::string holdId;
    };
    std::mutex mutex;
    std::unordered_map<std::string, Change> holds;    // seat → its hold, while measuring holds
    std::unordered_map<std::string, Change> releases; // seat → its release, while measuring releases
    std::vector<uint32_t> heldFromSend, heldFromAnswer, releasedFromSend, clientQueueUs;
    int snapshots = 0;
    int closedEarly = 0;
    int protocolErrors = 0;
    std::string firstStatuses;

    // One message of subscriber @p s, received at @p receivedUs.
    const auto onMessage = [&](std::string_view text, qint64 receivedUs) {
        size_t from = 0;
        const std::string_view type = quotedAfter(text, "\"type\":\"", &from);
        if (type == "snapshot") {
            if (++snapshots == 1) {
                size_t at = 0;
                firstStatuses = std::string(quotedAfter(text, "\"statuses\":\"", &at));
            }
            return;
        }
        if (type != "delta")
            return;
        std::lock_guard lock(mutex);
        forEachChange(text, [&](std::string_view seat, std::string_view status) {
            if (status == "held") {
                const auto it = holds.find(std::string(seat));
                if (it == holds.end() || !it->second.sentUs)
                    return;
                heldFromSend.push_back(uint32_t(receivedUs - it->second.sentUs));
                // The delta may overtake the writer's own answer; then it counts as zero from the answer.
                heldFromAnswer.push_back(it->second.answeredUs && receivedUs > it->second.answeredUs ? uint32_t(receivedUs - it->second.answeredUs) : 0);
            } else if (status == "available") {
                const auto it = releases.find(std::string(seat));
                if (it != releases.end() && it->second.sentUs)
                    releasedFromSend.push_back(uint32_t(receivedUs - it->second.sentUs));
            }
        });
    };
    // Read what is there; parse complete frames. Returns false once the socket is closed.
    const auto readSome = [&](Subscriber &s, qint64 batchStartUs) {
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::recv(s.fd, buffer, sizeof buffer, 0);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
                s.closed = true;
                break;
            }
            if (n < 0)
                break;
            s.in.append(buffer, size_t(n));
        }
        const qint64 now = monotonicUs();
        size_t at = 0;
        if (!s.upgraded) {
            const size_t headEnd = s.in.find("\r\n\r\n");
            if (headEnd == std::string::npos)
                return !s.closed;
            if (s.in.compare(0, 12, "HTTP/1.1 101") != 0) {
                ++protocolErrors;
                s.closed = true;
                return false;
            }
            s.upgraded = true;
            at = headEnd + 4;
        }
        bool sawMessage = false;
        while (s.in.size() - at >= 2) {
            const auto *p = reinterpret_cast<const unsigned char *>(s.in.data() + at);
            const bool fin = p[0] & 0x80;
            const int opcode = p[0] & 0x0f;
            quint64 length = p[1] & 0x7f;
            size_t header = 2;
            if (length == 126) {
                if (s.in.size() - at < 4)
                    break;
                length = (quint64(p[2]) << 8) | p[3];
                header = 4;
            } else if (length == 127) {
                if (s.in.size() - at < 10)
                    break;
                length = 0;
                for (int i = 0; i < 8; ++i)
                    length = (length << 8) | p[2 + i];
                header = 10;
            }
            if (s.in.size() - at < header + length)
                break;
            const std::string_view payload(s.in.data() + at + header, size_t(length));
            at += header + size_t(length);
            if (opcode == 0x8) {
                s.closed = true;
                break;
            }
            if (opcode != 0x1 && opcode != 0x0)
                continue; // pings and pongs: the server sends none
            s.message.append(payload);
            if (!fin)
                continue;
            onMessage(s.message, now);
            sawMessage = true;
            s.message.clear();
        }
        s.in.erase(0, at);
        if (sawMessage) {
            std::lock_guard lock(mutex);
            clientQueueUs.push_back(uint32_t(now - batchStartUs)); // how long this message waited inside the client
        }
        return !s.closed;
    };
    std::atomic<bool> writerDone{false};
    const auto pump = [&](int timeoutMs) {
        epoll_event events[256];
        const int n = ::epoll_wait(epoll, events, 256, timeoutMs);
        const qint64 batchStart = monotonicUs();
        for (int i = 0; i < n; ++i) {
            Subscriber &s = subscribers[size_t(events[i].data.u64)];
            if (s.closed)
                continue;
            if (!readSome(s, batchStart)) {
                ::epoll_ctl(epoll, EPOLL_CTL_DEL, s.fd, nullptr);
                ++closedEarly;
            }
        }
    };
    const auto pumpUntil = [&](const std::function<bool()> &done, qint64 timeoutMs) {
        const qint64 until = monotonicUs() + timeoutMs * 1000;
        while (!done() && monotonicUs() < until)
            pump(5);
    };

    pumpUntil([&] { return snapshots >= options.subscribers || closedEarly > 0; }, 120000);
    if (snapshots < options.subscribers) {
        err << "marquee-load live: only " << snapshots << " of " << options.subscribers << " subscribers got a snapshot (" << closedEarly
            << " closed, " << protocolErrors << " refused)\n";
        return 1;
    }
    {
        std::lock_guard lock(mutex);
        clientQueueUs.clear(); // only deltas count
    }
    out << options.subscribers << " subscribers on show " << options.showId << " (" << seatIds.size() << " seats); " << options.changes
        << " holds, one every " << options.intervalMs << " ms, then their releases" << Qt::endl;

    // Seats still available in the first snapshot, spread over the show.
    std::vector<std::string> targets;
    const int stride = std::max(1, int(seatIds.size()) / std::max(1, options.changes * 2));
    for (size_t i = 0; i < seatIds.size() && int(targets.size()) < options.changes; i += size_t(stride)) {
        if (i < firstStatuses.size() && firstStatuses[i] == 'a')
            targets.push_back(seatIds[i]);
    }
    std::atomic<int> writerFailures{0};
    std::atomic<int> heldPlaced{0}, releasesDone{0};
    std::thread writer([&] {
        for (const std::string &seat : targets) {
            {
                std::lock_guard lock(mutex);
                holds[seat].sentUs = monotonicUs();
            }
            std::string answer;
            const int status = blockingRequest(engine.host, engine.port, "POST", showPath + "/hold", options.token,
                                               "{\"seat_ids\":[\"" + seat + "\"]}", &answer);
            const qint64 answered = monotonicUs();
            {
                std::lock_guard lock(mutex);
                if (status == 200) {
                    holds[seat].answeredUs = answered;
                    // The hold's answer is PostgreSQL's jsonb text ("key": value, with a space): parsed, not searched.
                    holds[seat].holdId = QJsonDocument::fromJson(QByteArray::fromStdString(answer))
                                             .object().value(QStringLiteral("hold_id")).toString().toStdString();
                    ++heldPlaced;
                } else {
                    holds.erase(seat);
                }
            }
            if (status != 200)
                ++writerFailures;
            std::this_thread::sleep_for(std::chrono::milliseconds(options.intervalMs));
        }
        // Let the last held deltas arrive before the releases begin, so the two measurements do not mix.
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        std::vector<std::pair<std::string, std::string>> toRelease;
        {
            std::lock_guard lock(mutex);
            for (const auto &[seat, change] : holds)
                toRelease.emplace_back(seat, change.holdId);
        }
        for (const auto &[seat, holdId] : toRelease) {
            {
                std::lock_guard lock(mutex);
                releases[seat].sentUs = monotonicUs();
            }
            std::string answer;
            if (blockingRequest(engine.host, engine.port, "DELETE", "/api/v1/holds/" + holdId, options.token, {}, &answer) == 200)
                ++releasesDone;
            else
                ++writerFailures;
            std::this_thread::sleep_for(std::chrono::milliseconds(options.intervalMs));
        }
        writerDone = true;
    });
    pumpUntil([&] { return writerDone.load(); }, 3600 * 1000);
    writer.join();
    const size_t expectedHeld = size_t(heldPlaced.load()) * size_t(options.subscribers);
    const size_t expectedReleased = size_t(releasesDone.load()) * size_t(options.subscribers);
    pumpUntil([&] {
        std::lock_guard lock(mutex);
        return heldFromSend.size() >= expectedHeld && releasedFromSend.size() >= expectedReleased;
    }, 10000);

    Stats send, answer, released, queue;
    {
        std::lock_guard lock(mutex);
        send.latencyUs = heldFromSend;
        answer.latencyUs = heldFromAnswer;
        released.latencyUs = releasedFromSend;
        queue.latencyUs = clientQueueUs;
    }
    const size_t received = send.latencyUs.size();
    const auto line = [](Stats &stats) {
        return QStringLiteral("p50 %1  p95 %2  p99 %3  max %4 ms")
            .arg(stats.percentileMs(50), 0, 'f', 1).arg(stats.percentileMs(95), 0, 'f', 1).arg(stats.percentileMs(99), 0, 'f', 1)
            .arg(stats.maxMs(), 0, 'f', 1);
    };
    out << "  held deltas      " << received << " of " << expectedHeld << "; released deltas " << released.latencyUs.size() << " of "
        << expectedReleased << " (" << writerFailures.load() << " writes refused, " << closedEarly << " subscribers closed)\n";
    out << "  held, from sending the hold:      " << line(send) << "\n";
    out << "  held, from the hold's 200:        " << line(answer) << "\n";
    out << "  available, from sending release:  " << line(released) << "\n";
    out << "  inside this client (epoll wake to the read of that socket): " << line(queue) << "\n";
    const bool complete = received == expectedHeld && released.latencyUs.size() == expectedReleased && closedEarly == 0;
    out << "RESULT scenario=live subscribers=" << options.subscribers << " changes=" << heldPlaced.load() << " deliveries=" << received
        << " expected=" << expectedHeld << " p50_ms=" << QString::number(send.percentileMs(50), 'f', 2)
        << " p99_ms=" << QString::number(send.percentileMs(99), 'f', 2) << " max_ms=" << QString::number(send.maxMs(), 'f', 2)
        << " p99_from_200_ms=" << QString::number(answer.percentileMs(99), 'f', 2)
        << " release_p50_ms=" << QString::number(released.percentileMs(50), 'f', 2)
        << " release_p99_ms=" << QString::number(released.percentileMs(99), 'f', 2)
        << " client_queue_p99_ms=" << QString::number(queue.percentileMs(99), 'f', 2) << " complete=" << (complete ? "yes" : "NO") << Qt::endl;
    for (Subscriber &s : subscribers)
        ::close(s.fd);
    ::close(epoll);
    return complete ? 0 : 1;
}

} // namespace marquee::bench
