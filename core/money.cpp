// SPDX-License-Identifier: AGPL-3.0-or-later
#include "money.h"

#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <limits>

namespace marquee {

namespace {
quint64 powerOfTen(int exponent)
{
    quint64 value = 1;
    for (int i = 0; i < exponent; ++i)
        value *= 10;
    return value;
}

// The C locale has no currency conventions of its own (it writes "800.00₹"); amounts read like en_GB instead.
QLocale moneyLocale(const QLocale &locale)
{
    return locale.language() == QLocale::C ? QLocale(QLocale::English, QLocale::UnitedKingdom) : locale;
}
} // namespace

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
    const quint64 divisor = powerOfTen(exponent);
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
    // ISO 4217 minor units that differ from 2 (list one, current codes in use).
    static const QStringList zero = {QStringLiteral("BIF"), QStringLiteral("CLP"), QStringLiteral("DJF"), QStringLiteral("GNF"),
                                     QStringLiteral("ISK"), QStringLiteral("JPY"), QStringLiteral("KMF"), QStringLiteral("KRW"),
                                     QStringLiteral("PYG"), QStringLiteral("RWF"), QStringLiteral("UGX"), QStringLiteral("UYI"),
                                     QStringLiteral("VND"), QStringLiteral("VUV"), QStringLiteral("XAF"), QStringLiteral("XOF"),
                                     QStringLiteral("XPF")};
    static const QStringList three = {QStringLiteral("BHD"), QStringLiteral("IQD"), QStringLiteral("JOD"), QStringLiteral("KWD"),
                                      QStringLiteral("LYD"), QStringLiteral("OMR"), QStringLiteral("TND")};
    if (zero.contains(code))
        return 0;
    if (three.contains(code))
        return 3;
    return 2;
}


QString currencySymbol(const QString &currency, const QLocale &given)
{
    const QLocale locale = moneyLocale(given);
    if (locale.currencySymbol(QLocale::CurrencyIsoCode) == currency)
        return locale.currencySymbol(QLocale::CurrencySymbol);
    static const QHash<QString, QString> unambiguous = {{QStringLiteral("EUR"), QStringLiteral("€")},
                                                        {QStringLiteral("GBP"), QStringLiteral("£")},
                                                        {QStringLiteral("INR"), QStringLiteral("₹")},
                                                        {QStringLiteral("JPY"), QStringLiteral("¥")},
                                                        {QStringLiteral("USD"), QStringLiteral("$")}};
    return unambiguous.value(currency, currency);
}

QString formatMoney(qint64 minor, const QString &currency, const QLocale &given)
{
    const QLocale locale = moneyLocale(given);
    const int exponent = currencyExponent(currency);
    const bool negative = minor < 0;
    // The unsigned magnitude, so that INT64_MIN does not overflow on negation.
    const quint64 magnitude = negative ? quint64(0) - quint64(minor) : quint64(minor);
    const quint64 divisor = powerOfTen(exponent);
    QString number = locale.toString(magnitude / divisor);
    if (exponent > 0) {
        QString fraction = locale.toString(magnitude % divisor);
        while (fraction.size() < exponent) // one UTF-16 unit per digit in every locale Qt knows with non-Latin digits
            fraction.prepend(locale.zeroDigit());
        number += locale.decimalPoint() + fraction;
    }
    // The locale's currency pattern (symbol before or after, the space), taken from its integer formatting of 1,
    // with the digit replaced by the exact text above: no double anywhere. A negative amount is that with the
    // locale's minus sign in front, never the accounting parentheses some locales' patterns have ("($5.00)" in
    // en_US): on a receipt or a till a bracketed amount reads as a note, not as money going back.
    const QString symbol = currencySymbol(currency, locale);
    const QString sample = locale.toCurrencyString(qlonglong(1), symbol);
    const QString one = locale.toString(1);
    const qsizetype at = sample.lastIndexOf(one);
    const QString text = at < 0 ? symbol + number : sample.left(at) + number + sample.mid(at + one.size());
    return negative ? locale.negativeSign() + text : text;
}

QString formatMoney(const Money &amount, const QLocale &locale)
{
    return formatMoney(amount.minor, amount.currency, locale);
}

std::optional<qint64> parseAmountInput(const QString &text, int decimals)
{
    QString cleaned = text.trimmed();
    cleaned.remove(QLatin1Char(' '));
    cleaned.remove(QChar(0x00A0));
    cleaned.remove(QChar(0x202F));
    if (cleaned.isEmpty() || decimals < 0 || decimals > 3)
        return std::nullopt;
    // One decimal separator at most ('.' or ','), digits only otherwise; nine integer digits keep any sum far
    // from overflow.
    static const QRegularExpression shape(QStringLiteral("^(\\d{1,9})(?:[.,](\\d*))?$"));
    const QRegularExpressionMatch match = shape.match(cleaned);
    if (!match.hasMatch())
        return std::nullopt;
    const QString fraction = match.captured(2);
    if (fraction.size() > decimals)
        return std::nullopt;
    const qint64 scale = qint64(powerOfTen(decimals));
    qint64 minor = match.captured(1).toLongLong() * scale;
    qint64 fractionScale = scale;
    for (QChar digit : fraction) {
        fractionScale /= 10;
        minor += digit.digitValue() * fractionScale;
    }
    return minor;
}

std::optional<qint64> parseMoneyInput(const QString &text, const QString &currency)
{
    return parseAmountInput(text, currencyExponent(currency));
}

QString moneyInputText(qint64 minor, const QString &currency)
{
    return Money{minor, currency}.toDecimalString();
}

} // namespace marquee
