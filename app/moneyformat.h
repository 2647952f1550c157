// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QString>

namespace marquee::app {

/**
 * @brief "€12.50" / "12,50 €" for @p minor units of @p currency in @p locale. Display only: the amount stays an
 * integer everywhere else (the double here is exact for any realistic price).
 */
QString formatMoney(qint64 minor, const QString &currency, const QLocale &locale = QLocale());

} // namespace marquee::app
