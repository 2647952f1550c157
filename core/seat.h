// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace marquee {

/**
 * @brief One seat of a layout as it never changes after its show is created: the one seat type of server, sync and
 * app (the app's seat map and best-available add what they need on top of it).
 */
struct Seat {
    QString seatId;        ///< unique within the show, e.g. "C7" or "112-F-14"
    QString row;           ///< the row label as printed
    int number = 0;        ///< the seat's number within its row
    double x = 0;          ///< layout units, where its centre is drawn
    double y = 0;
    QString tier;          ///< the price tier's name
    QStringList attributes; ///< e.g. "wheelchair", "companion"

    bool isWheelchair() const { return attributes.contains(QLatin1String("wheelchair")); }
    bool isCompanion() const { return attributes.contains(QLatin1String("companion")); }
};

/** @brief The seat as the wire spells it: {seat_id, row, number, x, y, tier, attributes}. */
QJsonObject toJson(const Seat &seat);

/** @brief The seat fields of a wire object (fields it lacks stay empty or zero; other fields are ignored). */
Seat seatFromJson(const QJsonObject &object);

} // namespace marquee
