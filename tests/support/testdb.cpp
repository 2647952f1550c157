// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-testdb start|stop DIR: one shared throw-away PostgreSQL cluster for a whole CTest run (a CTest
// fixture starts and stops it; test processes find it through MARQUEE_TEST_PGDIR).
#include "store/embeddedpostgres.h"

#include <QCoreApplication>
#include <QDir>
#include <QTextStream>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    QTextStream err(stderr);
    if (args.size() != 3 || (args[1] != QLatin1String("start") && args[1] != QLatin1String("stop"))) {
        err << "usage: marquee-testdb start|stop DIR\n";
        return 2;
    }
    marquee::store::EmbeddedPostgres cluster(args[2]);
    if (args[1] == QLatin1String("start")) {
        // A cluster left by an interrupted run is reused; otherwise a fresh one is created.
        cluster.setAdoptRunning(false);
        if (!cluster.start()) {
            err << "marquee-testdb: " << cluster.errorString() << "\n";
            return 1;
        }
        QTextStream(stdout) << cluster.socketDirectory() << Qt::endl;
        // Leave it running for the test processes: forget that this process started it.
        std::exit(0);
    }
    cluster.setAdoptRunning(true);
    if (!cluster.start()) {
        err << "marquee-testdb: nothing to stop: " << cluster.errorString() << "\n";
        return 0;
    }
    // Immediate: the cluster is thrown away next, so the shutdown checkpoint a clean stop writes (and syncs) would
    // be wasted; it used to take 20-200 s at the end of every run.
    cluster.kill();
    QDir(args[2]).removeRecursively();
    return 0;
}
