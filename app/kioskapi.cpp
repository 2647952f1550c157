// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskapi.h"
#include "applogging.h"
#include "sync/apiclient.h"
#include "sync/localstore.h"

#include <QUuid>
#include <optional>

namespace marquee::app {

KioskApi::KioskApi(sync::ApiClient &client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

QByteArray KioskApi::newIdempotencyKey()
{
    return QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

ApiReply KioskApi::classify(const sync::ApiResult &result)
{
    ApiReply reply;
    reply.status = result.status;
    reply.body = result.body;
    reply.etag = result.etag;
    if (result.kind == sync::ApiResult::Kind::NetworkError) {
        reply.status = 0;
        reply.kind = ApiErrorKind::Offline;
        reply.code = result.timedOut ? QStringLiteral("timeout") : QStringLiteral("unreachable");
        reply.message = result.networkError;
        return reply;
    }
    const int status = result.status;
    if ((status >= 200 && status < 300) || status == 304) {
        if (status != 204 && status != 304 && !result.body.isEmpty()) {
            QJsonParseError error;
            QJsonDocument::fromJson(result.body, &error);
            if (error.error != QJsonParseError::NoError) {
                reply.kind = ApiErrorKind::BadResponse;
                reply.code = QStringLiteral("bad_response");
            }
        }
        return reply;
    }
    reply.code = result.error.code;
    reply.message = result.error.message;
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

void KioskApi::deliver(const QString &what, QObject *context, const Callback &callback, const sync::ApiResult &result)
{
    const ApiReply reply = classify(result);
    if (!reply.ok())
        qCInfo(lcApi) << what << "->" << result.describe();
    if (context)
        callback(reply);
}

void KioskApi::get(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch)
{
    QPointer<QObject> guard(context);
    m_client.getIfNoneMatch(path, ifNoneMatch, [guard, path, callback = std::move(callback)](const sync::ApiResult &result) {
        deliver(QStringLiteral("GET ") + path, guard, callback, result);
    });
}

void KioskApi::post(const QString &path, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey)
{
    QPointer<QObject> guard(context);
    m_client.request(QStringLiteral("POST"), path, body, QString::fromUtf8(idempotencyKey),
                     [guard, path, callback = std::move(callback)](const sync::ApiResult &result) {
                         deliver(QStringLiteral("POST ") + path, guard, callback, result);
                     });
}

void KioskApi::del(const QString &path, QObject *context, Callback callback)
{
    QPointer<QObject> guard(context);
    m_client.request(QStringLiteral("DELETE"), path, {}, {}, [guard, path, callback = std::move(callback)](const sync::ApiResult &result) {
        deliver(QStringLiteral("DELETE ") + path, guard, callback, result);
    });
}

void KioskApi::getCached(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch)
{
    QPointer<QObject> guard(context);
    QPointer<KioskApi> self(this);
    const QString key = QStringLiteral("GET ") + path;
    auto fromCache = [self, key]() -> std::optional<ApiReply> {
        if (!self || !self->m_cache)
            return std::nullopt;
        const std::optional<QByteArray> document = self->m_cache->cached(key);
        if (!document)
            return std::nullopt;
        ApiReply reply;
        reply.status = 200;
        reply.body = *document;
        reply.fromCache = true;
        return reply;
    };
    // Known offline: do not make the customer wait for a timeout to see what is on.
    if (m_offline) {
        if (const std::optional<ApiReply> cached = fromCache()) {
            QMetaObject::invokeMethod(this, [guard, callback, reply = *cached] {
                if (guard)
                    callback(reply);
            }, Qt::QueuedConnection);
            return;
        }
    }
    m_client.getIfNoneMatch(path, ifNoneMatch, [self, guard, key, fromCache, callback = std::move(callback)](const sync::ApiResult &result) {
        ApiReply reply = classify(result);
        if (reply.ok() && reply.status == 200 && self && self->m_cache)
            self->m_cache->putCache(key, reply.body);
        if (reply.kind == ApiErrorKind::Offline || reply.kind == ApiErrorKind::Server) {
            if (const std::optional<ApiReply> cached = fromCache())
                reply = *cached;
        }
        if (!reply.ok())
            qCInfo(lcApi) << key << "->" << result.describe();
        if (guard)
            callback(reply);
    });
}

} // namespace marquee::app
