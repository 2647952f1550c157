// SPDX-License-Identifier: AGPL-3.0-or-later
#include "apierror.h"

#include <QJsonDocument>

namespace marquee {

QJsonObject ApiError::toJson() const
{
    QJsonObject body = extra;
    body.insert(QStringLiteral("error"), code);
    body.insert(QStringLiteral("message"), message);
    return body;
}

QByteArray ApiError::toBody() const
{
    return QJsonDocument(toJson()).toJson(QJsonDocument::Compact);
}

ApiError ApiError::fromBody(int httpStatus, const QByteArray &body)
{
    ApiError error{httpStatus, {}, {}, {}};
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    error.code = object.value(QStringLiteral("error")).toString();
    error.message = object.value(QStringLiteral("message")).toString();
    error.extra = object;
    error.extra.remove(QStringLiteral("error"));
    error.extra.remove(QStringLiteral("message"));
    return error;
}

ApiError ApiError::malformedJson(const QString &detail)
{
    return {400, QStringLiteral("malformed_json"), QStringLiteral("The request body is not valid JSON: %1.").arg(detail), {}};
}

ApiError ApiError::unauthorized(const QString &message)
{
    return {401, QStringLiteral("unauthorized"), message, {}};
}

ApiError ApiError::forbidden(const QString &message)
{
    return {403, QStringLiteral("forbidden"), message, {}};
}

ApiError ApiError::methodNotAllowed()
{
    return {405, QStringLiteral("method_not_allowed"), QStringLiteral("This method is not allowed on this resource."), {}};
}

ApiError ApiError::payloadTooLarge(qint64 limit)
{
    return {413, QStringLiteral("body_too_large"),
            QStringLiteral("The request body is larger than the limit of %1 bytes.").arg(limit), {}};
}

ApiError ApiError::invalidText(const QString &where)
{
    return {400, QStringLiteral("invalid_text"),
            QStringLiteral("The %1 holds a NUL, a control character or invalid Unicode; send plain text.").arg(where), {}};
}

ApiError ApiError::unsupportedMediaType()
{
    return {415, QStringLiteral("unsupported_media_type"), QStringLiteral("Send the request body as 'Content-Type: application/json'."), {}};
}

ApiError ApiError::tooManyRequests(int retryAfterSeconds)
{
    ApiError error{429, QStringLiteral("rate_limited"),
                   QStringLiteral("Too many requests; try again in %1 s.").arg(retryAfterSeconds), {}};
    error.extra.insert(QStringLiteral("retry_after_s"), retryAfterSeconds);
    return error;
}

ApiError ApiError::internal(const QString &message)
{
    return {500, QStringLiteral("internal_error"),
            message.isEmpty() ? QStringLiteral("Something went wrong on the server; nothing was changed.") : message, {}};
}

ApiError ApiError::unavailable(const QString &message)
{
    return {503, QStringLiteral("unavailable"), message, {}};
}

} // namespace marquee
