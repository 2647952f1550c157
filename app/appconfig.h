// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <optional>

#include "sync/transportsecurity.h"

class QTranslator;

namespace marquee::app {

/** @brief Everything the app is started with: command line first, then the config file, then defaults. */
struct AppConfig {
    QString role = QStringLiteral("kiosk"); ///< kiosk | cashier | manager
    QUrl server;
    QString token;
    QUrl paysim;                            ///< marquee-paysim, for the simulated card terminal
    bool fullscreen = false;
    QString language = QStringLiteral("en");
    int idleTimeoutSeconds = 90;            ///< back to the attract screen after this long without a touch
    int requestTimeoutMs = 8000;
    int seatMapPollMs = 3000;
    QString staffPin = QStringLiteral("2580");
    bool demoPanel = true;                  ///< show the card-token simulator panel on the payment screen
    QString journalPath;                    ///< the local store (sync::LocalStore, SQLite); empty = app data location/kiosk.db
    int leaseWindowMinutes = 180;           ///< a till leases seats of shows starting within this long (0: no leases, no offline sales)
    int confirmPatienceMs = 20000;          ///< the customer waits this long for the booking after an approved card
    QString printDir;                       ///< PDF tickets and receipts go here; empty = app data location/prints
    QString escposTarget;                   ///< "" (none), a device/file path, or "tcp://host:9100"
    QString headlessDir;                    ///< --headless: walk the flow and save screenshots here
    QString cityName;                       ///< the kiosk's city; empty = the first city
    QString caFile;                         ///< --ca-file: the venue CA (marquee-admin tls init's ca.crt) HTTPS trusts, alone
    bool allowInsecureHttp = false;         ///< --allow-insecure-http: plain http:// to another machine, with a warning banner
    bool roleGiven = false;                 ///< --role (or role=) was given, not defaulted
    bool pair = false;                      ///< --pair: pair headless with the code on standard input, then exit
    QString caFingerprint;                  ///< --ca-fingerprint: the venue CA's SHA-256 the pairing checks the server against
    QString credentialsPath;                ///< --credentials: the paired device's credentials file; empty = <app data>/device.json
    QByteArray caPem;                       ///< the venue CA stored at pairing (HTTPS trusts it alone unless --ca-file is given)
    QString deviceName;                     ///< the paired device's name (from the credentials file)
};

/** @brief What the app does first with @p config (after parseArguments). */
enum class StartupNeed {
    Ready,        ///< it has what its role needs (a token, or staff sign-in for the desk)
    Credentials,  ///< a kiosk or till without a token: the stored credentials, or pairing when there are none
};

/** @brief Kiosks and tills without a token on the command line or in the config file use stored credentials. */
StartupNeed startupNeed(const AppConfig &config);

/** @brief credentialsPath, or the default <app data>/device.json. */
QString credentialsPath(const AppConfig &config);

struct DeviceCredentials;
/** @brief Take server, token, role and venue CA from @p credentials (the stored role wins over --role). */
void applyCredentials(AppConfig &config, const DeviceCredentials &credentials);

/**
 * @brief Parse @p arguments (argv, including the program name). On failure returns std::nullopt and puts a
 * message for the user in @p error; --help and --version set @p exitNow.
 */
std::optional<AppConfig> parseArguments(const QStringList &arguments, QString *error, bool *exitNow = nullptr);

/**
 * @brief The transport policy @p config asks for: the venue CA of --ca-file (loaded and checked here) and whether
 * plain http is allowed. std::nullopt with a message in @p error when the CA file is unusable.
 */
std::optional<sync::TransportPolicy> transportPolicy(const AppConfig &config, QString *error);

/**
 * @brief Show the screens in @p code ("en" or "de"): for German @p translator is loaded with the catalogue
 * (:/i18n/marquee_de.qm) and installed; for English it is removed. The default locale follows (de_DE, en_GB), so
 * prices, numbers and times are written the language's way. Call it before the first tr() of a controller.
 */
void applyLanguage(QTranslator &translator, const QString &code);

} // namespace marquee::app
