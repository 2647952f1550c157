// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief The status of one seat of one show, as the wire format and the database spell it. Leased: leased to one
 * device (a till) that alone may sell it, online or offline, until its lease is returned or expires; to everyone
 * else it is as taken as a held seat. A client that does not know the status treats it as taken.
 */
enum class SeatStatus { Available, Held, Booked, Leased };

QString toString(SeatStatus status);
std::optional<SeatStatus> seatStatusFromString(const QString &text);
/**
 * @brief One-letter code used in compact status strings (one letter per seat, in canonical seat order: the
 * availability's "statuses" and the seat maps' in-memory copy): 'a', 'h', 'b', 'l'. Inline: it runs per seat.
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
    case SeatStatus::Leased:
        return 'l';
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
    case 'l':
        return SeatStatus::Leased;
    default:
        return std::nullopt;
    }
}

/** @brief The letters as constants, for loops over compact status strings. */
inline constexpr char kAvailableCode = seatStatusCode(SeatStatus::Available);
inline constexpr char kHeldCode = seatStatusCode(SeatStatus::Held);
inline constexpr char kBookedCode = seatStatusCode(SeatStatus::Booked);
inline constexpr char kLeasedCode = seatStatusCode(SeatStatus::Leased);

/** @brief The status names of the seat-map JSON, with their closing quote and brace, by letter ('a' for a letter no status has). */
inline const char *seatStatusJsonTail(char code)
{
    switch (code) {
    case 'h':
        return "held\"}";
    case 'b':
        return "booked\"}";
    case 'l':
        return "leased\"}";
    default:
        return "available\"}";
    }
}

} // namespace marquee
