// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <functional>
#include <optional>

namespace marquee::http {

/** @brief A complete response with an explicit status; handlers build one and return it. */
struct HttpResponse {
    int status = 200;
    QByteArray body;
    QByteArray contentType = "application/json";
    QList<QPair<QByteArray, QByteArray>> headers;
    /**
     * @brief A long poll: when set, this response is not sent yet. The worker thread parks the request (no thread
     * waits) and calls this again every kLongPollTickMs until it returns a response, or once more with
     * timedOut = true at longPollUntilMs, when it must return one.
     */
    std::function<std::optional<HttpResponse>(bool timedOut)> longPoll;
    qint64 longPollUntilMs = 0; ///< this process's clock (ms since the epoch)
    /**
     * @brief An answer decided elsewhere: when set, this response is not sent; the worker thread parks the request
     * and calls this once with a function that any thread may call once with the real response (it is sent on the
     * worker thread). Meanwhile the worker serves its other connections.
     */
    std::function<void(std::function<void(HttpResponse)> answer)> deferred;
    static constexpr int kLongPollTickMs = 100;

    static HttpResponse json(int status, const QJsonObject &object);
    static HttpResponse json(int status, const QJsonArray &array);
    static HttpResponse rawJson(int status, QByteArray body);
    static HttpResponse error(const ApiError &error);
    static HttpResponse noBody(int status);
    /**
     * @brief The headers every error of @p httpStatus and @p code carries (Retry-After on 429 and on 503
     * unavailable, WWW-Authenticate on 401), for an error body rendered elsewhere (a hold decision).
     */
    HttpResponse &withErrorHeaders(int httpStatus, const QString &code, int retryAfterSeconds = 1);
    HttpResponse &withHeader(const QByteArray &name, const QByteArray &value)
    {
        headers.append({name, value});
        return *this;
    }
};

} // namespace marquee::http
