// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/** @brief The status of one seat of one show, as the wire format and the database spell it. */
enum class SeatStatus { Available, Held, Booked };

QString toString(SeatStatus status);
std::optional<SeatStatus> seatStatusFromString(const QString &text);
/** @brief One-letter code used in compact status strings: 'a', 'h', 'b'. */
char seatStatusCode(SeatStatus status);
std::optional<SeatStatus> seatStatusFromCode(char code);

} // namespace marquee
