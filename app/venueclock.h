// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/venuetime.h"

#include <QJsonObject>
#include <QString>
#include <QTimeZone>

namespace marquee::app {

/**
 * @brief The zone of the venue this app serves: every time on its screens and tickets that belongs to no one show
 * (a shift opened, a hold made, a report finished) is shown in it. The city's time_zone from GET /api/v1/cities,
 * set when the kiosk, till or desk loads the catalogue; the machine's zone until then. GUI thread only.
 */
QTimeZone appVenueZone();
/** @brief Set appVenueZone() from an IANA id (cities.time_zone); an unknown id gives UTC (core venueZone()). */
void setAppVenueZone(const QString &ianaId);

/** @brief The zone of @p show (its "time_zone" as the server sends it), else appVenueZone(). */
QTimeZone showZone(const QJsonObject &show);

/**
 * @brief An ISO 8601 time from the wire written with @p format in @p zone (label per core venueTimeText()), or the
 * text itself when it is not a time.
 */
QString wireTimeText(const QString &isoTime, const QString &format = QStringLiteral("HH:mm"), const QTimeZone &zone = appVenueZone(),
                     ZoneLabel label = ZoneLabel::WhenAmbiguous);
/** @brief wireTimeText() with a locale's short or long format. */
QString wireTimeText(const QString &isoTime, QLocale::FormatType format, const QTimeZone &zone = appVenueZone(),
                     ZoneLabel label = ZoneLabel::WhenAmbiguous);

/**
 * @brief A day as the kiosk and till name it, in @p zone: "Today", "Tomorrow" (both relative to now in that zone)
 * or "Sat 5 Dec".
 */
QString venueDayText(const QDateTime &instant, const QTimeZone &zone);
/** @brief The locale's short time ("19:30") of @p instant in @p zone, labelled where ambiguous. */
QString venueShortTime(const QDateTime &instant, const QTimeZone &zone);
/** @brief venueDayText() and venueShortTime(): "Today 19:30", "Sat 5 Dec 13:15 IST". */
QString venueDayAndTime(const QDateTime &instant, const QTimeZone &zone);

} // namespace marquee::app
