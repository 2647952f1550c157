// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/seatnotification.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace marquee::store {

std::optional<SeatNotification> SeatNotification::parse(const QString &payload)
{
    const QJsonObject object = QJsonDocument::fromJson(payload.toUtf8()).object();
    SeatNotification notification;
    notification.showId = object.value(QStringLiteral("s")).toInteger();
    if (notification.showId <= 0)
        return std::nullopt;
    notification.origin = object.value(QStringLiteral("o")).toString();
    const QJsonArray seats = object.value(QStringLiteral("seats")).toArray();
    const std::optional<SeatStatus> status = seatStatusFromString(object.value(QStringLiteral("t")).toString());
    if (!status || seats.isEmpty())
        return notification; // the show changed: re-read it
    notification.status = status;
    notification.seatIds.reserve(seats.size());
    for (const QJsonValue &seat : seats)
        notification.seatIds << seat.toString();
    return notification;
}

std::optional<ShowNotification> ShowNotification::parse(const QString &payload)
{
    ShowNotification notification;
    const QString kind = payload.section(QLatin1Char(':'), 0, 0);
    if (kind == QLatin1String("prices"))
        notification.kind = Kind::Prices;
    else if (kind == QLatin1String("waiting_room"))
        notification.kind = Kind::WaitingRoom;
    else
        return std::nullopt;
    notification.showId = payload.section(QLatin1Char(':'), 1).toLongLong();
    if (notification.showId <= 0)
        return std::nullopt;
    return notification;
}

} // namespace marquee::store
