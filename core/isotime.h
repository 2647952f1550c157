// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QString>

namespace marquee {

/** @brief ISO 8601 in UTC with milliseconds and a 'Z' suffix, the wire format of every timestamp. */
QString toIsoUtc(const QDateTime &time);
/**
 * @brief toIsoUtc() of the instant @p msSinceEpoch, written without a QDateTime: for reports of thousands of rows,
 * where building, converting and formatting a QDateTime per value showed in the profile.
 */
QString toIsoUtcFromMs(qint64 msSinceEpoch);
/** @brief Parse an ISO 8601 timestamp with an offset or 'Z'; an invalid QDateTime on bad input. */
QDateTime fromIso(const QString &text);

} // namespace marquee
