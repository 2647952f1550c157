// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-paysim --listen HOST:PORT --webhook-url URL --secret S [--slow-ms N] [--late-ms N] [--retry-base-ms N]
#include "paysim.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QTcpServer>
#include <csignal>
#include <cstdio>

using namespace marquee::paysim;

static int usage(const char *problem)
{
    std::fprintf(stderr,
                 "%s\nUsage: marquee-paysim --listen HOST:PORT --webhook-url URL --secret SECRET [--slow-ms N] [--late-ms N]\n"
                 "                      [--retry-base-ms N]\n"
                 "Environment: MARQUEE_PAYMENT_WEBHOOK_SECRET instead of --secret.\n",
                 problem);
    return 2;
}

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    PaySimConfig config;
    config.secret = qgetenv("MARQUEE_PAYMENT_WEBHOOK_SECRET");
    QString listen = QStringLiteral("127.0.0.1:8090");
    const QStringList args = app.arguments().mid(1);
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (i + 1 >= args.size())
            return usage("missing value or unknown option");
        const QString &option = args[i];
        const QString value = args[++i];
        bool ok = true;
        if (option == QLatin1String("--listen"))
            listen = value;
        else if (option == QLatin1String("--webhook-url"))
            config.webhookUrl = QUrl(value);
        else if (option == QLatin1String("--secret"))
            config.secret = value.toUtf8();
        else if (option == QLatin1String("--slow-ms"))
            config.slowMs = value.toInt(&ok);
        else if (option == QLatin1String("--late-ms"))
            config.lateMs = value.toInt(&ok);
        else if (option == QLatin1String("--retry-base-ms"))
            config.retryBaseMs = value.toInt(&ok);
        else
            return usage("unknown option");
        if (!ok)
            return usage("option value must be an integer");
    }
    if (config.secret.isEmpty())
        return usage("--secret is required (webhooks are always signed)");
    if (!config.webhookUrl.isValid() || config.webhookUrl.scheme().isEmpty())
        return usage("--webhook-url is required");
    const qsizetype colon = listen.lastIndexOf(QLatin1Char(':'));
    QHostAddress address(listen.left(colon) == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : listen.left(colon));
    bool portOk = false;
    const uint port = listen.mid(colon + 1).toUInt(&portOk);
    if (colon <= 0 || address.isNull() || !portOk || port > 65535)
        return usage("--listen expects HOST:PORT");

    PaySim sim(config);
    auto *tcp = new QTcpServer(&sim);
    if (!tcp->listen(address, quint16(port))) {
        std::fprintf(stderr, "marquee-paysim: cannot listen on %s: %s\n", qPrintable(listen), qPrintable(tcp->errorString()));
        return 1;
    }
    sim.bind(tcp);
    // Tests and scripts wait for this line (and read the port from it when they asked for port 0).
    std::printf("marquee-paysim listening on %s:%u\n", qPrintable(address.toString()), unsigned(tcp->serverPort()));
    std::fflush(stdout);
    return app.exec();
}
