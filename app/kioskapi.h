// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <functional>

namespace marquee::sync {
class ApiClient;
class LocalStore;
struct ApiResult;
} // namespace marquee::sync

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
    bool fromCache = false;  ///< the server could not be reached: this is the kiosk's last copy (browsing only)
    QJsonObject object() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    bool ok() const { return kind == ApiErrorKind::None; }
};

/**
 * @brief The screens' view of the kiosk's one HTTP client (sync::ApiClient, which owns the connection, the
 * token, timeouts and idempotency keys): answers are classified into what a screen does next (offline, seats
 * taken, declined...), and callbacks are dropped when their @p context object is gone.
 */
class KioskApi : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const ApiReply &)>;
    explicit KioskApi(sync::ApiClient &client, QObject *parent = nullptr);

    /** @brief GET @p path (e.g. "/api/v1/cities"); @p ifNoneMatch turns a same-ETag answer into 304. */
    void get(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch = {});
    /** @brief POST JSON; pass an idempotency key for every write that may be retried. */
    void post(const QString &path, const QJsonObject &body, QObject *context, Callback callback, const QByteArray &idempotencyKey = {});
    void del(const QString &path, QObject *context, Callback callback);

    /**
     * @brief Where read-only documents (catalogue, seat maps) are kept for offline browsing; nullptr: no cache.
     */
    void setCache(sync::LocalStore *store) { m_cache = store; }
    /** @brief The kiosk knows it is offline: cached reads answer at once instead of waiting for a timeout. */
    void setOffline(bool offline) { m_offline = offline; }
    bool offline() const { return m_offline; }
    /**
     * @brief GET for browsing: a fresh answer is cached; when the server cannot be reached the cached copy is
     * delivered instead (status 200, fromCache). Never for anything a sale depends on.
     */
    void getCached(const QString &path, QObject *context, Callback callback, const QByteArray &ifNoneMatch = {});

    /** @brief Classify a finished exchange; public for tests. */
    static ApiReply classify(const sync::ApiResult &result);
    /** @brief A fresh random idempotency key. */
    static QByteArray newIdempotencyKey();

private:
    static void deliver(const QString &what, QObject *context, const Callback &callback, const sync::ApiResult &result);

    sync::ApiClient &m_client;
    sync::LocalStore *m_cache = nullptr;
    bool m_offline = false;
};

} // namespace marquee::app
