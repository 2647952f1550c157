// SPDX-License-Identifier: AGPL-3.0-or-later
#include "appconfig.h"
#include "applogging.h"
#include "devicecredentials.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace marquee::app {

std::optional<AppConfig> parseArguments(const QStringList &arguments, QString *error, bool *exitNow)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Marquee: lobby kiosk, box-office till and manager desk."));
    parser.addHelpOption();
    const QCommandLineOption role(QStringLiteral("role"), QStringLiteral("kiosk, cashier or manager."), QStringLiteral("ROLE"));
    const QCommandLineOption server(QStringLiteral("server"), QStringLiteral("marquee-server base URL."), QStringLiteral("URL"));
    const QCommandLineOption token(QStringLiteral("token"), QStringLiteral("Device token."), QStringLiteral("TOKEN"));
    const QCommandLineOption paysim(QStringLiteral("paysim"), QStringLiteral("marquee-paysim URL (simulated card terminal)."), QStringLiteral("URL"));
    const QCommandLineOption fullscreen(QStringLiteral("fullscreen"), QStringLiteral("Full screen (kiosk mode)."));
    const QCommandLineOption language(QStringLiteral("language"), QStringLiteral("en or de."), QStringLiteral("CODE"));
    const QCommandLineOption config(QStringLiteral("config"), QStringLiteral("INI file with the same settings."), QStringLiteral("FILE"));
    const QCommandLineOption headless(QStringLiteral("headless"), QStringLiteral("Walk the kiosk flow off screen and save screenshots to DIR."),
                                      QStringLiteral("DIR"));
    const QCommandLineOption idle(QStringLiteral("idle-timeout"), QStringLiteral("Seconds without a touch before the attract screen."),
                                  QStringLiteral("SECONDS"));
    const QCommandLineOption escpos(QStringLiteral("escpos"), QStringLiteral("ESC/POS printer: device path, file, or tcp://host:9100."),
                                    QStringLiteral("TARGET"));
    const QCommandLineOption printDir(QStringLiteral("print-dir"), QStringLiteral("Where PDF tickets are written."), QStringLiteral("DIR"));
    const QCommandLineOption journal(QStringLiteral("journal"), QStringLiteral("SQLite journal file."), QStringLiteral("FILE"));
    const QCommandLineOption caFile(QStringLiteral("ca-file"),
                                    QStringLiteral("The venue CA (ca.crt of marquee-admin tls init): HTTPS and WSS trust it alone."), QStringLiteral("PATH"));
    const QCommandLineOption allowInsecure(QStringLiteral("allow-insecure-http"),
                                           QStringLiteral("Allow plain http:// to another machine (a warning stays on screen)."));
    const QCommandLineOption pair(QStringLiteral("pair"),
                                  QStringLiteral("Pair this kiosk or till with the one-time code read from standard input (marquee-admin device add "
                                                 "--pairing prints it), store its credentials, and exit."));
    const QCommandLineOption caFingerprint(QStringLiteral("ca-fingerprint"),
                                           QStringLiteral("With --pair: the venue CA's SHA-256 fingerprint; the server is trusted only through "
                                                          "that CA from then on."),
                                           QStringLiteral("HEX"));
    const QCommandLineOption credentials(QStringLiteral("credentials"),
                                         QStringLiteral("The paired device's credentials file (default: device.json in the app's data directory)."),
                                         QStringLiteral("FILE"));
    parser.addOptions({role, server, token, paysim, fullscreen, language, config, headless, idle, escpos, printDir, journal, caFile, allowInsecure,
                       pair, caFingerprint, credentials});
    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return std::nullopt;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        *error = parser.helpText();
        if (exitNow)
            *exitNow = true;
        return std::nullopt;
    }

    AppConfig result;
    // The config file gives defaults; the command line overrides it.
    QSettings *file = nullptr;
    QSettings settings(parser.value(config), QSettings::IniFormat);
    if (parser.isSet(config)) {
        if (!QFileInfo::exists(parser.value(config))) {
            *error = QStringLiteral("The config file %1 does not exist.").arg(parser.value(config));
            return std::nullopt;
        }
        file = &settings;
    }
    auto value = [&](const QCommandLineOption &option, const QString &key, const QString &fallback) {
        if (parser.isSet(option))
            return parser.value(option);
        return file ? file->value(key, fallback).toString() : fallback;
    };
    result.roleGiven = parser.isSet(role) || (file && file->contains(QStringLiteral("role")));
    result.role = value(role, QStringLiteral("role"), result.role);
    result.pair = parser.isSet(pair);
    result.caFingerprint = value(caFingerprint, QStringLiteral("ca_fingerprint"), QString());
    result.credentialsPath = value(credentials, QStringLiteral("credentials"), QString());
    result.server = QUrl(value(server, QStringLiteral("server"), QString()));
    result.token = value(token, QStringLiteral("token"), QString());
    result.paysim = QUrl(value(paysim, QStringLiteral("paysim"), QString()));
    result.fullscreen = parser.isSet(fullscreen) || (file && file->value(QStringLiteral("fullscreen")).toBool());
    result.language = value(language, QStringLiteral("language"), result.language);
    result.headlessDir = value(headless, QStringLiteral("headless"), QString());
    result.escposTarget = value(escpos, QStringLiteral("escpos"), QString());
    result.printDir = value(printDir, QStringLiteral("print_dir"), QString());
    result.journalPath = value(journal, QStringLiteral("journal"), QString());
    result.caFile = value(caFile, QStringLiteral("ca_file"), QString());
    result.allowInsecureHttp = parser.isSet(allowInsecure) || (file && file->value(QStringLiteral("allow_insecure_http")).toBool());
    result.staffPin = file ? file->value(QStringLiteral("staff_pin"), result.staffPin).toString() : result.staffPin;
    result.cityName = file ? file->value(QStringLiteral("city")).toString() : QString();
    result.leaseWindowMinutes = file ? file->value(QStringLiteral("lease_window_minutes"), result.leaseWindowMinutes).toInt() : result.leaseWindowMinutes;
    bool ok = true;
    const int idleSeconds = value(idle, QStringLiteral("idle_timeout"), QString::number(result.idleTimeoutSeconds)).toInt(&ok);
    if (!ok || idleSeconds < 5) {
        *error = QStringLiteral("--idle-timeout must be a whole number of seconds, at least 5.");
        return std::nullopt;
    }
    result.idleTimeoutSeconds = idleSeconds;

    if (result.role != QStringLiteral("kiosk") && result.role != QStringLiteral("cashier") && result.role != QStringLiteral("manager")) {
        *error = QStringLiteral("--role must be kiosk, cashier or manager.");
        return std::nullopt;
    }
    // A kiosk or till without a token takes server and token from its stored credentials, or pairs (the pairing
    // screen asks for the server); the desk, and any device given a token, needs the server here.
    const bool serverOptional = !result.pair && startupNeed(result) == StartupNeed::Credentials && result.server.isEmpty();
    if (!serverOptional && (!result.server.isValid() || result.server.scheme().isEmpty() || result.server.host().isEmpty())) {
        *error = result.pair ? QStringLiteral("--pair needs --server URL, the address of the venue's server (https://…)")
                             : QStringLiteral("--server URL is required, for example --server http://127.0.0.1:8080");
        return std::nullopt;
    }
    if (result.language != QStringLiteral("en") && result.language != QStringLiteral("de")) {
        *error = QStringLiteral("--language must be en or de.");
        return std::nullopt;
    }
    const sync::TransportPolicy policy{result.allowInsecureHttp, std::nullopt};
    for (const QUrl &url : {result.server, result.paysim}) {
        if (const QString refused = url.isEmpty() ? QString() : policy.refusal(url); !refused.isEmpty()) {
            *error = refused.left(1).toUpper() + refused.mid(1) + QLatin1Char('.');
            return std::nullopt;
        }
    }
    return result;
}

StartupNeed startupNeed(const AppConfig &config)
{
    if (!config.token.isEmpty() || config.role == QLatin1String("manager"))
        return StartupNeed::Ready;
    return StartupNeed::Credentials;
}

QString credentialsPath(const AppConfig &config)
{
    return config.credentialsPath.isEmpty() ? DeviceCredentials::defaultPath() : config.credentialsPath;
}

void applyCredentials(AppConfig &config, const DeviceCredentials &credentials)
{
    if (config.roleGiven && config.role != credentials.appRole())
        qCWarning(lcKiosk) << "this device is paired as" << credentials.role << "- starting as" << credentials.appRole() << "not" << config.role;
    config.role = credentials.appRole();
    config.server = credentials.server;
    config.token = credentials.token;
    config.caPem = credentials.caPem;
    config.deviceName = credentials.deviceName;
}

std::optional<sync::TransportPolicy> transportPolicy(const AppConfig &config, QString *error)
{
    sync::TransportPolicy policy;
    policy.allowInsecureHttp = config.allowInsecureHttp;
    if (!config.caFile.isEmpty()) {
        policy.tls = sync::TransportPolicy::venueTls(config.caFile, error);
        if (!policy.tls)
            return std::nullopt;
    } else if (!config.caPem.isEmpty()) {
        // The venue CA verified at pairing: the only anchor from then on.
        policy.tls = sync::TransportPolicy::venueTlsFromPem(config.caPem, error);
        if (!policy.tls)
            return std::nullopt;
    }
    return policy;
}

void applyLanguage(QTranslator &translator, const QString &code)
{
    QCoreApplication::removeTranslator(&translator);
    if (code == QLatin1String("de")) {
        if (translator.load(QStringLiteral(":/i18n/marquee_de.qm")))
            QCoreApplication::installTranslator(&translator);
        else
            qCWarning(lcKiosk) << "German translation missing";
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    } else {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
    }
}

} // namespace marquee::app
