// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief A customer's e-mail as stored and searched: trimmed and lower-cased; std::nullopt unless it looks like
 * an address (one @, something on both sides, a dot in the domain, at most 254 characters, no spaces).
 */
std::optional<QString> normalizedCustomerEmail(const QString &email);

/**
 * @brief A customer's phone number as stored and searched: its digits, with a leading + kept; spaces, dashes,
 * dots and brackets dropped. std::nullopt unless 6 to 20 digits remain and nothing else was in it.
 */
std::optional<QString> normalizedCustomerPhone(const QString &phone);

} // namespace marquee
