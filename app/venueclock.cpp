// SPDX-License-Identifier: AGPL-3.0-or-later
#include "venueclock.h"

#include "core/isotime.h"

#include <QObject>
#include <optional>

namespace marquee::app {

namespace {
std::optional<QTimeZone> &zoneStore()
{
    static std::optional<QTimeZone> zone;
    return zone;
}
} // namespace

QTimeZone appVenueZone()
{
    const std::optional<QTimeZone> &zone = zoneStore();
    return zone ? *zone : QTimeZone::systemTimeZone();
}

void setAppVenueZone(const QString &ianaId)
{
    zoneStore() = venueZone(ianaId);
}

QTimeZone showZone(const QJsonObject &show)
{
    const QString id = show.value(QStringLiteral("time_zone")).toString();
    return id.isEmpty() ? appVenueZone() : venueZone(id);
}

QString wireTimeText(const QString &isoTime, const QString &format, const QTimeZone &zone, ZoneLabel label)
{
    const QDateTime time = fromIso(isoTime);
    return time.isValid() ? venueTimeText(time, zone, format, QLocale(), label) : isoTime;
}

QString wireTimeText(const QString &isoTime, QLocale::FormatType format, const QTimeZone &zone, ZoneLabel label)
{
    const QDateTime time = fromIso(isoTime);
    return time.isValid() ? venueTimeText(time, zone, format, QLocale(), label) : isoTime;
}

QString venueDayText(const QDateTime &instant, const QTimeZone &zone)
{
    const QDate day = venueDate(instant, zone);
    const QDate today = venueDate(QDateTime::currentDateTimeUtc(), zone);
    if (day == today)
        return QObject::tr("Today");
    if (day == today.addDays(1))
        return QObject::tr("Tomorrow");
    return QLocale().toString(day, QObject::tr("ddd d MMM", "date format"));
}

QString venueShortTime(const QDateTime &instant, const QTimeZone &zone)
{
    return venueTimeText(instant, zone, QLocale().timeFormat(QLocale::ShortFormat));
}

QString venueDayAndTime(const QDateTime &instant, const QTimeZone &zone)
{
    return instant.isValid() ? venueDayText(instant, zone) + QLatin1Char(' ') + venueShortTime(instant, zone) : QString();
}

} // namespace marquee::app
