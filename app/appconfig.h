// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

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
};

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
