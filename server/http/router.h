// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"
#include "http/httpresponse.h"
#include "store/authrepository.h"

#include <QHash>
#include <QHttpServerRequest>
#include <QStringList>
#include <functional>
#include <optional>
#include <variant>

namespace marquee::http {

/** @brief Everything a handler may look at: the request, the path parameters and the caller. */
struct RequestContext {
    const QHttpServerRequest &request;
    QHash<QString, QString> params;
    std::optional<store::Principal> principal;

    /** @brief A path parameter that must be a positive integer id; std::nullopt when it is not. */
    std::optional<qint64> idParam(const QString &name) const;
    /** @brief A header, looked up case-insensitively; empty when absent. */
    QByteArray header(const QByteArray &name) const;
    const store::Principal &caller() const { return *principal; }
};

using Handler = std::function<HttpResponse(RequestContext &)>;
/** @brief A handler of a route whose body is a JSON object: the router has parsed it (and answered 400 when it is not one). */
using JsonHandler = std::function<HttpResponse(RequestContext &, const QJsonObject &body)>;

/** @brief Who may call a route: nobody needs a token (public) or a token of one of the roles. */
struct Access {
    bool isPublic = false;
    RoleMask roles = 0;
    /** @brief Also callable by a session locked after inactivity (only re-authentication is). */
    bool allowsLockedSession = false;
    /** @brief Moves money out or overrides policy: a staff session must have re-authenticated (requireReauthentication). */
    bool needsReauthentication = false;
    /** @brief Answers without the database (health checks): served even while the database is not answering. */
    bool withoutDatabase = false;
    static Access anyone() { return {true, 0}; }
    static Access roles_(RoleMask mask) { return {false, mask}; }
    static Access lockedSessionToo(RoleMask mask) { return {false, mask, true}; }
    Access answeredWithoutDatabase() const
    {
        Access access = *this;
        access.withoutDatabase = true;
        return access;
    }
    Access withReauthentication() const
    {
        Access access = *this;
        access.needsReauthentication = true;
        return access;
    }
};

/**
 * @brief The answer for a route that moves money out or overrides policy (refunds, overrides, drawer
 * operations) when a staff session has not re-authenticated recently (POST /api/v1/sessions/reauth);
 * std::nullopt when the caller may go on. Devices are not people and have nothing to re-enter: not asked.
 */
std::optional<HttpResponse> requireReauthentication(const RequestContext &request);

/** @brief The request's Idempotency-Key header (empty when absent), or the error for one over 255 characters. */
std::variant<QString, ApiError> idempotencyKey(const RequestContext &request);

/**
 * @brief Maps method + path pattern (`/api/v1/shows/{show_id}/hold`) to a handler and its access rule.
 *
 * Built once at start-up and then only read, so every worker thread shares one router.
 */
class Router
{
public:
    struct Route {
        QHttpServerRequest::Method method;
        QStringList segments;
        Access access;
        Handler handler;
        QString pattern;
    };
    struct Match {
        const Route *route = nullptr;
        QHash<QString, QString> params;
        bool pathKnown = false; ///< some route has this path, with another method (405)
        QByteArray allowedMethods;
    };

    void add(QHttpServerRequest::Method method, const QString &pattern, Access access, Handler handler);
    /** @brief A route whose body must be a JSON object: malformed JSON or another value is answered here (400). */
    void addJson(QHttpServerRequest::Method method, const QString &pattern, Access access, JsonHandler handler);
    Match match(QHttpServerRequest::Method method, const QString &path) const;
    const std::vector<Route> &routes() const { return m_routes; }
    /** @brief The position of @p route (one of routes()) in the list; stable once the server runs. */
    int indexOf(const Route *route) const { return int(route - m_routes.data()); }

private:
    std::vector<Route> m_routes;
};

QByteArray methodName(QHttpServerRequest::Method method);

} // namespace marquee::http
