// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief An amount of money: integer minor units of an ISO 4217 currency. Never a float.
 */
struct Money {
    qint64 minor = 0;
    QString currency; ///< ISO 4217 code, three upper-case letters.

    bool operator==(const Money &) const = default;

    /** @brief Sum of two amounts; std::nullopt when the currencies differ or the sum overflows. */
    std::optional<Money> plus(const Money &other) const;
    /** @brief The amount times @p count; std::nullopt on overflow. */
    std::optional<Money> times(qint64 count) const;
    /** @brief Plain decimal text such as "12.50" (no symbol), using the currency's minor-unit exponent. */
    QString toDecimalString() const;
};

/** @brief True for a syntactically valid ISO 4217 code (three ASCII upper-case letters). */
bool isCurrencyCode(const QString &code);

/**
 * @brief Number of minor-unit digits for a currency by ISO 4217: 0 for JPY, KRW, ISK, CLP, VND, UGX, XAF…;
 * 3 for BHD, KWD, OMR, JOD, TND, IQD, LYD; 2 for every other code.
 */
int currencyExponent(const QString &code);

/**
 * @brief The symbol shown for @p currency in @p locale: the locale's own symbol when the locale uses this
 * currency ("€" in de_DE), else a symbol nobody misreads ("€", "£", "₹", "¥" for EUR, GBP, INR, JPY, "$" for
 * USD), else the ISO code itself ("CHF", "KWD").
 */
QString currencySymbol(const QString &currency, const QLocale &locale = QLocale());

/**
 * @brief The display text of @p minor units of @p currency in @p locale: "₹1,250.00" (en_GB), "1.250,00 ₹"
 * (de_DE), "¥1,500", "KWD1.500", negatives with the locale's minus in front ("-₹5.00", "-12,50 €", never
 * "(₹5.00)"). The locale gives the digits, separators and where the symbol goes; the currency's exponent gives the decimals. Integer arithmetic only,
 * exact for every qint64 including its minimum. The C locale (no LANG set) is written like en_GB, so that every
 * screen of a machine shows amounts one way.
 */
QString formatMoney(qint64 minor, const QString &currency, const QLocale &locale = QLocale());
/** @brief formatMoney() of @p amount. */
QString formatMoney(const Money &amount, const QLocale &locale = QLocale());

/**
 * @brief An amount typed by a person ("40", "40.5", "40,50", "1 234.00") → minor units of a currency with
 * @p decimals minor digits, or std::nullopt when it is not a non-negative amount with at most @p decimals
 * decimals and at most nine integer digits. Integer arithmetic only.
 */
std::optional<qint64> parseAmountInput(const QString &text, int decimals = 2);
/** @brief parseAmountInput() with the exponent of @p currency (so "1500" yen is 1500, "1.5" dinar is 1500). */
std::optional<qint64> parseMoneyInput(const QString &text, const QString &currency);

/**
 * @brief Minor units as the plain decimal text a person edits ("12.50", "1500", "1.500"): no symbol, no group
 * separators, '.' as the decimal point; the inverse of parseMoneyInput() for non-negative amounts.
 */
QString moneyInputText(qint64 minor, const QString &currency);

} // namespace marquee
