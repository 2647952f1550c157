// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-sync-bench: (1) latency of journaling one printed ticket durably (WAL, synchronous=FULL) next to the
// disk's own durable-write latency; (2) replay of N queued actions (one-seat holds, each with its idempotency
// key) against a real in-process server after reconnect, next to the same holds placed straight through the
// server's HoldRepository (no HTTP, no sync engine) by as many threads as the server has. Figures go to
// the table of docs/performance.md, each run as a dated section of docs/perf/journal.md.
//
//   marquee-sync-bench [actions=10000] [in-flight=64] [server-threads=32] [rounds=1] [journal-samples=2000] [batch=25]
//                      [batches-in-flight=16]
// batch = actions per POST /api/v1/sync/batch (1: one request per action, the engine before batching).
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QThread>
#include <QUuid>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

namespace {

QString loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("?");
    return QString::fromLatin1(file.readAll()).section(QLatin1Char(' '), 0, 2);
}

struct Percentiles {
    double p50 = 0, p99 = 0, max = 0, over5 = 0;
};
Percentiles percentiles(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    Percentiles p;
    p.p50 = ms[ms.size() / 2];
    p.p99 = ms[ms.size() * 99 / 100];
    p.max = ms.back();
    p.over5 = 100.0 * std::count_if(ms.begin(), ms.end(), [](double v) { return v > 5.0; }) / ms.size();
    return p;
}
void printLatency(const char *what, int samples, const Percentiles &p)
{
    std::printf("%-44s (%d samples): p50 %6.3f ms  p99 %6.3f ms  max %7.3f ms  >5 ms %4.1f %%\n", what, samples, p.p50, p.p99, p.max, p.over5);
}

// The disk's floor for one durable write: 4 KiB written and fdatasync'ed. "overwrite" rewrites blocks of a file
// that already has its size (what a WAL that is reused costs); "append" grows the file each time, so every
// fdatasync also commits the new size to the file system journal (what a growing WAL costs).
Percentiles durableWriteFloor(const QString &path, bool append, int samples)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const QByteArray page(4096, 'x');
    constexpr int kBlocks = 256;
    if (!append) {
        for (int i = 0; i < kBlocks; ++i)
            (void)!::write(fd, page.constData(), page.size());
        ::fsync(fd);
    }
    std::vector<double> ms;
    for (int i = 0; i < samples; ++i) {
        QElapsedTimer timer;
        timer.start();
        if (append)
            (void)!::write(fd, page.constData(), page.size());
        else
            (void)!::pwrite(fd, page.constData(), page.size(), static_cast<off_t>(i % kBlocks) * page.size());
        ::fdatasync(fd);
        ms.push_back(timer.nsecsElapsed() / 1e6);
    }
    ::close(fd);
    return percentiles(ms);
}

Percentiles journalLatency(const QString &path, int samples)
{
    LocalStore store;
    if (!store.open(path))
        std::exit(2);
    std::vector<double> ms;
    for (int i = 0; i < samples; ++i) {
        TicketRecord t;
        t.ticketId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        t.bookingRef = QStringLiteral("MQ-%1").arg(i / 4);
        t.showId = 1;
        t.seatId = QStringLiteral("A%1").arg(i);
        t.qr = QStringLiteral("MQ1.") + QString(80, QLatin1Char('x')) + QStringLiteral(".") + QString(86, QLatin1Char('y'));
        QElapsedTimer timer;
        timer.start();
        if (!store.journalPrintedTickets({t}))
            std::exit(3);
        ms.push_back(timer.nsecsElapsed() / 1e6);
    }
    return percentiles(ms);
}

QString seatOf(int i)
{
    const int r = i / 100;
    const QString row = r < 26 ? QString(QChar(u'A' + r)) : QStringLiteral("R%1").arg(r);
    return row + QString::number(i % 100 + 1);
}

// The anchor: the same one-seat holds placed straight through the server's own repository (mq_place_hold, one
// PostgreSQL commit each) by @p threads threads, i.e. what the database can do without HTTP and the sync engine.
double anchorHoldsPerSecond(TestServer &server, int actions, int threads)
{
    const qint64 showId = server.createShow((actions + 99) / 100, 100);
    std::atomic<int> next{0};
    std::atomic<int> ok{0};
    QElapsedTimer timer;
    timer.start();
    std::vector<std::unique_ptr<QThread>> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back(QThread::create([&] {
            for (int i = next++; i < actions; i = next++) {
                const QString seat = seatOf(i);
                const QByteArray hash = QCryptographicHash::hash(QByteArray::number(showId) + '|' + seat.toUtf8(), QCryptographicHash::Sha256).toHex();
                const auto outcome = server.context().holds.placeHold(QStringLiteral("device:anchor"), QUuid::createUuid().toString(QUuid::WithoutBraces),
                                                                      hash, showId, {seat}, 480);
                if (outcome.ok && outcome.verdict == store::HoldVerdict::Granted)
                    ++ok;
            }
            server.context().database.closeThreadConnection();
        }));
        workers.back()->start();
    }
    for (auto &worker : workers)
        worker->wait();
    const double seconds = timer.nsecsElapsed() / 1e9;
    if (ok != actions)
        std::printf("anchor: only %d of %d holds placed\n", ok.load(), actions);
    return actions / seconds;
}

struct ReplayRun {
    double ms = 0;
    int held = 0;
    int parked = 0;
    int reconnects = 0; ///< times the engine came online (1: it never went offline during the replay)
};

ReplayRun replay(TestServer &server, const QString &token, const QString &dbPath, int actions, int inFlight, int batch, int batchesInFlight)
{
    const qint64 showId = server.createShow((actions + 99) / 100, 100);
    LocalStore store;
    if (!store.open(dbPath))
        std::exit(2);
    QStringList keys;
    store.transaction([&] {
        for (int i = 0; i < actions; ++i) {
            NewAction a;
            a.kind = QStringLiteral("hold");
            a.path = ApiClient::holdPath(showId);
            a.body = QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{seatOf(i)}}};
            a.idempotencyKey = QUuid::createUuid().toString(QUuid::WithoutBraces);
            if (!store.enqueue(a))
                return false;
        }
        return true;
    });
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())));
    api.setToken(token);
    api.setConnectionPools((inFlight + 5) / 6);
    SyncEngine::Options options;
    options.recoveryProbeMs = 20;
    options.followFeeds = false;
    options.maxInFlight = inFlight;
    options.batchActions = batch;
    options.batchesInFlight = batchesInFlight;
    SyncEngine engine(store, api, options);
    QElapsedTimer timer;
    timer.start();
    // From the first reconnect: under load a probe or a request can time out and the engine go offline and back,
    // and that time belongs to the replay too.
    double onlineAt = -1;
    int reconnects = 0;
    QObject::connect(&engine, &SyncEngine::onlineChanged, [&](bool online) {
        if (online && onlineAt < 0)
            onlineAt = timer.nsecsElapsed() / 1e6;
        reconnects += online ? 1 : 0;
    });
    engine.start();
    if (!waitUntil([&] { return engine.isOnline() && engine.pendingCount() == 0 && engine.inFlight() == 0; }, 900000))
        std::exit(4);
    ReplayRun run;
    run.ms = timer.nsecsElapsed() / 1e6 - onlineAt;
    run.held = server.scalar(QStringLiteral("SELECT count(*) FROM holds WHERE show_id = %1").arg(showId)).toInt();
    run.parked = engine.parkedCount();
    run.reconnects = reconnects;
    return run;
}

} // namespace

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("marquee.*.info=false\nmarquee.*.debug=false"));
    const int actions = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int inFlight = argc > 2 ? std::atoi(argv[2]) : 64;
    const int serverThreads = argc > 3 ? std::atoi(argv[3]) : 32;
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 1;
    const int journalSamples = argc > 5 ? std::atoi(argv[5]) : 2000;
    const int batch = argc > 6 ? std::atoi(argv[6]) : 25;
    const int batchesInFlight = argc > 7 ? std::atoi(argv[7]) : 16;

    QTemporaryDir dir;
    std::printf("load average before: %s\n", qPrintable(loadAverage()));
    // --- 1. journaling a printed ticket, between its two anchors -----------------------------------------------
    if (journalSamples > 0) {
        for (int round = 1; round <= rounds; ++round) {
            const Percentiles overwrite = durableWriteFloor(dir.filePath(QStringLiteral("floor.bin")), false, journalSamples / 2);
            const Percentiles journal = journalLatency(dir.filePath(QStringLiteral("journal-%1.db").arg(round)), journalSamples);
            const Percentiles append = durableWriteFloor(dir.filePath(QStringLiteral("append.bin")), true, journalSamples / 2);
            std::printf("journal round %d (load %s)\n", round, qPrintable(loadAverage()));
            printLatency("  disk: 4 KiB overwrite + fdatasync", journalSamples / 2, overwrite);
            printLatency("  disk: 4 KiB append + fdatasync", journalSamples / 2, append);
            printLatency("  journal a printed ticket (durable)", journalSamples, journal);
            std::printf("  ratio journal p99 / overwrite p99: %.2f\n", journal.p99 / overwrite.p99);
        }
    }
    if (actions <= 0)
        return 0;

    // --- 2. replay after reconnect, next to the repository anchor -------------------------------------------------
    TestServer::Options serverOptions;
    serverOptions.threads = serverThreads;
    TestServer server(serverOptions);
    const QString token = server.deviceToken();
    bool allHeld = true;
    for (int round = 1; round <= rounds; ++round) {
        const QString before = loadAverage();
        const ReplayRun run = replay(server, token, dir.filePath(QStringLiteral("kiosk-%1.db").arg(round)), actions, inFlight, batch, batchesInFlight);
        const double anchor = anchorHoldsPerSecond(server, actions, serverThreads);
        const double rate = actions / (run.ms / 1000.0);
        std::printf("replay round %d (load %s → %s): %d actions (%d in flight, batches of %d, %d batches in flight, server threads %d) in %.0f ms "
                    "after reconnect = %.0f actions/s (came online %d times); holds on server %d, parked %d | anchor: repository holds with %d threads %.0f/s | ratio %.2f\n",
                    round, qPrintable(before), qPrintable(loadAverage()), actions, inFlight, batch, batchesInFlight, serverThreads, run.ms, rate,
                    run.reconnects, run.held, run.parked,
                    serverThreads, anchor, rate / anchor);
        std::fflush(stdout);
        allHeld = allHeld && run.held == actions && run.parked == 0;
    }
    return allHeld ? 0 : 1;
}
