// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/apiserver.h"
#include "metrics/requestmetrics.h"
#include "logging.h"

#include "core/textcheck.h"
#include "http/routes.h"
#include "protection/framingsocket.h"
#include "protection/requestid.h"
#include "runtime/servercontext.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHttpServerResponder>
#include <QLoggingCategory>
#include <QMutex>
#include <QTcpSocket>
#include <QUrlQuery>
#include <algorithm>


namespace marquee::http {

namespace {
/** @brief A handler that reports its phases (Server-Timing) gets the whole time since the request was parsed beside them. */
void addTotalTime(HttpResponse &response, const QElapsedTimer &received)
{
    for (auto &[name, value] : response.headers) {
        if (name == "Server-Timing")
            value = "total;dur=" + QByteArray::number(double(received.nsecsElapsed()) / 1e6, 'f', 3) + ", " + value;
    }
}

/** @brief A body is JSON only when every Content-Type it declares says so (parameters such as charset aside). */
bool declaresJson(const QHttpServerRequest &request)
{
    bool declared = false;
    for (const auto &[name, value] : request.headers()) {
        if (name.compare("Content-Type", Qt::CaseInsensitive) != 0)
            continue;
        const qsizetype semicolon = value.indexOf(';');
        if (value.left(semicolon < 0 ? value.size() : semicolon).trimmed().compare("application/json", Qt::CaseInsensitive) != 0)
            return false;
        declared = true;
    }
    return declared;
}

/**
 * @brief Text that would reach the database or the logs: the path (path parameters come from it), every query
 * item and every string of the body; plus the body's declared type. Refused here, once, so no handler sees it.
 */
std::optional<ApiError> refuseUncleanInput(const QHttpServerRequest &request)
{
    if (!isCleanText(request.url().path(), false))
        return ApiError::invalidText(QStringLiteral("path"));
    if (request.url().hasQuery()) {
        for (const auto &[key, value] : QUrlQuery(request.url()).queryItems(QUrl::FullyDecoded)) {
            if (!isCleanText(key, false) || !isCleanText(value, false))
                return ApiError::invalidText(QStringLiteral("query"));
        }
    }
    const QByteArray &body = request.body();
    if (!body.isEmpty()) {
        if (!declaresJson(request))
            return ApiError::unsupportedMediaType();
        if (!isCleanJsonText(body))
            return ApiError::invalidText(QStringLiteral("request body"));
    }
    return std::nullopt;
}

/** @brief One spelling per resource: no empty segment (`//`, a trailing `/`, an encoded `%2F` at a segment's end). */
bool isCanonicalPath(const QString &path)
{
    return path.startsWith(QLatin1Char('/')) && !path.contains(QLatin1String("//")) && (path.size() == 1 || !path.endsWith(QLatin1Char('/')));
}

// The proxy's X-Request-Id when it is a plausible id (so the proxy's log, the server's and the client's meet),
// else a new one.
QByteArray requestIdOf(const QHttpServerRequest &request)
{
    for (const auto &[name, value] : request.headers()) {
        if (name.compare("X-Request-Id", Qt::CaseInsensitive) != 0)
            continue;
        const bool plausible = !value.isEmpty() && value.size() <= 128 && std::all_of(value.begin(), value.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ':';
        });
        if (plausible)
            return value;
        break;
    }
    return protection::newRequestId();
}

// The connection's idle deadline starts again once its request is answered (FramingSocket).
void noteAnswered(QTcpSocket *socket)
{
    if (auto *framed = qobject_cast<protection::FramingSocket *>(socket))
        framed->answered();
}
} // namespace

ApiServer::ApiServer(const Router &router, ServerContext &context, LiveFanout &liveFanout, metrics::RequestMetrics *requestMetrics, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_router(router)
    , m_context(context)
    , m_requestMetrics(requestMetrics)
    , m_live(new LiveHub(context, liveFanout, this))
{
    // Every request with `Upgrade: websocket` completes its handshake inside QAbstractHttpServer and arrives
    // here; LiveHub checks the path, the token and the show, and closes with an error otherwise.
    connect(this, &QAbstractHttpServer::newWebSocketConnection, this, [this] {
        while (hasPendingWebSocketConnections())
            m_live->accept(nextPendingWebSocketConnection());
    });
    m_parkedTimer.setInterval(HttpResponse::kLongPollTickMs);
    connect(&m_parkedTimer, &QTimer::timeout, this, &ApiServer::revisitParked);
    m_mailbox = std::make_shared<Mailbox>();
    m_mailbox->server = this;
}

ApiServer::~ApiServer()
{
    // After this, a late answer finds no server (it posts under the same mutex, so never to a deleted object).
    QMutexLocker lock(&m_mailbox->mutex);
    m_mailbox->server = nullptr;
}

HttpResponse ApiServer::dispatch(const QHttpServerRequest &request, int *route)
{
    // Rate limits first: a flood is turned away before routing, parsing or any database work.
    if (m_context.addressRateLimiter.enabled() || m_context.tokenRateLimiter.enabled()) {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        std::optional<int> retryAfter = m_context.addressRateLimiter.admit(
            m_context.config.trustedProxies.clientAddress(request).toString().toLatin1(), now);
        if (!retryAfter && m_context.tokenRateLimiter.enabled()) {
            QByteArray authorization;
            for (const auto &[name, value] : request.headers()) {
                if (name.compare("Authorization", Qt::CaseInsensitive) == 0)
                    authorization = value;
            }
            if (authorization.startsWith("Bearer "))
                retryAfter = m_context.tokenRateLimiter.admit(authorization.mid(7).trimmed(), now);
        }
        if (retryAfter)
            return HttpResponse::error(ApiError::tooManyRequests(*retryAfter));
    }
    const QString path = request.url().path();
    if (!isCanonicalPath(path))
        return HttpResponse::error(ApiError::badRequest(
            QStringLiteral("invalid_path"), QStringLiteral("The path has an empty segment (a doubled or trailing '/'); use its canonical form.")));
    const Router::Match match = m_router.match(request.method(), path);
    if (!match.route) {
        if (match.pathKnown)
            return HttpResponse::error(ApiError::methodNotAllowed()).withHeader("Allow", match.allowedMethods);
        return HttpResponse::error(ApiError::notFound(QStringLiteral("not_found"), QStringLiteral("There is no such resource.")));
    }
    if (route)
        *route = m_router.indexOf(match.route);
    if (request.body().size() > m_context.config.maxBodyBytes)
        return HttpResponse::error(ApiError::payloadTooLarge(m_context.config.maxBodyBytes));

    RequestContext context{request, match.params, std::nullopt};
    const Access &access = match.route->access;
    // Fail fast: while the database is silent, a request would only wait for it (and hold a worker) to fail later.
    if (!access.withoutDatabase && !m_context.databaseWatchdog.answering())
        return bookingDatabaseUnavailable();
    if (!access.isPublic) {
        const QByteArray authorization = context.header("Authorization");
        if (!authorization.startsWith("Bearer ") || authorization.size() <= 7)
            return HttpResponse::error(ApiError::unauthorized(QStringLiteral("This call needs an 'Authorization: Bearer <token>' header.")));
        bool databaseDown = false;
        context.principal = m_context.auth.authenticate(QString::fromLatin1(authorization.mid(7).trimmed()), &databaseDown);
        if (!context.principal && databaseDown)
            return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering, so the token could not be checked; try again shortly.")));
        if (!context.principal)
            return HttpResponse::error(ApiError::unauthorized(QStringLiteral("The token is unknown, revoked or expired.")));
        if (context.principal->locked && !access.allowsLockedSession)
            return HttpResponse::error(ApiError{401, QStringLiteral("session_locked"),
                                                QStringLiteral("The session was idle too long and is locked; enter the password or PIN again "
                                                               "(POST /api/v1/sessions/reauth)."),
                                                {}});
        if (!(access.roles & roleBit(context.principal->role)))
            return HttpResponse::error(ApiError::forbidden(
                QStringLiteral("The role '%1' may not do this.").arg(toString(context.principal->role))));
    }
    if (const auto refused = refuseUncleanInput(request))
        return HttpResponse::error(*refused);
    if (access.needsReauthentication) {
        if (const auto refused = requireReauthentication(context))
            return *refused;
    }
    return match.route->handler(context);
}

HttpResponse ApiServer::whileDatabaseSilent(HttpResponse response) const
{
    // A statement that the watchdog ended (or that failed while the database was silent) may surface as a generic
    // failure: it is the database's unavailability, and a retry in a moment is the right answer.
    if (response.status == 500 && !m_context.databaseWatchdog.answering())
        return bookingDatabaseUnavailable();
    return response;
}

bool ApiServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Qt 6.4 asks this function first about a WebSocket upgrade and completes the handshake only when it returns
    // true having written nothing; LiveHub then checks the path, the token and the show on the open socket.
    for (const auto &[name, value] : request.headers()) {
        if (name.compare("Upgrade", Qt::CaseInsensitive) == 0 && value.compare("websocket", Qt::CaseInsensitive) == 0)
            return true;
    }
    QElapsedTimer timer;
    timer.start();
    const QByteArray requestId = requestIdOf(request);
    const RequestIdScope logLinesOfThisRequest(requestId);
    int route = -1;
    HttpResponse response = whileDatabaseSilent(dispatch(request, &route));
    QHttpServerResponder responder = makeResponder(request, socket);
    if (response.longPoll) {
        // Parked on this thread's event loop: the thread goes on serving other requests meanwhile. The client sends
        // nothing else on this connection until it has the answer (one request in flight per connection).
        m_parked.push_back(Parked{QPointer<QTcpSocket>(socket), std::move(responder), std::move(response), timer, route, requestId});
        if (!m_parkedTimer.isActive())
            m_parkedTimer.start();
        return true;
    }
    if (response.deferred) {
        const quint64 id = ++m_nextDeferred;
        m_deferred.emplace(id, Deferred{QPointer<QTcpSocket>(socket), std::move(responder), timer, route, requestId});
        // May run the answer at once (on this thread) or later on another: either way it comes back through the
        // event loop, after this function returned.
        response.deferred([mailbox = m_mailbox, id](HttpResponse answer) {
            QMutexLocker lock(&mailbox->mutex);
            if (!mailbox->server)
                return; // shutting down: nobody to answer
            QMetaObject::invokeMethod(
                mailbox->server, [server = mailbox->server, id, answer = std::move(answer)]() mutable { server->answerDeferred(id, std::move(answer)); },
                Qt::QueuedConnection);
        });
        return true;
    }
    addTotalTime(response, timer);
    answer(socket, responder, response, timer, route, requestId);
    // The path is decoded: %0A would start a forged log line, so control characters are written escaped.
    // Behind a trusted proxy the client's address, not the proxy's (TrustedProxies).
    qCDebug(lcHttp).noquote() << m_context.config.trustedProxies.clientAddress(request).toString() << methodName(request.method()) << escapedForLog(request.url().path()) << response.status << timer.nsecsElapsed() / 1000 << "us";
    return true;
}

void ApiServer::answerDeferred(quint64 id, HttpResponse response)
{
    const auto it = m_deferred.find(id);
    if (it == m_deferred.end())
        return;
    if (it->second.socket && it->second.socket->state() == QAbstractSocket::ConnectedState) {
        response = whileDatabaseSilent(std::move(response));
        addTotalTime(response, it->second.received);
        const RequestIdScope logLinesOfThisRequest(it->second.requestId);
        answer(it->second.socket, it->second.responder, response, it->second.received, it->second.route, it->second.requestId);
    }
    m_deferred.erase(it);
}

void ApiServer::answer(QTcpSocket *socket, QHttpServerResponder &responder, const HttpResponse &response, const QElapsedTimer &received, int route,
                       const QByteArray &requestId)
{
    write(responder, response, requestId);
    noteAnswered(socket);
    if (m_requestMetrics)
        m_requestMetrics->record(route, response.status, received.nsecsElapsed() / 1000);
}

void ApiServer::write(QHttpServerResponder &responder, const HttpResponse &response, const QByteArray &requestId)
{
    responder.writeStatusLine(static_cast<QHttpServerResponder::StatusCode>(response.status));
    responder.writeHeader("X-Request-Id", requestId);
    if (!response.contentType.isEmpty())
        responder.writeHeader("Content-Type", response.contentType);
    for (const auto &[name, value] : response.headers)
        responder.writeHeader(name, value);
    responder.writeHeader("Content-Length", QByteArray::number(response.body.size()));
    responder.writeBody(response.body);
}

void ApiServer::revisitParked()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (!it->socket || it->socket->state() != QAbstractSocket::ConnectedState) {
            it = m_parked.erase(it); // the client left; nobody to answer
            continue;
        }
        const bool timedOut = now >= it->response.longPollUntilMs;
        std::optional<HttpResponse> answer = it->response.longPoll(timedOut);
        if (!answer && timedOut)
            answer = HttpResponse::error(ApiError::internal()); // a long poll must answer at its deadline
        if (!answer) {
            ++it;
            continue;
        }
        answer->longPoll = nullptr; // answered now, whatever it says
        this->answer(it->socket, it->responder, *answer, it->received, it->route, it->requestId);
        it = m_parked.erase(it);
    }
    if (m_parked.empty())
        m_parkedTimer.stop();
}

void ApiServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Not reached: handleRequest() answers every request, including unknown paths.
    makeResponder(request, socket).write(QHttpServerResponder::StatusCode::NotFound);
}

} // namespace marquee::http
