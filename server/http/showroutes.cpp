// SPDX-License-Identifier: AGPL-3.0-or-later
// Creating and editing shows (manager and admin).
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "core/money.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "store/showrepository.h"
#include "store/staffrepository.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {

// An optional ISO 8601 timestamp with an offset; an error for a present but unreadable value.
Result<std::optional<QDateTime>> optionalTime(const QJsonObject &body, const QString &field)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::optional<QDateTime>();
    const QDateTime time = value.isString() ? fromIso(value.toString()) : QDateTime();
    if (!time.isValid())
        return ApiError::badRequest(QStringLiteral("invalid_time"),
                                    QStringLiteral("'%1' must be an ISO 8601 time with an offset, e.g. 2026-12-01T19:45:00Z.").arg(field));
    return std::optional<QDateTime>(time);
}

// {tier: amount_minor}: non-empty tier names, non-negative integer amounts.
Result<QMap<QString, qint64>> priceTiers(const QJsonObject &body, bool required)
{
    const QJsonValue value = body.value(QStringLiteral("price_tiers"));
    QMap<QString, qint64> prices;
    if (value.isUndefined() || value.isNull()) {
        if (required)
            return ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("The field 'price_tiers' is required."));
        return prices;
    }
    if (!value.isObject() || value.toObject().isEmpty())
        return ApiError::badRequest(QStringLiteral("invalid_type"),
                                    QStringLiteral("'price_tiers' must be an object of tier → amount in minor units."));
    const QJsonObject object = value.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const auto amount = requiredInteger(object, it.key());
        if (isError(amount) || std::get<qint64>(amount) < 0 || it.key().isEmpty() || it.key().size() > 40)
            return ApiError::badRequest(QStringLiteral("invalid_price"),
                                        QStringLiteral("The price of tier '%1' must be a non-negative integer of minor units.").arg(it.key()));
        prices.insert(it.key(), std::get<qint64>(amount));
    }
    return prices;
}
} // namespace

void registerShowRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/shows"), Access::roles_(kManagerRoles), [&context](RequestContext &request, const QJsonObject &body) {
        const auto movieId = requiredInteger(body, QStringLiteral("movie_id"));
        const auto screenId = requiredInteger(body, QStringLiteral("screen_id"));
        const auto currency = optionalString(body, QStringLiteral("currency"), 3);
        const auto startsAt = optionalTime(body, QStringLiteral("starts_at"));
        const auto salesOpenAt = optionalTime(body, QStringLiteral("sales_open_at"));
        const auto salesCloseAt = optionalTime(body, QStringLiteral("sales_close_at"));
        const auto prices = priceTiers(body, true);
        if (const ApiError *error = firstError(movieId, screenId, currency, startsAt, salesOpenAt, salesCloseAt, prices))
            return HttpResponse::error(*error);
        if (!std::get<std::optional<QDateTime>>(startsAt))
            return invalidRequest(QStringLiteral("missing_field"), QStringLiteral("The field 'starts_at' is required."));
        const QString currencyCode = std::get<QString>(currency);
        if (body.value(QStringLiteral("currency")).isString() && !isCurrencyCode(currencyCode))
            return invalidRequest(QStringLiteral("invalid_currency"), QStringLiteral("'currency' must be an ISO 4217 code such as EUR or INR."));

        store::NewShow show;
        show.movieId = std::get<qint64>(movieId);
        show.screenId = std::get<qint64>(screenId);
        show.startsAt = *std::get<std::optional<QDateTime>>(startsAt);
        show.salesOpenAt = std::get<std::optional<QDateTime>>(salesOpenAt).value_or(QDateTime::currentDateTimeUtc());
        show.salesCloseAt = std::get<std::optional<QDateTime>>(salesCloseAt).value_or(show.startsAt);
        show.prices = std::get<QMap<QString, qint64>>(prices);
        if (show.startsAt <= QDateTime::currentDateTimeUtc())
            return HttpResponse::error(ApiError::unprocessable(QStringLiteral("starts_in_past"), QStringLiteral("A new show must start in the future.")));
        if (!(show.salesOpenAt <= show.salesCloseAt && show.salesCloseAt <= show.startsAt))
            return invalidRequest(QStringLiteral("invalid_sales_window"), QStringLiteral("Sales must open before they close, and close no later than the start."));

        store::ShowRepository shows(context.database);
        bool exists = false;
        if (!shows.movieExists(show.movieId, &exists))
            return bookingDatabaseUnavailable();
        if (!exists)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("movie_not_found"), QStringLiteral("There is no movie with this id.")));
        bool ok = false;
        QString venueCurrency;
        const auto tiers = shows.screenTiers(show.screenId, &ok, &venueCurrency);
        if (!ok)
            return bookingDatabaseUnavailable();
        if (!tiers)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("screen_not_found"), QStringLiteral("There is no screen with this id.")));
        // Without a currency the show sells in its venue's; a venue that has none set needs it spelled out.
        show.currency = currencyCode.isEmpty() ? venueCurrency : currencyCode;
        if (show.currency.isEmpty())
            return invalidRequest(QStringLiteral("missing_field"),
                                  QStringLiteral("The venue of this screen has no currency set, so 'currency' is required."));
        // Every seat must have a price: a tier without one would sell seats for nothing.
        for (const QString &tier : *tiers) {
            if (!show.prices.contains(tier))
                return invalidRequest(QStringLiteral("missing_price"), QStringLiteral("The screen has seats of tier '%1', which needs a price.").arg(tier));
        }
        const auto showId = shows.addShow(show, nullptr,
                                          store::StaffRepository::auditShow(request.caller(), {QStringLiteral("show.create"), {}, {}, body}));
        if (!showId)
            return bookingDatabaseUnavailable();
        const auto created = context.catalog.show(*showId);
        return created ? HttpResponse::json(201, *created) : bookingDatabaseUnavailable();
    });

    router.add(Method::Patch, QStringLiteral("/api/v1/shows/{show_id}"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return invalidRequest(QStringLiteral("invalid_id"), QStringLiteral("The show id must be a positive integer."));
        const auto parsed = parseJsonObject(request.request.body());
        if (isError(parsed))
            return HttpResponse::error(std::get<ApiError>(parsed));
        const QJsonObject &body = std::get<QJsonObject>(parsed);
        static const QStringList editable = {QStringLiteral("starts_at"), QStringLiteral("sales_open_at"), QStringLiteral("sales_close_at"),
                                             QStringLiteral("price_tiers"), QStringLiteral("waiting_room"), QStringLiteral("reason")};
        for (const QString &key : body.keys()) {
            if (!editable.contains(key))
                return invalidRequest(QStringLiteral("not_editable"),
                               QStringLiteral("'%1' cannot be changed; editable fields are %2.").arg(key, editable.join(QStringLiteral(", "))));
        }
        store::ShowRepository::ShowChanges changes;
        const auto startsAt = optionalTime(body, QStringLiteral("starts_at"));
        const auto salesOpenAt = optionalTime(body, QStringLiteral("sales_open_at"));
        const auto salesCloseAt = optionalTime(body, QStringLiteral("sales_close_at"));
        const auto prices = priceTiers(body, false);
        const auto reason = optionalString(body, QStringLiteral("reason"), 500);
        if (const ApiError *error = firstError(startsAt, salesOpenAt, salesCloseAt, prices, reason))
            return HttpResponse::error(*error);
        if (body.contains(QStringLiteral("waiting_room"))) {
            if (!body.value(QStringLiteral("waiting_room")).isBool())
                return invalidRequest(QStringLiteral("invalid_type"), QStringLiteral("'waiting_room' must be true or false."));
            changes.waitingRoom = body.value(QStringLiteral("waiting_room")).toBool();
        }
        changes.startsAt = std::get<std::optional<QDateTime>>(startsAt);
        changes.salesOpenAt = std::get<std::optional<QDateTime>>(salesOpenAt);
        changes.salesCloseAt = std::get<std::optional<QDateTime>>(salesCloseAt);
        changes.prices = std::get<QMap<QString, qint64>>(prices);

        const auto before = context.catalog.show(*showId);
        if (!before)
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        if (fromIso(before->value(QStringLiteral("starts_at")).toString()) <= QDateTime::currentDateTimeUtc())
            return HttpResponse::error(ApiError::unprocessable(QStringLiteral("show_started"), QStringLiteral("A show that has started cannot be edited.")));

        store::ShowRepository shows(context.database);
        QString why;
        const QJsonObject details{{QStringLiteral("before"), *before}, {QStringLiteral("change"), body}};
        const auto result = shows.updateShow(
            *showId, changes, &why,
            store::StaffRepository::auditShow(request.caller(), {QStringLiteral("show.update"), {}, std::get<QString>(reason), details}));
        switch (result) {
        case store::ShowRepository::UpdateResult::NotFound:
            return HttpResponse::error(ApiError::notFound(QStringLiteral("show_not_found"), QStringLiteral("There is no show with this id.")));
        case store::ShowRepository::UpdateResult::Invalid:
            return invalidRequest(QStringLiteral("invalid_sales_window"), why);
        case store::ShowRepository::UpdateResult::Error:
            return bookingDatabaseUnavailable();
        case store::ShowRepository::UpdateResult::Updated:
            break;
        }
        // Prices live in the cached seat-map layout; seats themselves are never touched by an edit.
        context.seatMaps.invalidate(*showId);
        const auto after = context.catalog.show(*showId);
        return after ? HttpResponse::json(200, *after) : bookingDatabaseUnavailable();
    });
}

} // namespace marquee::http
