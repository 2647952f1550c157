// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-server: parse options, run MarqueeServer until SIGINT/SIGTERM.
#include "startup/signalwatcher.h"
#include "startup/marqueeserver.h"
#include "startup/privileges.h"
#include "logging.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QTextStream>
#include <csignal>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("marquee"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MARQUEE_VERSION));
    ::signal(SIGPIPE, SIG_IGN);
    QTextStream err(stderr);
    QString error;
    const auto config = marquee::ServerConfig::fromArguments(app.arguments().mid(1), &error);
    if (!config) {
        if (!error.isEmpty())
            err << "marquee-server: " << error << "\n\n";
        err << marquee::ServerConfig::usage();
        return error.isEmpty() ? 0 : 2;
    }
    marquee::installLogFormat(config->logFormat);
    // Before anything is opened or created: files made from here on belong to the user the server runs as.
    if (!marquee::settleUser(config->runAsUser, config->dataDirectory, &error)) {
        err << "marquee-server: " << error << "\n";
        return 1;
    }
    for (const QString &warning : config->warnings)
        qCWarning(lcStore).noquote() << warning;
    // Before QT_LOGGING_RULES in Qt's order of rules, so the environment can still turn the lines on.
    if (!config->accessLog)
        QLoggingCategory::setFilterRules(QStringLiteral("marquee.http.debug=false"));
    marquee::MarqueeServer server(*config);
    marquee::SignalWatcher signals;
    QObject::connect(&signals, &marquee::SignalWatcher::terminationRequested, &app, &QCoreApplication::quit);
    if (!server.start()) {
        err << "marquee-server: " << server.errorString() << "\n";
        return 1;
    }
    QTextStream(stdout) << "marquee-server listening on http://" << config->listenAddress.toString() << ':' << server.port()
                        << " (database " << server.databaseUrl() << ")" << Qt::endl;
    const int rc = app.exec();
    server.stop();
    return rc;
}
