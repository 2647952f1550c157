// SPDX-License-Identifier: AGPL-3.0-or-later
#include "apiclient.h"
#include "synclog.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>
#include <QUrlQuery>

namespace marquee::sync {

QJsonObject ApiResult::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QJsonArray ApiResult::jsonArray() const
{
    return QJsonDocument::fromJson(body).array();
}

bool ApiResult::retryable() const
{
    switch (kind) {
    case Kind::Success:
        return false;
    case Kind::NetworkError:
        return true;
    case Kind::HttpError:
        break;
    }
    if (status == 408 || status == 425 || status == 429 || status >= 500)
        return true;
    return status == 409 && error.code == QLatin1String("request_in_progress");
}

QString ApiResult::describe() const
{
    switch (kind) {
    case Kind::Success:
        return QStringLiteral("HTTP %1").arg(status);
    case Kind::NetworkError:
        return timedOut ? QStringLiteral("network: timed out") : QStringLiteral("network: %1").arg(networkError);
    case Kind::HttpError:
        break;
    }
    return QStringLiteral("HTTP %1 %2: %3").arg(status).arg(error.code, error.message);
}

ApiClient::ApiClient(const QUrl &baseUrl, QObject *parent)
    : QObject(parent)
    , m_baseUrl(baseUrl)
{
    setConnectionPools(1);
}

void ApiClient::setConnectionPools(int pools)
{
    while (m_networks.size() < std::max(1, pools)) {
        auto *network = new QNetworkAccessManager(this);
        network->setAutoDeleteReplies(false);
        m_networks.append(network);
    }
    while (m_networks.size() > std::max(1, pools))
        m_networks.takeLast()->deleteLater(); // its replies, if any, still finish (they are parented to it)
}

ApiClient::~ApiClient()
{
    // Never call back into objects that may be gone: drop the callbacks, then abort.
    m_callbacks.clear();
    const auto replies = m_replies;
    m_replies.clear();
    for (QNetworkReply *reply : replies) {
        reply->disconnect(this);
        reply->abort();
        delete reply;
    }
}

void ApiClient::request(const QString &method, const QString &path, const QJsonObject &body, const QString &idempotencyKey, Callback callback)
{
    send(method, path, body, idempotencyKey, {}, std::move(callback));
}

void ApiClient::getIfNoneMatch(const QString &path, const QByteArray &etag, Callback callback)
{
    send(QStringLiteral("GET"), path, {}, {}, etag, std::move(callback));
}

void ApiClient::send(const QString &method, const QString &path, const QJsonObject &body, const QString &idempotencyKey, const QByteArray &ifNoneMatch,
                     Callback callback)
{
    QUrl url = m_baseUrl;
    const qsizetype question = path.indexOf(QLatin1Char('?'));
    url.setPath(question < 0 ? path : path.left(question));
    if (question >= 0)
        url.setQuery(path.mid(question + 1));
    if (const QString refused = m_transport.refusal(url); !refused.isEmpty()) {
        // Never on the wire; the callback still runs later, on this thread, like any other failure.
        ApiResult result;
        result.networkError = refused;
        QTimer::singleShot(0, this, [callback = std::move(callback), result] {
            if (callback)
                callback(result);
        });
        return;
    }
    QNetworkRequest request(url);
    if (m_transport.tls && url.scheme() == QLatin1String("https"))
        request.setSslConfiguration(*m_transport.tls);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json");
    if (!m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    if (!idempotencyKey.isEmpty())
        request.setRawHeader("Idempotency-Key", idempotencyKey.toUtf8());
    if (!ifNoneMatch.isEmpty())
        request.setRawHeader("If-None-Match", ifNoneMatch);
    const bool bodyless = (method == QLatin1String("GET") || method == QLatin1String("DELETE")) && body.isEmpty();
    const QByteArray payload = bodyless ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
    QNetworkAccessManager *network = m_networks.at(m_nextNetwork++ % m_networks.size());
    QNetworkReply *reply = bodyless ? network->sendCustomRequest(request, method.toLatin1())
                                    : network->sendCustomRequest(request, method.toLatin1(), payload);
    m_replies.insert(reply);
    m_callbacks.insert(reply, std::move(callback));

    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, this, [this, reply] { finish(reply, true); });
    deadline->start(m_timeoutMs);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { finish(reply, false); });
}

void ApiClient::finish(QNetworkReply *reply, bool timedOut)
{
    if (!m_replies.remove(reply))
        return; // already finished (deadline and finished racing)
    Callback callback = m_callbacks.take(reply);
    reply->disconnect(this);
    if (timedOut)
        reply->abort();

    ApiResult result;
    const QVariant statusAttribute = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    result.body = timedOut ? QByteArray() : reply->readAll();
    result.timedOut = timedOut;
    const QNetworkReply::NetworkError error = reply->error();
    // Qt reports HTTP 400 and 416 as ProtocolInvalidOperationError: with a status line that is the server's
    // answer (bad input, to be parked), not a broken transport (to be retried).
    const bool protocolFailed = error >= QNetworkReply::ProtocolUnknownError && error <= QNetworkReply::ProtocolFailure
        && error != QNetworkReply::ProtocolInvalidOperationError;
    const bool transportFailed = timedOut || !statusAttribute.isValid()
        || (error != QNetworkReply::NoError && (error < QNetworkReply::ContentAccessDenied || protocolFailed));
    if (transportFailed) {
        // A cut or reset can still leave a status line read: without the whole body it is not an answer.
        result.kind = ApiResult::Kind::NetworkError;
        result.status = 0;
        result.body.clear();
        result.networkError = timedOut ? QStringLiteral("timed out after %1 ms").arg(m_timeoutMs) : reply->errorString();
        result.tlsFailed = !timedOut && error == QNetworkReply::SslHandshakeFailedError;
    } else {
        result.status = statusAttribute.toInt();
        result.etag = reply->rawHeader("ETag");
        result.venueId = reply->rawHeader("Marquee-Venue-Id").toLongLong();
        if (result.status >= 200 && result.status < 300) {
            result.kind = ApiResult::Kind::Success;
        } else {
            result.kind = ApiResult::Kind::HttpError;
            result.error = ApiError::fromBody(result.status, result.body);
        }
    }
    reply->deleteLater();
    if (callback)
        callback(result);
}

ApiResult ApiClient::requestBlocking(const QString &method, const QString &path, const QJsonObject &body, const QString &idempotencyKey)
{
    ApiResult out;
    QEventLoop loop;
    bool done = false;
    request(method, path, body, idempotencyKey, [&](const ApiResult &result) {
        out = result;
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
    return out;
}

QString ApiClient::holdPath(qint64 showId)
{
    return QStringLiteral("/api/v1/shows/%1/hold").arg(showId);
}

QString ApiClient::confirmPath(const QString &orderId)
{
    return QStringLiteral("/api/v1/orders/%1/confirm").arg(orderId);
}

void ApiClient::health(Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/healthz"), {}, {}, std::move(callback));
}

void ApiClient::placeHold(qint64 showId, const QStringList &seatIds, const QString &idempotencyKey, Callback callback)
{
    request(QStringLiteral("POST"), holdPath(showId), QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seatIds)}},
            idempotencyKey, std::move(callback));
}

void ApiClient::syncBatch(const QJsonArray &actions, Callback callback)
{
    request(QStringLiteral("POST"), QStringLiteral("/api/v1/sync/batch"), QJsonObject{{QStringLiteral("actions"), actions}}, {}, std::move(callback));
}

void ApiClient::heartbeat(int queueLength, const QString &printerState, const QString &appVersion, const QJsonObject &reconciliation,
                          Callback callback)
{
    QJsonObject body{{QStringLiteral("queue_length"), queueLength},
                     {QStringLiteral("printer_state"), printerState},
                     {QStringLiteral("app_version"), appVersion}};
    if (!reconciliation.isEmpty())
        body.insert(QStringLiteral("reconciliation"), reconciliation);
    request(QStringLiteral("POST"), QStringLiteral("/api/v1/devices/heartbeat"), body, {}, std::move(callback));
}

void ApiClient::releaseHold(const QString &holdId, Callback callback)
{
    request(QStringLiteral("DELETE"), QStringLiteral("/api/v1/holds/%1").arg(holdId), {}, {}, std::move(callback));
}

void ApiClient::createOrder(const QString &holdId, const QString &idempotencyKey, Callback callback)
{
    request(QStringLiteral("POST"), QStringLiteral("/api/v1/orders"), QJsonObject{{QStringLiteral("hold_id"), holdId}}, idempotencyKey,
            std::move(callback));
}

void ApiClient::confirmOrder(const QString &orderId, const QString &paymentIntentId, Callback callback)
{
    request(QStringLiteral("POST"), confirmPath(orderId), QJsonObject{{QStringLiteral("payment_intent_id"), paymentIntentId}}, paymentIntentId,
            std::move(callback));
}

void ApiClient::order(const QString &orderId, Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/orders/%1").arg(orderId), {}, {}, std::move(callback));
}

void ApiClient::booking(const QString &bookingId, Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/bookings/%1").arg(bookingId), {}, {}, std::move(callback));
}

void ApiClient::bookingByRef(const QString &bookingRef, Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/bookings?ref=%1").arg(QString::fromLatin1(QUrl::toPercentEncoding(bookingRef))), {}, {},
            std::move(callback));
}

void ApiClient::keys(Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/keys"), {}, {}, std::move(callback));
}

void ApiClient::delegations(Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/delegations"), {}, {}, std::move(callback));
}

void ApiClient::revocations(const QString &after, int limit, Callback callback)
{
    request(QStringLiteral("GET"),
            QStringLiteral("/api/v1/revocations?after=%1&limit=%2").arg(QString::fromLatin1(QUrl::toPercentEncoding(after))).arg(limit), {}, {},
            std::move(callback));
}

void ApiClient::events(const QString &after, int limit, Callback callback)
{
    request(QStringLiteral("GET"), QStringLiteral("/api/v1/events?after=%1&limit=%2").arg(QString::fromLatin1(QUrl::toPercentEncoding(after))).arg(limit),
            {}, {}, std::move(callback));
}

void ApiClient::checkin(const QString &qr, const QString &nonce, const QDateTime &scannedAt, Callback callback)
{
    request(QStringLiteral("POST"), QStringLiteral("/api/v1/checkin"),
            QJsonObject{{QStringLiteral("qr"), qr}, {QStringLiteral("nonce"), nonce},
                        {QStringLiteral("scanned_at"), scannedAt.toUTC().toString(Qt::ISODateWithMs)}},
            nonce, std::move(callback));
}

} // namespace marquee::sync
