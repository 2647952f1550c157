// SPDX-License-Identifier: AGPL-3.0-or-later
#include "venuetime.h"

#include "isotime.h"

#include <QRegularExpression>
#include <algorithm>

namespace marquee {

QTimeZone venueZone(const QString &ianaId)
{
    const QTimeZone zone(ianaId.trimmed().toUtf8());
    return zone.isValid() ? zone : QTimeZone::utc();
}

QString zoneAbbreviation(const QDateTime &instant, const QTimeZone &zone)
{
    const QString abbreviation = zone.abbreviation(instant);
    // tzdata has no letters for many zones ("+04" for Asia/Dubai): say what the number is.
    if (abbreviation.isEmpty() || abbreviation.startsWith(QLatin1Char('+')) || abbreviation.startsWith(QLatin1Char('-')))
        return QStringLiteral("UTC") + (abbreviation.isEmpty() ? QString() : abbreviation);
    return abbreviation;
}

bool zoneLabelNeeded(const QDateTime &instant, const QTimeZone &zone)
{
    if (!instant.isValid())
        return false;
    if (zone.offsetFromUtc(instant) != instant.toLocalTime().offsetFromUtc())
        return true;
    const QDateTime wall = instant.toTimeZone(zone);
    return fromVenueLocal(wall, zone).kind == VenueLocalTime::Kind::Ambiguous;
}

namespace {
QString withLabel(QString text, const QDateTime &instant, const QTimeZone &zone, ZoneLabel label)
{
    if (label == ZoneLabel::Always || (label == ZoneLabel::WhenAmbiguous && zoneLabelNeeded(instant, zone)))
        text += QLatin1Char(' ') + zoneAbbreviation(instant, zone);
    return text;
}
} // namespace

QString venueTimeText(const QDateTime &instant, const QTimeZone &zone, const QString &format, const QLocale &locale, ZoneLabel label)
{
    if (!instant.isValid())
        return {};
    return withLabel(locale.toString(instant.toTimeZone(zone), format), instant, zone, label);
}

QString venueTimeText(const QDateTime &instant, const QTimeZone &zone, QLocale::FormatType format, const QLocale &locale, ZoneLabel label)
{
    if (!instant.isValid())
        return {};
    return withLabel(locale.toString(instant.toTimeZone(zone), format), instant, zone, label);
}

QDate venueDate(const QDateTime &instant, const QTimeZone &zone)
{
    return instant.isValid() ? instant.toTimeZone(zone).date() : QDate();
}

VenueLocalTime fromVenueLocal(const QDateTime &wallTime, const QTimeZone &zone)
{
    VenueLocalTime result;
    if (!wallTime.date().isValid() || !wallTime.time().isValid() || !zone.isValid())
        return result;
    // The wall time read as if it were UTC; the instant is that minus the zone's offset then. Every offset the
    // zone has within a day and a half either side is a candidate (a DST change moves it by an hour or so), and a
    // candidate counts only if the zone really has that offset at the instant it gives.
    const qint64 wallMs = QDateTime(wallTime.date(), wallTime.time(), Qt::UTC).toMSecsSinceEpoch();
    constexpr qint64 spanMs = 36LL * 3600 * 1000;
    QList<qint64> instants;
    for (const qint64 probe : {wallMs - spanMs, wallMs, wallMs + spanMs}) {
        const int offset = zone.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(probe, Qt::UTC));
        const qint64 candidate = wallMs - qint64(offset) * 1000;
        if (zone.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(candidate, Qt::UTC)) == offset && !instants.contains(candidate))
            instants.append(candidate);
    }
    std::sort(instants.begin(), instants.end());
    if (instants.isEmpty()) {
        result.kind = VenueLocalTime::Kind::Gap;
        return result;
    }
    result.kind = instants.size() == 1 ? VenueLocalTime::Kind::Exact : VenueLocalTime::Kind::Ambiguous;
    result.utc = QDateTime::fromMSecsSinceEpoch(instants.first(), Qt::UTC);
    if (instants.size() > 1)
        result.laterUtc = QDateTime::fromMSecsSinceEpoch(instants.last(), Qt::UTC);
    result.abbreviation = zoneAbbreviation(result.utc, zone);
    return result;
}

VenueLocalTime parseVenueLocal(const QString &text, const QTimeZone &zone)
{
    const QString trimmed = text.trimmed();
    static const QRegularExpression withOffset(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}T.*(Z|[+-]\\d{2}:?\\d{2})$"));
    if (withOffset.match(trimmed).hasMatch()) {
        VenueLocalTime result;
        const QDateTime instant = fromIso(trimmed);
        if (instant.isValid()) {
            result.kind = VenueLocalTime::Kind::Exact;
            result.utc = instant.toUTC();
            result.abbreviation = zoneAbbreviation(result.utc, zone);
        }
        return result;
    }
    // Date and time apart, never through a local QDateTime: that would be read in the machine's zone, where the
    // venue's wall time may fall into a gap of its own.
    static const QRegularExpression shape(QStringLiteral("^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{1,2}:\\d{2}(?::\\d{2})?)$"));
    const QRegularExpressionMatch match = shape.match(trimmed);
    if (!match.hasMatch())
        return {};
    const QDate date = QDate::fromString(match.captured(1), QStringLiteral("yyyy-MM-dd"));
    const QString timeText = match.captured(2);
    const QTime time = QTime::fromString(timeText, timeText.count(QLatin1Char(':')) == 2 ? QStringLiteral("H:mm:ss") : QStringLiteral("H:mm"));
    if (!date.isValid() || !time.isValid())
        return {};
    return fromVenueLocal(QDateTime(date, time, Qt::UTC), zone);
}

} // namespace marquee
