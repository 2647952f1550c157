// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskapi.h"

#include <QLoggingCategory>
#include <QNetworkReply>
#include <QTimer>
#include <QUuid>

Q_LOGGING_CATEGORY(lcApi, "marquee.app.api")

namespace marquee::app {

KioskApi::KioskApi(const QUrl &base, const QString &token, QObject *parent)
    : QObject(parent)
    , m_base(base)
    , m_token(token)
{
    m_network.setAutoDeleteReplies(false);
}

QByteArray KioskApi::newIdempotencyKey()
{
    return QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

ApiReply KioskApi::classify(int status, int networkError, const QByteArray &body)
{
    ApiReply reply;
    reply.status = status;
    reply.body = body;
    if (status == 0) {
        reply.kind = ApiErrorKind::Offline;
        reply.code = networkError == QNetworkReply::OperationCanceledError ? QStringLiteral("timeout") : QStringLiteral("unreachable");
        return reply;
    }
    if ((status >= 200 && status < 300) || status == 304) {
        if (status != 204 && status != 304 && !body.isEmpty()) {
            QJsonParseError error;
            QJsonDocument::fromJson(body, &error);
            if (error.error != QJsonParseError::NoError) {
                reply.kind = ApiErrorKind::BadResponse;
                reply.code = QStringLiteral("bad_response");
            }
        }
        return reply;
    }
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    reply.code = object.value(QStringLiteral("error")).toString();
    reply.message = object.value(QStringLiteral("message")).toString();
    if (status == 401 || status == 403)
        reply.kind = ApiErrorKind::Unauthorized;
    else if (status == 402)
        reply.kind = ApiErrorKind::PaymentFailed;
    else if (status == 404)
        reply.kind = ApiErrorKind::NotFound;
    else if (status == 409)
        reply.kind = ApiErrorKind::Conflict;
    else if (status >= 500)
        reply.kind = ApiErrorKind::Server;
    else
        reply.kind = ApiErrorKind::Rejected;
    return reply;
}

void KioskApi::get(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!ifNoneMatch.isEmpty())
        headers.append({"If-None-Match", ifNoneMatch});
    send("GET", m_base.resolved(QUrl(path)), {}, headers, true, context, std::move(callback));
}

void KioskApi::post(const QString &path, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!idempotencyKey.isEmpty())
        headers.append({"Idempotency-Key", idempotencyKey});
    send("POST", m_base.resolved(QUrl(path)), QJsonDocument(body).toJson(QJsonDocument::Compact), headers, true, context, std::move(callback));
}

void KioskApi::del(const QString &path, QObject *context, Callback callback)
{
    send("DELETE", m_base.resolved(QUrl(path)), {}, {}, true, context, std::move(callback));
}

void KioskApi::postAbsolute(const QUrl &url, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!idempotencyKey.isEmpty())
        headers.append({"Idempotency-Key", idempotencyKey});
    send("POST", url, QJsonDocument(body).toJson(QJsonDocument::Compact), headers, false, context, std::move(callback));
}

void KioskApi::send(const QByteArray &verb, const QUrl &url, const QByteArray &body, const QList<QPair<QByteArray, QByteArray>> &headers,
                    bool withToken, QObject *context, Callback callback)
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json");
    if (withToken && !m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    request.setTransferTimeout(m_timeoutMs);
    QNetworkReply *reply = m_network.sendCustomRequest(request, verb, body);
    QPointer<QObject> guard(context);
    connect(reply, &QNetworkReply::finished, this, [reply, guard, callback = std::move(callback), verb, url]() {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const int networkError = status == 0 ? int(reply->error()) : 0;
        ApiReply result = classify(status, networkError, reply->readAll());
        result.etag = reply->rawHeader("ETag");
        if (!result.ok())
            qCInfo(lcApi) << verb << url.path() << "->" << status << result.code << reply->errorString();
        if (guard)
            callback(result);
    });
}

} // namespace marquee::app
