// SPDX-License-Identifier: AGPL-3.0-or-later
#include "devicecredentials.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace marquee::app {

namespace {
constexpr QFileDevice::Permissions kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
}

QString DeviceCredentials::appRole() const
{
    return role == QLatin1String("till") ? QStringLiteral("cashier") : QStringLiteral("kiosk");
}

QString DeviceCredentials::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/device.json");
}

std::optional<DeviceCredentials> DeviceCredentials::load(const QString &path, QString *error, bool *missing)
{
    if (missing)
        *missing = false;
    QFile file(path);
    if (!file.exists()) {
        if (missing)
            *missing = true;
        *error = QStringLiteral("%1 does not exist (the device is not paired)").arg(path);
        return std::nullopt;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    // Anyone else who can read the file could act as this device: refuse it rather than go on quietly.
    if (file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther)) {
        *error = QStringLiteral("%1 is readable or writable by others; it holds the device's token (chmod 600 it, or pair again)").arg(path);
        return std::nullopt;
    }
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    DeviceCredentials credentials;
    credentials.server = QUrl(json.value(QStringLiteral("server")).toString());
    credentials.token = json.value(QStringLiteral("token")).toString();
    credentials.deviceId = json.value(QStringLiteral("device_id")).toInteger();
    credentials.deviceName = json.value(QStringLiteral("device_name")).toString();
    credentials.role = json.value(QStringLiteral("role")).toString();
    credentials.caPem = json.value(QStringLiteral("venue_ca_pem")).toString().toLatin1();
    if (!credentials.server.isValid() || credentials.server.host().isEmpty() || credentials.token.isEmpty()
        || (credentials.role != QLatin1String("kiosk") && credentials.role != QLatin1String("till"))) {
        *error = QStringLiteral("%1 is not a device's credentials (server, token and role kiosk or till); pair again").arg(path);
        return std::nullopt;
    }
    return credentials;
}

bool DeviceCredentials::save(const QString &path, QString *error) const
{
    const QFileInfo info(path);
    QDir dir = info.absoluteDir();
    if (!dir.exists()) {
        if (!dir.mkpath(QStringLiteral("."))) {
            *error = QStringLiteral("cannot create %1").arg(dir.path());
            return false;
        }
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    QJsonObject json{{QStringLiteral("server"), server.toString()},
                     {QStringLiteral("token"), token},
                     {QStringLiteral("device_id"), deviceId},
                     {QStringLiteral("device_name"), deviceName},
                     {QStringLiteral("role"), role}};
    if (!caPem.isEmpty())
        json.insert(QStringLiteral("venue_ca_pem"), QString::fromLatin1(caPem));
    // QSaveFile writes a temporary file beside the target and renames it over the target on commit(): atomic.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // Owner-only before the token is written: nobody else may read the temporary file either.
    if (!file.setPermissions(kOwnerOnly)) {
        file.cancelWriting();
        *error = QStringLiteral("cannot make %1 readable by its owner alone").arg(path);
        return false;
    }
    file.write(QJsonDocument(json).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace marquee::app
