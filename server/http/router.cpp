// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/router.h"

#include "core/jsonbody.h"
#include "core/textcheck.h"

namespace marquee::http {

std::optional<qint64> RequestContext::idParam(const QString &name) const
{
    // Only the canonical spelling: "+1", "01" and " 7" would otherwise name the same resource as "1" and "7".
    return canonicalId(params.value(name));
}

QByteArray RequestContext::header(const QByteArray &name) const
{
    for (const auto &[key, value] : request.headers()) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

std::optional<HttpResponse> requireReauthentication(const RequestContext &request)
{
    const store::Principal &caller = request.caller();
    if (caller.kind != store::Principal::Kind::Session || caller.isElevated())
        return std::nullopt;
    return HttpResponse::error(ApiError{403, QStringLiteral("reauth_required"),
                                        QStringLiteral("Enter your password or PIN again (POST /api/v1/sessions/reauth) to do this."), {}});
}

std::variant<QString, ApiError> idempotencyKey(const RequestContext &request)
{
    const QByteArray key = request.header("Idempotency-Key");
    if (key.size() > 255)
        return ApiError::badRequest(QStringLiteral("invalid_idempotency_key"), QStringLiteral("The Idempotency-Key header is longer than 255 characters."));
    return QString::fromUtf8(key);
}

QByteArray methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get:
        return "GET";
    case QHttpServerRequest::Method::Post:
        return "POST";
    case QHttpServerRequest::Method::Put:
        return "PUT";
    case QHttpServerRequest::Method::Patch:
        return "PATCH";
    case QHttpServerRequest::Method::Delete:
        return "DELETE";
    case QHttpServerRequest::Method::Head:
        return "HEAD";
    case QHttpServerRequest::Method::Options:
        return "OPTIONS";
    default:
        return "OTHER";
    }
}

void Router::addJson(QHttpServerRequest::Method method, const QString &pattern, Access access, JsonHandler handler)
{
    add(method, pattern, access, [handler = std::move(handler)](RequestContext &request) {
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        return handler(request, std::get<QJsonObject>(parsed));
    });
}

void Router::add(QHttpServerRequest::Method method, const QString &pattern, Access access, Handler handler)
{
    m_routes.push_back(Route{method, pattern.split(QLatin1Char('/'), Qt::SkipEmptyParts), access, std::move(handler), pattern});
}

Router::Match Router::match(QHttpServerRequest::Method method, const QString &path) const
{
    Match result;
    // Empty segments are kept, so "/orders/14/" is not "/orders/14" (ApiServer refuses such paths before this).
    QStringList segments = path.split(QLatin1Char('/'));
    if (!segments.isEmpty() && segments.front().isEmpty())
        segments.removeFirst();
    for (const Route &route : m_routes) {
        if (route.segments.size() != segments.size())
            continue;
        QHash<QString, QString> params;
        bool matches = true;
        for (qsizetype i = 0; i < segments.size() && matches; ++i) {
            const QString &expected = route.segments[i];
            if (expected.startsWith(QLatin1Char('{')) && expected.endsWith(QLatin1Char('}')))
                params.insert(expected.mid(1, expected.size() - 2), segments[i]);
            else
                matches = expected == segments[i];
        }
        if (!matches)
            continue;
        if (route.method == method) {
            result.route = &route;
            result.params = std::move(params);
            return result;
        }
        result.pathKnown = true;
        if (!result.allowedMethods.isEmpty())
            result.allowedMethods += ", ";
        result.allowedMethods += methodName(route.method);
    }
    return result;
}

} // namespace marquee::http
