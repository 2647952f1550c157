// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jsonbody.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <cmath>

namespace marquee {

Result<QJsonObject> parseJsonObject(const QByteArray &body)
{
    if (body.trimmed().isEmpty())
        return ApiError::malformedJson(QStringLiteral("the body is empty"));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        return ApiError::malformedJson(QStringLiteral("%1 at offset %2").arg(error.errorString()).arg(error.offset));
    if (!document.isObject())
        return ApiError::badRequest(QStringLiteral("invalid_body"), QStringLiteral("The request body must be a JSON object."));
    return document.object();
}

Result<QStringList> requiredStringArray(const QJsonObject &object, const QString &field, int maxItemLength)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined() || value.isNull())
        return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field '%1' is required.").arg(field));
    if (!value.isArray())
        return ApiError::badRequest(QStringLiteral("invalid_type"),
                                    QStringLiteral("The field '%1' must be an array of strings.").arg(field));
    const QJsonArray array = value.toArray();
    if (array.isEmpty())
        return ApiError::badRequest(QStringLiteral("empty_") + field,
                                    QStringLiteral("The field '%1' must name at least one item.").arg(field));
    QStringList items;
    items.reserve(array.size());
    QSet<QString> seen;
    for (const QJsonValue &item : array) {
        if (!item.isString() || item.toString().isEmpty() || item.toString().size() > maxItemLength)
            return ApiError::badRequest(QStringLiteral("invalid_type"),
                                        QStringLiteral("Every element of '%1' must be a non-empty string of at most %2 characters.")
                                            .arg(field)
                                            .arg(maxItemLength));
        const QString text = item.toString();
        if (seen.contains(text)) {
            ApiError error = ApiError::badRequest(QStringLiteral("duplicate_") + field,
                                                  QStringLiteral("'%1' names '%2' more than once.").arg(field, text));
            return error;
        }
        seen.insert(text);
        items.append(text);
    }
    return items;
}

Result<QString> requiredString(const QJsonObject &object, const QString &field, int maxLength)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined() || value.isNull())
        return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field '%1' is required.").arg(field));
    if (!value.isString())
        return ApiError::badRequest(QStringLiteral("invalid_type"), QStringLiteral("The field '%1' must be a string.").arg(field));
    const QString text = value.toString();
    if (text.isEmpty())
        return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field '%1' must not be empty.").arg(field));
    if (text.size() > maxLength)
        return ApiError::badRequest(QStringLiteral("invalid_value"),
                                    QStringLiteral("The field '%1' is longer than %2 characters.").arg(field).arg(maxLength));
    return text;
}

Result<QString> optionalString(const QJsonObject &object, const QString &field, int maxLength)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined() || value.isNull())
        return QString();
    if (!value.isString())
        return ApiError::badRequest(QStringLiteral("invalid_type"), QStringLiteral("The field '%1' must be a string.").arg(field));
    if (value.toString().size() > maxLength)
        return ApiError::badRequest(QStringLiteral("invalid_value"),
                                    QStringLiteral("The field '%1' is longer than %2 characters.").arg(field).arg(maxLength));
    return value.toString();
}

Result<qint64> requiredInteger(const QJsonObject &object, const QString &field)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined() || value.isNull())
        return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field '%1' is required.").arg(field));
    const double number = value.toDouble(std::nan(""));
    // 2^53 bounds the integers a JSON double represents exactly.
    if (!value.isDouble() || std::isnan(number) || std::floor(number) != number || std::fabs(number) > 9007199254740992.0)
        return ApiError::badRequest(QStringLiteral("invalid_type"), QStringLiteral("The field '%1' must be an integer.").arg(field));
    return static_cast<qint64>(number);
}

} // namespace marquee
