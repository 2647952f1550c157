// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "apierror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>
#include <variant>

namespace marquee {

/** @brief Either a value or the ApiError that says why the input was refused. */
template<typename T>
using Result = std::variant<T, ApiError>;

template<typename T>
bool isError(const Result<T> &result)
{
    return std::holds_alternative<ApiError>(result);
}

/** @brief The first refusal among several fields read from one body, or nullptr when every one was accepted: a
 *  request is answered with the error of the first bad field, in the order the fields are listed. */
template<typename... Parsed>
const ApiError *firstError(const Parsed &...parsed)
{
    const ApiError *found = nullptr;
    ((found = found ? found : std::get_if<ApiError>(&parsed)), ...);
    return found;
}

/** @brief Parse a request body that must be a JSON object. */
Result<QJsonObject> parseJsonObject(const QByteArray &body);

/**
 * @brief Read a required, non-empty array of strings (for example seat_ids).
 *
 * Refuses a missing field, a value that is not an array, an element that is not a non-empty string
 * (at most @p maxItemLength characters) and duplicates.
 */
Result<QStringList> requiredStringArray(const QJsonObject &object, const QString &field, int maxItemLength = 32);

/** @brief Read a required non-empty string of at most @p maxLength characters. */
Result<QString> requiredString(const QJsonObject &object, const QString &field, int maxLength = 255);

/** @brief Read an optional string; an absent field or null gives an empty string, a wrong type an error. */
Result<QString> optionalString(const QJsonObject &object, const QString &field, int maxLength = 1000);

/** @brief Read a required integer (JSON number without a fraction, within qint64). */
Result<qint64> requiredInteger(const QJsonObject &object, const QString &field);

} // namespace marquee
