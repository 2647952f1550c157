// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seat.h"

#include <QJsonArray>

namespace marquee {

QJsonObject toJson(const Seat &seat)
{
    return QJsonObject{{QStringLiteral("seat_id"), seat.seatId},
                       {QStringLiteral("row"), seat.row},
                       {QStringLiteral("number"), seat.number},
                       {QStringLiteral("x"), seat.x},
                       {QStringLiteral("y"), seat.y},
                       {QStringLiteral("tier"), seat.tier},
                       {QStringLiteral("attributes"), QJsonArray::fromStringList(seat.attributes)}};
}

Seat seatFromJson(const QJsonObject &object)
{
    Seat seat;
    seat.seatId = object.value(QStringLiteral("seat_id")).toString();
    seat.row = object.value(QStringLiteral("row")).toString();
    seat.number = object.value(QStringLiteral("number")).toInt();
    seat.x = object.value(QStringLiteral("x")).toDouble();
    seat.y = object.value(QStringLiteral("y")).toDouble();
    seat.tier = object.value(QStringLiteral("tier")).toString();
    for (const QJsonValue &attribute : object.value(QStringLiteral("attributes")).toArray())
        seat.attributes.append(attribute.toString());
    return seat;
}

} // namespace marquee
