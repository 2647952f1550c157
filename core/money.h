// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

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

/** @brief Number of minor-unit digits for a currency (2 for most, 0 for JPY/KRW, 3 for KWD/BHD...). */
int currencyExponent(const QString &code);

} // namespace marquee
