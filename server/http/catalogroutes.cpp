// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/textcheck.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse badId(const QString &what)
{
    return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_id"), QStringLiteral("The %1 id must be a positive integer.").arg(what)));
}
HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; try again shortly.")));
}
HttpResponse seatMapFailure(SeatMapService::Outcome outcome)
{
    if (outcome == SeatMapService::Outcome::NotFound)
        return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
    return storeFailure();
}

/**
 * @brief A body kept by the seat-map service as a response: 304 when @p notModified, else its deflated copy when
 * the client takes deflate and the copy is ready (Qt's network access manager always takes it), else as it is.
 * The bytes are the kept ones (implicitly shared), never copied per request.
 */
HttpResponse keptBodyResponse(RequestContext &request, const RenderedSeatMap &kept, bool notModified, const QByteArray &cacheControl)
{
    const QByteArray accept = request.header("Accept-Encoding").toLower();
    const bool deflate = !notModified && !kept.deflated.isEmpty() && accept.contains("deflate") && !accept.contains("deflate;q=0");
    HttpResponse response = notModified ? HttpResponse::noBody(304) : HttpResponse::rawJson(200, deflate ? kept.deflated : kept.body);
    response.withHeader("ETag", kept.etag).withHeader("Cache-Control", cacheControl).withHeader("Vary", "Accept-Encoding");
    if (deflate)
        response.withHeader("Content-Encoding", "deflate");
    return response;
}

HttpResponse seatMapResponse(RequestContext &request, ServerContext &context, SeatMapView view)
{
    const auto showId = request.idParam(QStringLiteral("show_id"));
    if (!showId)
        return badId(QStringLiteral("show"));
    RenderedSeatMap map;
    bool notModified = false;
    const SeatMapService::Outcome outcome = context.seatMaps.render(*showId, view, &map, request.header("If-None-Match"), &notModified);
    return outcome == SeatMapService::Outcome::Ok ? keptBodyResponse(request, map, notModified, "no-cache") : seatMapFailure(outcome);
}
} // namespace

void registerCatalogRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/cities"), Access::roles_(kAllRoles), [&context](RequestContext &) {
        const auto cities = context.catalog.cities();
        return cities ? HttpResponse::json(200, *cities) : storeFailure();
    });

    router.add(Method::Get, QStringLiteral("/api/v1/cities/{city_id}/movies"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto cityId = request.idParam(QStringLiteral("city_id"));
        if (!cityId)
            return badId(QStringLiteral("city"));
        bool exists = false;
        if (!context.catalog.cityExists(*cityId, &exists))
            return storeFailure();
        if (!exists)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("city_not_found"), QStringLiteral("There is no city with this id.")));
        const auto movies = context.catalog.moviesInCity(*cityId);
        return movies ? HttpResponse::json(200, *movies) : storeFailure();
    });

    router.add(Method::Get, QStringLiteral("/api/v1/movies/{movie_id}/shows"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto movieId = request.idParam(QStringLiteral("movie_id"));
        if (!movieId)
            return badId(QStringLiteral("movie"));
        const QUrlQuery query = request.request.query();
        std::optional<qint64> cityId;
        if (query.hasQueryItem(QStringLiteral("city")) && !query.queryItemValue(QStringLiteral("city")).isEmpty()) {
            cityId = canonicalId(query.queryItemValue(QStringLiteral("city")));
            if (!cityId)
                return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("city must be a positive integer id.")));
        }
        std::optional<QDate> date;
        if (query.hasQueryItem(QStringLiteral("date")) && !query.queryItemValue(QStringLiteral("date")).isEmpty()) {
            const QDate parsed = QDate::fromString(query.queryItemValue(QStringLiteral("date")), QStringLiteral("yyyy-MM-dd"));
            if (!parsed.isValid())
                return HttpResponse::error(ApiError::badRequest(QStringLiteral("invalid_query"), QStringLiteral("date must be YYYY-MM-DD.")));
            date = parsed;
        }
        if (cityId) {
            bool exists = false;
            if (!context.catalog.cityExists(*cityId, &exists))
                return storeFailure();
            if (!exists)
                return HttpResponse::error(ApiError::notFound(QStringLiteral("city_not_found"), QStringLiteral("There is no city with this id.")));
        }
        const auto shows = context.catalog.showsOfMovie(*movieId, cityId, date);
        if (!shows)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("movie_not_found"), QStringLiteral("There is no movie with this id.")));
        return HttpResponse::json(200, *shows);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return badId(QStringLiteral("show"));
        const auto show = context.catalog.show(*showId);
        if (!show)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        return HttpResponse::json(200, *show);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/seatmap"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return seatMapResponse(request, context, SeatMapView::Full);
    });

    // The compact pair (…/availability here, …/layout below): the layout once, then small availability bodies per
    // version.
    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/availability"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        return seatMapResponse(request, context, SeatMapView::Availability);
    });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/layout"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return badId(QStringLiteral("show"));
        RenderedSeatMap layout;
        bool notModified = false;
        const SeatMapService::Outcome outcome = context.seatMaps.layout(*showId, &layout, request.header("If-None-Match"), &notModified);
        // Seats of a show never change, so a client may keep the layout as long as it likes; the availability's
        // layout_etag tells it if that ever stops being true.
        return outcome == SeatMapService::Outcome::Ok ? keptBodyResponse(request, layout, notModified, "private, max-age=31536000, immutable")
                                                      : seatMapFailure(outcome);
    });
}

} // namespace marquee::http
