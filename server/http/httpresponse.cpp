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
    if (error.httpStatus == 429)
        response.withHeader("Retry-After", QByteArray::number(error.extra.value(QStringLiteral("retry_after_s")).toInt(1)));
    // The database is not answering: clients and proxies may try again in a moment, not at once in a loop.
    if (error.httpStatus == 503 && error.code == QLatin1String("unavailable"))
        response.withHeader("Retry-After", "1");
    if (error.httpStatus == 401)
        response.withHeader("WWW-Authenticate", "Bearer realm=\"marquee\"");
    return response;
}

HttpResponse HttpResponse::noBody(int status)
{
    HttpResponse response;
    response.status = status;
    response.contentType.clear();
    return response;
}

} // namespace marquee::http
