// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-sync-bench: (1) replay of 10,000 queued actions (one-seat holds, each with its idempotency key)
// against a real in-process server after reconnect; (2) latency of journaling one printed ticket durably
// (WAL, synchronous=FULL). Figures go to docs/performance.md, section "Sync".
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <unistd.h>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QUuid>
#include <algorithm>
#include <csignal>
#include <cstdio>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("marquee.*.info=false\nmarquee.*.debug=false"));
    const int actions = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int inFlight = argc > 2 ? std::atoi(argv[2]) : 16;

    QTemporaryDir dir;
    // --- 0. the floor: one 4 KiB append + fdatasync on the same file system --------------------------------------
    {
        QFile file(dir.filePath(QStringLiteral("fsync.bin")));
        file.open(QIODevice::WriteOnly);
        const QByteArray page(4096, 'x');
        std::vector<double> ms;
        for (int i = 0; i < 500; ++i) {
            QElapsedTimer timer;
            timer.start();
            file.write(page);
            file.flush();
            ::fdatasync(file.handle());
            ms.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("raw 4 KiB append + fdatasync (500 samples): p50 %.3f ms  p99 %.3f ms\n", ms[ms.size() / 2], ms[ms.size() * 99 / 100]);
    }
    // --- 1. journaling a printed ticket ----------------------------------------------------------------------
    {
        LocalStore store;
        if (!store.open(dir.filePath(QStringLiteral("journal.db"))))
            return 2;
        std::vector<double> ms;
        for (int i = 0; i < 2000; ++i) {
            TicketRecord t;
            t.ticketId = QUuid::createUuid().toString(QUuid::WithoutBraces);
            t.bookingRef = QStringLiteral("MQ-%1").arg(i / 4);
            t.showId = 1;
            t.seatId = QStringLiteral("A%1").arg(i);
            t.qr = QStringLiteral("MQ1.") + QString(80, QLatin1Char('x')) + QStringLiteral(".") + QString(86, QLatin1Char('y'));
            QElapsedTimer timer;
            timer.start();
            if (!store.journalPrintedTickets({t}))
                return 3;
            ms.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("journal printed ticket (durable, 2000 samples): p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", ms[ms.size() / 2],
                    ms[ms.size() * 99 / 100], ms.back());
    }

    // --- 2. replay after reconnect -------------------------------------------------------------------------
    TestServer::Options serverOptions;
    serverOptions.threads = 8;
    TestServer server(serverOptions);
    const QString token = server.deviceToken();
    const int rows = (actions + 99) / 100;
    const qint64 showId = createSyncShow(server, rows, 100);
    LocalStore store;
    if (!store.open(dir.filePath(QStringLiteral("kiosk.db"))))
        return 2;
    QElapsedTimer queueTimer;
    queueTimer.start();
    store.transaction([&] {
        for (int i = 0; i < actions; ++i) {
            const int r = i / 100;
            NewAction a;
            a.kind = QStringLiteral("hold");
            a.path = ApiClient::holdPath(showId);
            const QString row = r < 26 ? QString(QChar(u'A' + r)) : QStringLiteral("R%1").arg(r);
            a.body = QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{row + QString::number(i % 100 + 1)}}};
            a.idempotencyKey = QUuid::createUuid().toString(QUuid::WithoutBraces);
            if (!store.enqueue(a))
                return false;
        }
        return true;
    });
    std::printf("queued %d actions offline in %.0f ms\n", store.pendingCount(), queueTimer.nsecsElapsed() / 1e6);

    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())));
    api.setToken(token);
    api.setConnectionPools((inFlight + 5) / 6);
    SyncEngine::Options options;
    options.recoveryProbeMs = 20;
    options.followFeeds = false;
    options.maxInFlight = inFlight;
    SyncEngine engine(store, api, options);
    QElapsedTimer timer;
    timer.start();
    double onlineAt = 0;
    QObject::connect(&engine, &SyncEngine::onlineChanged, [&](bool online) {
        if (online)
            onlineAt = timer.nsecsElapsed() / 1e6;
    });
    engine.start();
    if (!waitUntil([&] { return engine.isOnline() && engine.pendingCount() == 0 && engine.inFlight() == 0; }, 600000))
        return 4;
    const double total = timer.nsecsElapsed() / 1e6;
    const int held = server.scalar(QStringLiteral("SELECT count(*) FROM holds")).toInt();
    std::printf("replayed %d actions (%d in flight): %.0f ms from start, %.0f ms after reconnect (%.0f actions/s); holds on server: %d; parked: %d\n",
                actions, inFlight, total, total - onlineAt, actions / ((total - onlineAt) / 1000.0), held, engine.parkedCount());
    return held == actions ? 0 : 1;
}
