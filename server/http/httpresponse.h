// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>

namespace marquee::http {

/** @brief A complete response with an explicit status; handlers build one and return it. */
struct HttpResponse {
    int status = 200;
    QByteArray body;
    QByteArray contentType = "application/json";
    QList<QPair<QByteArray, QByteArray>> headers;

    static HttpResponse json(int status, const QJsonObject &object);
    static HttpResponse json(int status, const QJsonArray &array);
    static HttpResponse rawJson(int status, QByteArray body);
    static HttpResponse error(const ApiError &error);
    static HttpResponse noBody(int status);
    HttpResponse &withHeader(const QByteArray &name, const QByteArray &value)
    {
        headers.append({name, value});
        return *this;
    }
};

} // namespace marquee::http
