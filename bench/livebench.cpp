// SPDX-License-Identifier: AGPL-3.0-or-later
#include "livebench.h"

#include "loadstats.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QTimer>
#include <QWebSocket>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace marquee::bench {

namespace {
qint64 monotonicUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void spin(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < timeoutMs) {
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
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
    QStringList seatIds;
    for (const QJsonValue &seat : QJsonDocument::fromJson(QByteArray::fromStdString(mapBody)).object().value(QStringLiteral("seats")).toArray())
        seatIds << seat[QStringLiteral("seat_id")].toString();

    struct Change {
        qint64 sentUs = 0;
        qint64 answeredUs = 0;
    };
    std::mutex mutex;
    std::unordered_map<std::string, Change> changes; // seat → when its hold was sent and answered
    std::vector<uint32_t> fromSend;
    std::vector<uint32_t> fromAnswer;
    int closedEarly = 0;
    int snapshots = 0;
    QString firstStatuses;

    std::vector<std::unique_ptr<QWebSocket>> sockets;
    const QUrl url(QStringLiteral("ws://%1:%2%3/live").arg(engine.host).arg(engine.port).arg(QString::fromStdString(showPath)));
    for (int i = 0; i < options.subscribers; ++i) {
        auto socket = std::make_unique<QWebSocket>();
        QWebSocket *raw = socket.get();
        QObject::connect(raw, &QWebSocket::textMessageReceived, [&](const QString &text) {
            const qint64 now = monotonicUs();
            const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
            const QString type = message.value(QStringLiteral("type")).toString();
            if (type == QLatin1String("snapshot")) {
                if (++snapshots == 1)
                    firstStatuses = message.value(QStringLiteral("statuses")).toString();
                return;
            }
            if (type != QLatin1String("delta"))
                return;
            std::lock_guard lock(mutex);
            for (const QJsonValue &change : message.value(QStringLiteral("changes")).toArray()) {
                if (change[QStringLiteral("status")].toString() != QLatin1String("held"))
                    continue;
                const auto it = changes.find(change[QStringLiteral("seat_id")].toString().toStdString());
                if (it == changes.end())
                    continue;
                fromSend.push_back(uint32_t(now - it->second.sentUs));
                // The delta may overtake the writer's own answer; then it counts as zero from the answer.
                fromAnswer.push_back(it->second.answeredUs && now > it->second.answeredUs ? uint32_t(now - it->second.answeredUs) : 0);
            }
        });
        QObject::connect(raw, &QWebSocket::disconnected, [&] { ++closedEarly; });
        QNetworkRequest request(url);
        request.setRawHeader("Authorization", "Bearer " + QByteArray::fromStdString(options.token));
        raw->open(request);
        sockets.push_back(std::move(socket));
        if (i % 50 == 49)
            spin([] { return false; }, 5); // let handshakes proceed instead of queueing a thousand at once
    }
    spin([&] { return snapshots >= options.subscribers || closedEarly > 0; }, 120000);
    if (snapshots < options.subscribers) {
        err << "marquee-load live: only " << snapshots << " of " << options.subscribers << " subscribers got a snapshot (" << closedEarly
            << " closed)\n";
        return 1;
    }
    out << options.subscribers << " subscribers on show " << options.showId << " (" << seatIds.size() << " seats); " << options.changes
        << " holds, one every " << options.intervalMs << " ms" << Qt::endl;

    // Seats still available in the first snapshot, spread over the show.
    std::vector<std::string> targets;
    const int stride = std::max(1, int(seatIds.size()) / std::max(1, options.changes * 2));
    for (int i = 0; i < seatIds.size() && int(targets.size()) < options.changes; i += stride) {
        if (i < firstStatuses.size() && firstStatuses[i] == u'a')
            targets.push_back(seatIds[i].toStdString());
    }
    std::atomic<bool> writerDone{false};
    std::atomic<int> writerFailures{0};
    std::thread writer([&] {
        for (const std::string &seat : targets) {
            {
                std::lock_guard lock(mutex);
                changes[seat].sentUs = monotonicUs();
            }
            std::string answer;
            const int status = blockingRequest(engine.host, engine.port, "POST", showPath + "/hold", options.token,
                                               "{\"seat_ids\":[\"" + seat + "\"]}", &answer);
            const qint64 answered = monotonicUs();
            {
                std::lock_guard lock(mutex);
                if (status == 200)
                    changes[seat].answeredUs = answered;
                else
                    changes.erase(seat);
            }
            if (status != 200)
                ++writerFailures;
            std::this_thread::sleep_for(std::chrono::milliseconds(options.intervalMs));
        }
        writerDone = true;
    });
    spin([&] { return writerDone.load(); }, 3600 * 1000);
    writer.join();
    size_t expected = 0;
    {
        std::lock_guard lock(mutex);
        expected = changes.size() * size_t(options.subscribers);
    }
    spin([&] {
        std::lock_guard lock(mutex);
        return fromSend.size() >= expected;
    }, 10000);

    Stats send, answer;
    {
        std::lock_guard lock(mutex);
        send.latencyUs = fromSend;
        answer.latencyUs = fromAnswer;
    }
    const size_t received = send.latencyUs.size();
    out << "  deliveries   " << received << " of " << expected << " (" << writerFailures.load() << " holds refused, " << closedEarly
        << " subscribers closed)\n";
    out << QStringLiteral("  from sending the hold:   p50 %1  p95 %2  p99 %3  max %4 ms\n")
               .arg(send.percentileMs(50), 0, 'f', 1).arg(send.percentileMs(95), 0, 'f', 1).arg(send.percentileMs(99), 0, 'f', 1)
               .arg(send.maxMs(), 0, 'f', 1);
    out << QStringLiteral("  from the hold's 200:     p50 %1  p95 %2  p99 %3  max %4 ms\n")
               .arg(answer.percentileMs(50), 0, 'f', 1).arg(answer.percentileMs(95), 0, 'f', 1).arg(answer.percentileMs(99), 0, 'f', 1)
               .arg(answer.maxMs(), 0, 'f', 1);
    const bool complete = received == expected && closedEarly == 0;
    out << "RESULT scenario=live subscribers=" << options.subscribers << " changes=" << (expected / size_t(std::max(1, options.subscribers)))
        << " deliveries=" << received << " expected=" << expected << " p50_ms=" << QString::number(send.percentileMs(50), 'f', 2)
        << " p99_ms=" << QString::number(send.percentileMs(99), 'f', 2) << " max_ms=" << QString::number(send.maxMs(), 'f', 2)
        << " p99_from_200_ms=" << QString::number(answer.percentileMs(99), 'f', 2) << " complete=" << (complete ? "yes" : "NO") << Qt::endl;
    for (auto &socket : sockets)
        socket->close();
    spin([] { return false; }, 200);
    return complete ? 0 : 1;
}

} // namespace marquee::bench
