// SPDX-License-Identifier: AGPL-3.0-or-later
#include "isotime.h"

namespace marquee {

QString toIsoUtc(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
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
