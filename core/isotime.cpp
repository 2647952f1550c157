// SPDX-License-Identifier: AGPL-3.0-or-later
#include "isotime.h"

namespace marquee {

QString toIsoUtc(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QString toIsoUtcFromMs(qint64 msSinceEpoch)
{
    constexpr qint64 kMsPerDay = 86400000;
    const qint64 days = msSinceEpoch >= 0 ? msSinceEpoch / kMsPerDay : -((-msSinceEpoch + kMsPerDay - 1) / kMsPerDay);
    const qint64 msOfDay = msSinceEpoch - days * kMsPerDay;
    // Civil date from days since 1970-01-01 (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    const qint64 z = days + 719468;
    const qint64 era = (z >= 0 ? z : z - 146096) / 146097;
    const qint64 dayOfEra = z - era * 146097;
    const qint64 yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    const qint64 dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const qint64 mp = (5 * dayOfYear + 2) / 153;
    const int day = int(dayOfYear - (153 * mp + 2) / 5 + 1);
    const int month = int(mp < 10 ? mp + 3 : mp - 9);
    const qint64 year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 1 || year > 9999) // Qt's own spelling of years it writes with other than four digits
        return toIsoUtc(QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC));

    char text[] = "0000-00-00T00:00:00.000Z";
    const auto put = [&text](int at, qint64 value, int digits) {
        for (int i = at + digits - 1; i >= at; --i, value /= 10)
            text[i] = char('0' + value % 10);
    };
    put(0, year, 4);
    put(5, month, 2);
    put(8, day, 2);
    put(11, msOfDay / 3600000, 2);
    put(14, msOfDay / 60000 % 60, 2);
    put(17, msOfDay / 1000 % 60, 2);
    put(20, msOfDay % 1000, 3);
    return QString::fromLatin1(text, 24);
}

QDateTime fromIso(const QString &text)
{
    QDateTime time = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!time.isValid())
        time = QDateTime::fromString(text, Qt::ISODate);
    // A timestamp without an offset is ambiguous on the wire: refuse it rather than guess local time.
    if (time.isValid() && time.timeSpec() == Qt::LocalTime)
        return {};
    return time;
}

} // namespace marquee
