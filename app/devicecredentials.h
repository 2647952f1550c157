// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>
#include <optional>

namespace marquee::app {

/**
 * @brief What a kiosk or till keeps after pairing (POST /api/v1/devices/pair): the server, its bearer token, its
 * name and role, and the venue CA it verified the server with. One JSON file readable only by the app's own user
 * (0600, its folder 0700), replaced atomically, so a crash while saving leaves the old file or the new one, never
 * half of either.
 */
struct DeviceCredentials {
    QUrl server;
    QString token;      ///< never shown on a screen, never logged
    qint64 deviceId = 0;
    QString deviceName;
    QString role;       ///< the device's role on the server: kiosk or till
    QByteArray caPem;   ///< the venue CA (PEM) HTTPS trusts alone; empty: none was paired with (http, or the system's CAs)

    /** @brief The app's --role for this device: kiosk for a kiosk, cashier for a till. */
    QString appRole() const;

    /** @brief Where they live unless --credentials says otherwise: <app data>/device.json. */
    static QString defaultPath();
    /** @brief Read @p path; std::nullopt with @p error when it is missing (then @p missing is set) or unusable. */
    static std::optional<DeviceCredentials> load(const QString &path, QString *error, bool *missing = nullptr);
    /** @brief Write to @p path atomically, 0600 before the first byte; false with @p error otherwise. */
    bool save(const QString &path, QString *error) const;
};

} // namespace marquee::app
