// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/httpresponse.h"

#include <QJsonDocument>

namespace marquee::http {

HttpResponse HttpResponse::json(int status, const QJsonObject &object)
{
    return rawJson(status, QJsonDocument(object).toJson(QJsonDocument::Compact));
}

HttpResponse HttpResponse::json(int status, const QJsonArray &array)
{
    return rawJson(status, QJsonDocument(array).toJson(QJsonDocument::Compact));
}

HttpResponse HttpResponse::rawJson(int status, QByteArray body)
{
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    return response;
}

HttpResponse HttpResponse::error(const ApiError &error)
{
    HttpResponse response = rawJson(error.httpStatus, error.toBody());
    response.withErrorHeaders(error.httpStatus, error.code, error.extra.value(QStringLiteral("retry_after_s")).toInt(1));
    return response;
}

HttpResponse &HttpResponse::withErrorHeaders(int httpStatus, const QString &code, int retryAfterSeconds)
{
    if (httpStatus == 429)
        withHeader("Retry-After", QByteArray::number(retryAfterSeconds));
    // The database is not answering: clients and proxies may try again in a moment, not at once in a loop.
    if (httpStatus == 503 && code == QLatin1String("unavailable"))
        withHeader("Retry-After", "1");
    if (httpStatus == 401)
        withHeader("WWW-Authenticate", "Bearer realm=\"marquee\"");
    return *this;
}

HttpResponse HttpResponse::noBody(int status)
{
    HttpResponse response;
    response.status = status;
    response.contentType.clear();
    return response;
}

} // namespace marquee::http
