// SPDX-License-Identifier: AGPL-3.0-or-later
#include "money.h"

#include <QStringList>
#include <limits>

namespace marquee {

std::optional<Money> Money::plus(const Money &other) const
{
    if (currency != other.currency)
        return std::nullopt;
    qint64 sum = 0;
    if (__builtin_add_overflow(minor, other.minor, &sum))
        return std::nullopt;
    return Money{sum, currency};
}

std::optional<Money> Money::times(qint64 count) const
{
    qint64 product = 0;
    if (__builtin_mul_overflow(minor, count, &product))
        return std::nullopt;
    return Money{product, currency};
}

QString Money::toDecimalString() const
{
    const int exponent = currencyExponent(currency);
    const bool negative = minor < 0;
    // Work on the unsigned magnitude so that INT64_MIN does not overflow on negation.
    const quint64 magnitude = negative ? quint64(0) - quint64(minor) : quint64(minor);
    quint64 divisor = 1;
    for (int i = 0; i < exponent; ++i)
        divisor *= 10;
    QString text = QString::number(magnitude / divisor);
    if (exponent > 0)
        text += QLatin1Char('.') + QString::number(magnitude % divisor).rightJustified(exponent, QLatin1Char('0'));
    return negative ? QLatin1Char('-') + text : text;
}

bool isCurrencyCode(const QString &code)
{
    if (code.size() != 3)
        return false;
    for (QChar c : code) {
        if (c < QLatin1Char('A') || c > QLatin1Char('Z'))
            return false;
    }
    return true;
}

int currencyExponent(const QString &code)
{
    static const QStringList zero = {QStringLiteral("JPY"), QStringLiteral("KRW"), QStringLiteral("VND"),
                                     QStringLiteral("CLP"), QStringLiteral("ISK"), QStringLiteral("UGX")};
    static const QStringList three = {QStringLiteral("KWD"), QStringLiteral("BHD"), QStringLiteral("OMR"),
                                      QStringLiteral("JOD"), QStringLiteral("TND"), QStringLiteral("IQD")};
    if (zero.contains(code))
        return 0;
    if (three.contains(code))
        return 3;
    return 2;
}

} // namespace marquee
