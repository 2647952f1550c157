// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatstatus.h"

namespace marquee {

QString toString(SeatStatus status)
{
    switch (status) {
    case SeatStatus::Available:
        return QStringLiteral("available");
    case SeatStatus::Held:
        return QStringLiteral("held");
    case SeatStatus::Booked:
        return QStringLiteral("booked");
    case SeatStatus::Leased:
        return QStringLiteral("leased");
    }
    return {};
}

std::optional<SeatStatus> seatStatusFromString(const QString &text)
{
    if (text == QLatin1String("available"))
        return SeatStatus::Available;
    if (text == QLatin1String("held"))
        return SeatStatus::Held;
    if (text == QLatin1String("booked"))
        return SeatStatus::Booked;
    if (text == QLatin1String("leased"))
        return SeatStatus::Leased;
    return std::nullopt;
}

} // namespace marquee
