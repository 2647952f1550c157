// SPDX-License-Identifier: AGPL-3.0-or-later
#include "moneyformat.h"

#include "core/money.h"

#include <cmath>

namespace marquee::app {

QString formatMoney(qint64 minor, const QString &currency, const QLocale &locale)
{
    const int exponent = currencyExponent(currency);
    const double major = double(minor) / std::pow(10.0, exponent);
    QString symbol = currency;
    // The locale's own symbol when the locale uses this currency; else the ISO code (clear for tourists).
    if (locale.currencySymbol(QLocale::CurrencyIsoCode) == currency)
        symbol = locale.currencySymbol(QLocale::CurrencySymbol);
    else if (currency == QLatin1String("EUR"))
        symbol = QStringLiteral("€");
    else if (currency == QLatin1String("USD"))
        symbol = QStringLiteral("$");
    else if (currency == QLatin1String("GBP"))
        symbol = QStringLiteral("£");
    else if (currency == QLatin1String("INR"))
        symbol = QStringLiteral("₹");
    return locale.toCurrencyString(major, symbol, exponent);
}

} // namespace marquee::app
