// SPDX-License-Identifier: AGPL-3.0-or-later
#include "apiserver.h"

#include "servercontext.h"

#include <QElapsedTimer>
#include <QHttpServerResponder>
#include <QLoggingCategory>
#include <QTcpSocket>

Q_LOGGING_CATEGORY(lcHttp, "marquee.http")

namespace marquee::http {

ApiServer::ApiServer(const Router &router, ServerContext &context, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_router(router)
    , m_context(context)
{
}

HttpResponse ApiServer::dispatch(const QHttpServerRequest &request)
{
    const Router::Match match = m_router.match(request.method(), request.url().path());
    if (!match.route) {
        if (match.pathKnown)
            return HttpResponse::error(ApiError::methodNotAllowed()).withHeader("Allow", match.allowedMethods);
        return HttpResponse::error(ApiError::notFound(QStringLiteral("not_found"), QStringLiteral("There is no such resource.")));
    }
    if (request.body().size() > m_context.config.maxBodyBytes)
        return HttpResponse::error(ApiError::payloadTooLarge(m_context.config.maxBodyBytes));

    RequestContext context{request, match.params, std::nullopt};
    const Access &access = match.route->access;
    if (!access.isPublic) {
        const QByteArray authorization = context.header("Authorization");
        if (!authorization.startsWith("Bearer ") || authorization.size() <= 7)
            return HttpResponse::error(ApiError::unauthorized(QStringLiteral("This call needs an 'Authorization: Bearer <token>' header.")));
        context.principal = m_context.auth.authenticate(QString::fromLatin1(authorization.mid(7).trimmed()));
        if (!context.principal)
            return HttpResponse::error(ApiError::unauthorized(QStringLiteral("The token is unknown, revoked or expired.")));
        if (!(access.roles & roleBit(context.principal->role)))
            return HttpResponse::error(ApiError::forbidden(
                QStringLiteral("The role '%1' may not do this.").arg(toString(context.principal->role))));
    }
    return match.route->handler(context);
}

bool ApiServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    QElapsedTimer timer;
    timer.start();
    const HttpResponse response = dispatch(request);
    QHttpServerResponder responder = makeResponder(request, socket);
    responder.writeStatusLine(static_cast<QHttpServerResponder::StatusCode>(response.status));
    if (!response.contentType.isEmpty())
        responder.writeHeader("Content-Type", response.contentType);
    for (const auto &[name, value] : response.headers)
        responder.writeHeader(name, value);
    responder.writeHeader("Content-Length", QByteArray::number(response.body.size()));
    responder.writeBody(response.body);
    qCDebug(lcHttp).noquote() << methodName(request.method()) << request.url().path() << response.status << timer.nsecsElapsed() / 1000 << "us";
    return true;
}

void ApiServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Not reached: handleRequest() answers every request, including unknown paths.
    makeResponder(request, socket).write(QHttpServerResponder::StatusCode::NotFound);
}

} // namespace marquee::http
