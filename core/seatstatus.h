// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/** @brief The status of one seat of one show, as the wire format and the database spell it. */
enum class SeatStatus { Available, Held, Booked };

QString toString(SeatStatus status);
std::optional<SeatStatus> seatStatusFromString(const QString &text);
/**
 * @brief One-letter code used in compact status strings (one letter per seat, in canonical seat order: the
 * availability's "statuses" and the seat maps' in-memory copy): 'a', 'h', 'b'. Inline: it runs per seat.
 */
constexpr char seatStatusCode(SeatStatus status)
{
    switch (status) {
    case SeatStatus::Available:
        return 'a';
    case SeatStatus::Held:
        return 'h';
    case SeatStatus::Booked:
        return 'b';
    }
    return '?';
}

/** @brief The status a letter of a compact status string stands for; nullopt for a letter no status has. */
constexpr std::optional<SeatStatus> seatStatusFromCode(char code)
{
    switch (code) {
    case 'a':
        return SeatStatus::Available;
    case 'h':
        return SeatStatus::Held;
    case 'b':
        return SeatStatus::Booked;
    default:
        return std::nullopt;
    }
}

/** @brief The letters as constants, for loops over compact status strings. */
inline constexpr char kAvailableCode = seatStatusCode(SeatStatus::Available);
inline constexpr char kHeldCode = seatStatusCode(SeatStatus::Held);
inline constexpr char kBookedCode = seatStatusCode(SeatStatus::Booked);

} // namespace marquee
