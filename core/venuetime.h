// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QLocale>
#include <QString>
#include <QTimeZone>
#include <optional>

namespace marquee {

/**
 * @brief The zone of an IANA id as the server sends it (cities.time_zone, e.g. "Asia/Kolkata"); UTC for an
 * empty or unknown id, so that a time is never silently shown in the machine's own zone.
 */
QTimeZone venueZone(const QString &ianaId);

/** @brief When a displayed venue time carries its zone's abbreviation ("13:15 IST"). */
enum class ZoneLabel {
    /**
     * Only where the wall-clock time alone could be misread: the venue's UTC offset at that instant differs from
     * the machine's (a desk in another city, or a kiosk whose clock is set to UTC), or the time is in the hour a
     * DST change repeats (02:30 happens twice in Berlin on the last Sunday of October).
     */
    WhenAmbiguous,
    Always, ///< always, for records kept beyond the moment (printed receipts, exports)
    Never,  ///< never, for labels beside a time that already carries it
};

/** @brief The zone's abbreviation at @p instant ("CEST", "CET", "IST"); "UTC+04" where tzdata has only a number. */
QString zoneAbbreviation(const QDateTime &instant, const QTimeZone &zone);

/** @brief True where ZoneLabel::WhenAmbiguous labels the time (see there). */
bool zoneLabelNeeded(const QDateTime &instant, const QTimeZone &zone);

/**
 * @brief @p instant (any QDateTime naming a moment, normally UTC from the wire) as wall-clock time in @p zone,
 * written with @p format by @p locale ("ddd d MMM HH:mm"), followed by " " and the abbreviation per @p label.
 * Empty for an invalid instant.
 */
QString venueTimeText(const QDateTime &instant, const QTimeZone &zone, const QString &format, const QLocale &locale = QLocale(),
                      ZoneLabel label = ZoneLabel::WhenAmbiguous);
/** @brief venueTimeText() with a locale's own short or long date-time format. */
QString venueTimeText(const QDateTime &instant, const QTimeZone &zone, QLocale::FormatType format, const QLocale &locale = QLocale(),
                      ZoneLabel label = ZoneLabel::WhenAmbiguous);
/** @brief The calendar day of @p instant in @p zone (a 23:30 UTC show in Kolkata is on the next day). */
QDate venueDate(const QDateTime &instant, const QTimeZone &zone);

/** @brief A wall-clock time read in a venue's zone. */
struct VenueLocalTime {
    enum class Kind {
        Exact,     ///< the time exists once
        Ambiguous, ///< the time exists twice (the clocks went back): utc is the first, earlier one
        Gap,       ///< the time does not exist (the clocks went forward): utc is invalid
        Invalid,   ///< not a date and time at all: utc is invalid
    };
    Kind kind = Kind::Invalid;
    QDateTime utc;        ///< the instant, in UTC
    QDateTime laterUtc;   ///< for Ambiguous: the second occurrence
    QString abbreviation; ///< the zone's abbreviation at utc ("CEST" for the first 02:30 in October)
};

/**
 * @brief The instant at which the clocks in @p zone show @p wallTime (its offset and zone are ignored: only its
 * date and time are read). Daylight-saving changes are found from the zone's offsets, not from Qt's own gap
 * handling (which moves a time in the gap forward without saying so).
 */
VenueLocalTime fromVenueLocal(const QDateTime &wallTime, const QTimeZone &zone);
/**
 * @brief fromVenueLocal() of text a person typed: "2026-12-05 19:30", "2026-12-05T19:30" or "…:00". A time with an
 * explicit offset or "Z" ("2026-12-05T19:30:00+05:30") names its instant already and is taken as it is (Exact).
 */
VenueLocalTime parseVenueLocal(const QString &text, const QTimeZone &zone);

} // namespace marquee
