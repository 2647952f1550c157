// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <functional>

namespace marquee::app {

/** @brief What went wrong with a request, in the terms the screens act on. */
enum class ApiErrorKind {
    None,        ///< 2xx or 304
    Offline,     ///< no connection, refused, DNS, TLS, timeout: the server could not be reached
    Unauthorized,///< 401/403: the device token is wrong or revoked
    NotFound,    ///< 404
    Conflict,    ///< 409 (seats_unavailable, hold_lost, ...)
    PaymentFailed, ///< 402
    Rejected,    ///< other 4xx: the request was wrong
    Server,      ///< 5xx
    BadResponse, ///< 2xx with a body that is not the JSON promised
};

/** @brief One answer from the server. */
struct ApiReply {
    int status = 0;          ///< HTTP status, 0 when no answer arrived
    ApiErrorKind kind = ApiErrorKind::None;
    QString code;            ///< the server's error code ("seats_unavailable"), or a local one ("timeout")
    QString message;         ///< the server's sentence, for logs; screens show their own friendly text
    QByteArray body;
    QByteArray etag;
    QJsonObject object() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    bool ok() const { return kind == ApiErrorKind::None; }
};

/**
 * @brief The small HTTP client of the kiosk: bearer token, JSON, idempotency keys, a timeout per request and
 * typed errors. The offline queue (sync/ApiClient, issue 5) will take over the writes; the calls here are the
 * entry points it will replace.
 */
class KioskApi : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const ApiReply &)>;
    KioskApi(const QUrl &base, const QString &token, QObject *parent = nullptr);

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }
    QUrl baseUrl() const { return m_base; }

    /** @brief GET @p path (e.g. "/api/v1/cities"); @p ifNoneMatch turns a same-ETag answer into 304. */
    void get(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch = {});
    /** @brief POST JSON; pass an idempotency key for every write that may be retried. */
    void post(const QString &path, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey = {});
    void del(const QString &path, QObject *context, Callback callback);
    /** @brief POST JSON to an absolute URL without the bearer token (the card terminal's provider). */
    void postAbsolute(const QUrl &url, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey = {});

    /** @brief Classify a finished exchange; public for tests. */
    static ApiReply classify(int status, int networkError, const QByteArray &body);
    /** @brief A fresh random idempotency key. */
    static QByteArray newIdempotencyKey();

private:
    void send(const QByteArray &verb, const QUrl &url, const QByteArray &body, const QList<QPair<QByteArray, QByteArray>> &headers,
              bool withToken, QObject *context, Callback callback);

    QNetworkAccessManager m_network;
    QUrl m_base;
    QString m_token;
    int m_timeoutMs = 8000;
};

} // namespace marquee::app
