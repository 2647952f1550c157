// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"
#include "transportsecurity.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QUrl>
#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

namespace marquee::sync {

/** @brief The outcome of one API call, typed: the link failed, the server said no, or it said yes. */
struct ApiResult {
    enum class Kind {
        Success,      ///< 2xx
        HttpError,    ///< the server answered with a non-2xx status; see error
        NetworkError, ///< no complete answer: refused, reset, cut, timed out
    };
    Kind kind = Kind::NetworkError;
    int status = 0;         ///< HTTP status, 0 for a network error
    QByteArray body;        ///< raw response body
    ApiError error;         ///< parsed error body for HttpError
    QString networkError;   ///< what went wrong for NetworkError
    bool timedOut = false;  ///< the request ran into the client's deadline
    bool tlsFailed = false; ///< a network error because the TLS handshake failed (the server's certificate was not trusted)
    QByteArray etag;        ///< the response's ETag header, if any (seat-map polling sends it back as If-None-Match)
    qint64 venueId = 0;     ///< the response's Marquee-Venue-Id header (GET /api/v1/keys: this device's venue), or 0

    bool ok() const { return kind == Kind::Success; }
    QJsonObject json() const;
    QJsonArray jsonArray() const;
    /**
     * @brief True when sending the same request again may succeed: network errors, 408, 425, 429, 5xx and
     * 409 request_in_progress (a retry of ours is still running on the server).
     */
    bool retryable() const;
    /** @brief One line for logs and last_error. */
    QString describe() const;
};

/**
 * @brief The one QNetworkAccessManager of a kiosk: JSON over HTTP to marquee-server, bearer token, a deadline
 * per request, and every mutating call with its Idempotency-Key. Lives in the thread that created it.
 */
class ApiClient : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const ApiResult &)>;

    explicit ApiClient(const QUrl &baseUrl, QObject *parent = nullptr);
    ~ApiClient() override;

    QUrl baseUrl() const { return m_baseUrl; }
    void setBaseUrl(const QUrl &url) { m_baseUrl = url; }
    void setToken(const QString &token) { m_token = token; }
    /** @brief Deadline for one request, from send to the last byte (default 5000 ms). */
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }
    int inFlight() const { return m_replies.size(); }
    /**
     * @brief Use @p pools connection pools (QNetworkAccessManager opens at most 6 HTTP/1.1 connections per host
     * and pool), so a bulk replay can keep 6 × pools requests on the wire. Default 1.
     */
    void setConnectionPools(int pools);
    /** @brief Which URLs may be used and which CAs HTTPS trusts (default: TransportPolicy::current() when made). */
    void setTransport(const TransportPolicy &policy) { m_transport = policy; }
    const TransportPolicy &transport() const { return m_transport; }

    /**
     * @brief Send a request; @p callback runs in this object's thread exactly once (never after destruction).
     * @p body is sent as JSON unless the method is GET or DELETE and the body is empty.
     */
    void request(const QString &method, const QString &path, const QJsonObject &body, const QString &idempotencyKey, Callback callback);
    /** @brief GET with `If-None-Match: @p etag`: an unchanged document answers 304 (an HttpError with status 304). */
    void getIfNoneMatch(const QString &path, const QByteArray &etag, Callback callback);
    /** @brief The same, waiting in a local event loop (for command-line tools and tests). */
    ApiResult requestBlocking(const QString &method, const QString &path, const QJsonObject &body = {}, const QString &idempotencyKey = {});

    void health(Callback callback);
    void placeHold(qint64 showId, const QStringList &seatIds, const QString &idempotencyKey, Callback callback);
    void releaseHold(const QString &holdId, Callback callback);
    void createOrder(const QString &holdId, const QString &idempotencyKey, Callback callback);
    /** @brief Confirm an order; the payment intent id is the idempotency key. */
    void confirmOrder(const QString &orderId, const QString &paymentIntentId, Callback callback);
    void order(const QString &orderId, Callback callback);
    void booking(const QString &bookingId, Callback callback);
    void bookingByRef(const QString &bookingRef, Callback callback);
    void keys(Callback callback);
    /** @brief GET /api/v1/delegations: the venue's delegations (device keys allowed to sign tickets for leased seats). */
    void delegations(Callback callback);
    void revocations(const QString &after, int limit, Callback callback);
    void events(const QString &after, int limit, Callback callback);
    /** @brief Upload a scan; the nonce is the idempotency key. */
    void checkin(const QString &qr, const QString &nonce, const QDateTime &scannedAt, Callback callback);

    /**
     * @brief POST /api/v1/sync/batch with @p actions ({kind, idempotency_key, payload} each): the server applies
     * each exactly as its own endpoint would and answers {results: [{status, body}]} in the same order.
     */
    void syncBatch(const QJsonArray &actions, Callback callback);

    /**
     * @brief POST /api/v1/devices/heartbeat: queue length, printer state, app version and, when given, the
     * latest reconciliation summary (ReconciliationReport::fleetSummary) for the manager desk.
     */
    void heartbeat(int queueLength, const QString &printerState, const QString &appVersion, const QJsonObject &reconciliation, Callback callback);

    /** @brief Path and body of the requests above, for queueing them as actions. */
    static QString holdPath(qint64 showId);
    static QString confirmPath(const QString &orderId);

private:
    void send(const QString &method, const QString &path, const QJsonObject &body, const QString &idempotencyKey, const QByteArray &ifNoneMatch,
              Callback callback);
    void finish(QNetworkReply *reply, bool timedOut);

    QList<QNetworkAccessManager *> m_networks;
    int m_nextNetwork = 0;
    QUrl m_baseUrl;
    TransportPolicy m_transport = TransportPolicy::current();
    QString m_token;
    int m_timeoutMs = 5000;
    QSet<QNetworkReply *> m_replies;
    QHash<QNetworkReply *, Callback> m_callbacks;
};

} // namespace marquee::sync
