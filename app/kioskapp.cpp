// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskapp.h"
#include "appconfig.h"
#include "devicecredentials.h"
#include "devicepairing.h"
#include "kioskcontroller.h"
#include "kioskwalker.h"
#include "staffapp.h"

#include <QApplication>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QTextStream>
#include <QTranslator>
#include <algorithm>
#include <cstdio>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace marquee::app {

void limitMallocArenas()
{
#if defined(M_ARENA_MAX)
    if (!qEnvironmentVariableIsSet("MALLOC_ARENA_MAX")) // the operator's own setting wins
        mallopt(M_ARENA_MAX, 1);
#endif
}

namespace {
void nameApplication()
{
    // The organisation and application names make the data directory (<app data>/device.json, the journals).
    QCoreApplication::setApplicationName(QStringLiteral("marquee"));
    QCoreApplication::setOrganizationName(QStringLiteral("Marquee"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MARQUEE_VERSION));
}

} // namespace

std::optional<DeviceCredentials> runPairingScreen(const AppConfig &config)
{
    QTranslator translator;
    applyLanguage(translator, config.language);
    DevicePairing pairing(DevicePairing::Options::from(config));
    DevicePairing::setInstance(&pairing);
    std::optional<DeviceCredentials> paired;
    // The pairing window goes when the screen is left; that is no reason to end the app, whose role screens follow.
    const bool quitOnClose = QGuiApplication::quitOnLastWindowClosed();
    QGuiApplication::setQuitOnLastWindowClosed(false);
    {
        QQmlApplicationEngine engine;
        engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
        QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, QCoreApplication::instance(),
                         [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
        QObject::connect(&pairing, &DevicePairing::proceedRequested, QCoreApplication::instance(), &QCoreApplication::quit,
                         Qt::QueuedConnection);
        engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Marquee/Ui/Pairing/PairingMain.qml")));
        if (!engine.rootObjects().isEmpty() && QCoreApplication::exec() == 0)
            paired = pairing.credentials();
    }
    QCoreApplication::processEvents(); // the window's own close and deletion, before the role's window opens
    QGuiApplication::setQuitOnLastWindowClosed(quitOnClose);
    DevicePairing::setInstance(nullptr);
    QCoreApplication::removeTranslator(&translator);
    return paired;
}

int runApp(int argc, char **argv)
{
    limitMallocArenas();
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    // Help needs no display: answer it before looking for one, with a plain core application.
    static const QStringList helpOptions = {QStringLiteral("--help"), QStringLiteral("-h"), QStringLiteral("-?"), QStringLiteral("--help-all")};
    if (std::any_of(helpOptions.begin(), helpOptions.end(), [&](const QString &option) { return arguments.contains(option); })) {
        QCoreApplication application(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("marquee"));
        QCoreApplication::setApplicationVersion(QStringLiteral(MARQUEE_VERSION));
        QString help;
        bool exitNow = false;
        parseArguments(arguments, &help, &exitNow);
        QTextStream(exitNow ? stdout : stderr) << help << Qt::endl;
        return exitNow ? 0 : 2;
    }
    // Headless pairing needs no display either: the code on standard input, the credentials file, one line, exit.
    if (arguments.contains(QStringLiteral("--pair"))) {
        QCoreApplication application(argc, argv);
        nameApplication();
        QString error;
        const std::optional<AppConfig> config = parseArguments(arguments, &error);
        if (!config) {
            QTextStream(stderr) << "marquee --pair: " << error << Qt::endl;
            return 2;
        }
        return pairHeadless(DevicePairing::Options::from(*config));
    }
    const bool headless = arguments.contains(QStringLiteral("--headless"));
    const bool hasDisplay = qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY")
        || qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
    if (!hasDisplay && !headless) {
        std::fprintf(stderr, "marquee: there is no display here (no DISPLAY or WAYLAND_DISPLAY).\n"
                             "  Run it under a virtual display and walk the kiosk flow, saving screenshots:\n"
                             "    xvfb-run -a %s --headless DIR --server URL --token TOKEN\n"
                             "  or: scripts/demo --headless\n",
                     argv[0]);
        return 2;
    }
    if (!hasDisplay)
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_IM_MODULE", "qtvirtualkeyboard");

    // QApplication, not QGuiApplication: Qt Charts on the manager desk draws through Graphics View.
    QApplication application(argc, argv);
    nameApplication();

    QString error;
    bool exitNow = false;
    const std::optional<AppConfig> parsed = parseArguments(arguments, &error, &exitNow);
    if (!parsed) {
        QTextStream(exitNow ? stdout : stderr) << error << Qt::endl;
        return exitNow ? 0 : 2;
    }
    AppConfig configValue = *parsed;
    // Before any client exists: every ApiClient and live feed takes the process's policy when it is made.
    auto policy = transportPolicy(configValue, &error);
    if (!policy) {
        QTextStream(stderr) << error << Qt::endl;
        return 2;
    }
    sync::TransportPolicy::install(*policy);
    if (startupNeed(configValue) == StartupNeed::Credentials) {
        // A kiosk or till without a token: what it stored when it was paired, else the pairing screen.
        const QString path = credentialsPath(configValue);
        bool missing = false;
        std::optional<DeviceCredentials> stored = DeviceCredentials::load(path, &error, &missing);
        if (!stored && !missing) {
            QTextStream(stderr) << "marquee: " << error << Qt::endl;
            return 2;
        }
        if (!stored && !configValue.headlessDir.isEmpty()) {
            QTextStream(stderr) << "marquee: this device is not paired (" << path << "): give --token, or pair it first with "
                                   "marquee --pair --server URL" << Qt::endl;
            return 2;
        }
        if (!stored)
            stored = runPairingScreen(configValue);
        if (!stored)
            return 1; // the pairing screen was closed
        applyCredentials(configValue, *stored);
        policy = transportPolicy(configValue, &error);
        if (!policy) {
            QTextStream(stderr) << "marquee: the venue CA stored in " << path << ": " << error << Qt::endl;
            return 2;
        }
        sync::TransportPolicy::install(*policy);
    }
    const AppConfig *config = &configValue;
    if (config->allowInsecureHttp)
        QTextStream(stderr) << "warning: --allow-insecure-http: plain http:// to another machine is allowed; anyone on the network "
                               "can read and change the traffic" << Qt::endl;
    if (config->role != QLatin1String("kiosk"))
        return runStaffApp(*config);

    KioskController kiosk(*config);
    KioskController::setInstance(&kiosk);
    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &application, [] { QCoreApplication::exit(1); },
                     Qt::QueuedConnection);
    QObject::connect(&kiosk, &KioskController::exitRequested, &application, &QCoreApplication::quit, Qt::QueuedConnection);
    // QQmlApplicationEngine::loadFromModule() arrives in Qt 6.5; on 6.4 the module's Main.qml is loaded by its
    // resource path, which is exactly what loadFromModule("Marquee.Ui", "Main") resolves to.
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Marquee/Ui/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;
    auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());

    if (!config->headlessDir.isEmpty()) {
        const QStringList steps = walkKiosk(kiosk, window, config->headlessDir, &error);
        QTextStream out(stdout);
        out << "walked: " << steps.join(QStringLiteral(" → ")) << Qt::endl;
        out << "screenshots in " << config->headlessDir << Qt::endl;
        if (!error.isEmpty()) {
            QTextStream(stderr) << "stopped: " << error << Qt::endl;
            return 1;
        }
        return 0;
    }
    kiosk.start();
    return application.exec();
}

} // namespace marquee::app
