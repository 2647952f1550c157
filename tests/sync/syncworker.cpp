// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-sync-worker: a process that owns a sync queue and replays it until it is empty, then exits 0.
// The kill -9 test starts it, kills it mid-replay and starts it again on the same file.
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/syncengine.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>
#include <cstdio>

using namespace marquee::sync;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("db"), QStringLiteral("SQLite file"), QStringLiteral("path")});
    parser.addOption({QStringLiteral("url"), QStringLiteral("server base URL"), QStringLiteral("url")});
    parser.addOption({QStringLiteral("token"), QStringLiteral("device token"), QStringLiteral("token")});
    parser.addOption({QStringLiteral("in-flight"), QStringLiteral("parallel requests"), QStringLiteral("n"), QStringLiteral("4")});
    parser.addOption({QStringLiteral("batch"), QStringLiteral("actions per POST /api/v1/sync/batch (1: one request per action)"), QStringLiteral("n"),
                      QStringLiteral("25")});
    parser.process(app);

    LocalStore store;
    if (!store.open(parser.value(QStringLiteral("db")))) {
        std::fprintf(stderr, "cannot open store: %s\n", qPrintable(store.errorString()));
        return 2;
    }
    ApiClient api(QUrl(parser.value(QStringLiteral("url"))));
    api.setToken(parser.value(QStringLiteral("token")));
    api.setTimeoutMs(3000);
    SyncEngine::Options options;
    options.probeIntervalMs = 200;
    options.recoveryProbeMs = 20;
    options.backoffBaseMs = 20;
    options.backoffMaxMs = 500;
    options.followFeeds = false;
    options.maxInFlight = parser.value(QStringLiteral("in-flight")).toInt();
    options.batchActions = parser.value(QStringLiteral("batch")).toInt();
    SyncEngine engine(store, api, options);
    QObject::connect(&engine, &SyncEngine::drained, &app, [&] {
        if (store.pendingCount() == 0) {
            std::printf("drained\n");
            std::fflush(stdout);
            QCoreApplication::exit(0);
        }
    });
    engine.start();
    return app.exec();
}
