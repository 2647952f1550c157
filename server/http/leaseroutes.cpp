// SPDX-License-Identifier: AGPL-3.0-or-later
// Seat-block leases: a till's seats for offline sale, given back, and the sales it reports under them.
#include "core/errorcatalogue.h"
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "core/ticketcodec.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <algorithm>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
constexpr int kMaxLeaseSeats = 1000;
/** @brief A till, or staff (a session at a till leases for that till; a manager also revokes and releases). */
constexpr RoleMask kLeaseRoles = roleBit(Role::Till) | kStaffRoles;

// The one place a lease path's outcome (LeaseService) becomes HTTP: each value with its status and body, each
// Refusal through the catalogue.
HttpResponse answer(const PlacedLease &placed)
{
    return HttpResponse::json(201, placed.lease);
}
HttpResponse answer(const LeaseView &view)
{
    return HttpResponse::json(200, view.lease);
}
HttpResponse answer(const ShowLeases &leases)
{
    return HttpResponse::json(
        200, QJsonObject{{QStringLiteral("show_id"), leases.showId}, {QStringLiteral("leases"), leases.leases}, {QStringLiteral("settings"), leases.settings}});
}
HttpResponse answer(const EndedLease &ended)
{
    QJsonObject body = ended.lease;
    body.insert(QStringLiteral("freed_seats"), QJsonArray::fromStringList(ended.freedSeats));
    return HttpResponse::json(200, body);
}
HttpResponse answer(const BookedSale &sale)
{
    // Only what the sale and its booking are: the same body for the first report and every retry.
    const QJsonObject &booking = sale.booking;
    return HttpResponse::json(201,
        QJsonObject{{QStringLiteral("lease_id"), sale.leaseId}, {QStringLiteral("device_seq"), sale.deviceSeq},
            {QStringLiteral("order_id"), booking.value(QStringLiteral("order_id"))},
            {QStringLiteral("booking_id"), booking.value(QStringLiteral("booking_id"))},
            {QStringLiteral("booking_ref"), booking.value(QStringLiteral("booking_ref"))},
            {QStringLiteral("show_id"), booking.value(QStringLiteral("show_id"))},
            {QStringLiteral("seat_ids"), booking.value(QStringLiteral("seats"))},
            {QStringLiteral("amount_minor"), booking.value(QStringLiteral("amount_minor"))},
            {QStringLiteral("currency"), booking.value(QStringLiteral("currency"))}});
}
HttpResponse answer(const LeaseSettings &settings)
{
    return HttpResponse::json(200, settings.settings);
}
HttpResponse answer(const Refusal &refusal)
{
    return HttpResponse::error(apiError(refusal));
}
template<typename T> HttpResponse answer(const LeaseOutcome<T> &outcome)
{
    return std::visit([](const auto &value) { return answer(value); }, outcome);
}
HttpResponse badId(const QString &what)
{
    return invalidRequest(QStringLiteral("invalid_id"), QStringLiteral("The %1 id must be a positive integer.").arg(what));
}
QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}
QStringList sortedBytewise(QStringList seats)
{
    std::sort(seats.begin(), seats.end(), [](const QString &a, const QString &b) { return a.toUtf8() < b.toUtf8(); });
    return seats;
}

std::variant<LeaseRequest, ApiError> parseLeaseRequest(qint64 showId, const QString &key, const QJsonObject &body)
{
    LeaseRequest request;
    request.showId = showId;
    request.idempotencyKey = key;
    const bool named = body.contains(QStringLiteral("seat_ids"));
    const bool best = body.contains(QStringLiteral("best"));
    if (named == best)
        return ApiError::badRequest(QStringLiteral("invalid_lease"), QStringLiteral("Name the seats in 'seat_ids' or ask for 'best': N, one of the two."));
    if (named) {
        const auto seats = requiredStringArray(body, QStringLiteral("seat_ids"));
        if (const auto *error = std::get_if<ApiError>(&seats))
            return *error;
        request.seatIds = std::get<QStringList>(seats);
        if (request.seatIds.size() > kMaxLeaseSeats)
            return apiError(ErrorCode::TooManySeats, {QString::number(kMaxLeaseSeats)});
    } else {
        const auto count = requiredInteger(body, QStringLiteral("best"));
        if (const auto *error = std::get_if<ApiError>(&count))
            return *error;
        if (std::get<qint64>(count) < 1 || std::get<qint64>(count) > kMaxLeaseSeats)
            return ApiError::badRequest(QStringLiteral("invalid_lease"), QStringLiteral("'best' must be 1 to %1.").arg(kMaxLeaseSeats));
        request.best = int(std::get<qint64>(count));
    }
    const QJsonValue deviceKey = body.value(QStringLiteral("device_public_key"));
    if (!deviceKey.isUndefined() && !deviceKey.isNull()) {
        // Canonical standard base64 of exactly 32 bytes: one spelling per key, so a retry hashes the same.
        const QByteArray text = deviceKey.toString().toLatin1();
        auto decoded = QByteArray::fromBase64Encoding(text, QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
        if (!deviceKey.isString() || !decoded || decoded.decoded.size() != TicketCodec::kKeyBytes || decoded.decoded.toBase64() != text)
            return apiError(ErrorCode::InvalidDevicePublicKey);
        request.devicePublicKey = decoded.decoded;
    }
    request.fingerprint = sha256(QByteArray::number(showId) + '|' + sortedBytewise(request.seatIds).join(QLatin1Char(',')).toUtf8() + '|'
                                 + QByteArray::number(request.best)
                                 + (request.devicePublicKey.isEmpty() ? QByteArray() : QByteArray("|") + request.devicePublicKey.toHex()));
    return request;
}

std::variant<store::LeaseSale, ApiError> parseSale(const QJsonObject &body)
{
    store::LeaseSale sale;
    const auto seq = requiredInteger(body, QStringLiteral("device_seq"));
    const auto seats = requiredStringArray(body, QStringLiteral("seat_ids"));
    const auto amount = requiredInteger(body, QStringLiteral("amount_minor"));
    const auto currency = requiredString(body, QStringLiteral("currency"), 3);
    const auto tendered = requiredInteger(body, QStringLiteral("tendered_minor"));
    const auto soldAt = requiredString(body, QStringLiteral("sold_at"), 40);
    if (const ApiError *error = firstError(seq, seats, amount, currency, tendered, soldAt))
        return *error;
    sale.deviceSeq = std::get<qint64>(seq);
    sale.seatIds = std::get<QStringList>(seats);
    sale.amountMinor = std::get<qint64>(amount);
    sale.currency = std::get<QString>(currency);
    sale.tenderedMinor = std::get<qint64>(tendered);
    sale.soldAt = fromIso(std::get<QString>(soldAt));
    if (sale.deviceSeq < 1)
        return ApiError::badRequest(QStringLiteral("invalid_sale"), QStringLiteral("'device_seq' must be a positive integer."));
    if (sale.seatIds.size() > kMaxLeaseSeats)
        return apiError(ErrorCode::TooManySeats, {QString::number(kMaxLeaseSeats)});
    if (sale.amountMinor < 0)
        return ApiError::badRequest(QStringLiteral("invalid_sale"), QStringLiteral("'amount_minor' must not be negative."));
    static const QRegularExpression iso4217(QStringLiteral("^[A-Z]{3}$"));
    if (!iso4217.match(sale.currency).hasMatch())
        return ApiError::badRequest(QStringLiteral("invalid_sale"), QStringLiteral("'currency' must be an ISO 4217 code such as EUR."));
    if (!sale.soldAt.isValid())
        return ApiError::badRequest(QStringLiteral("invalid_sale"), QStringLiteral("'sold_at' must be an ISO 8601 time."));
    const QJsonValue tickets = body.value(QStringLiteral("tickets"));
    if (!tickets.isUndefined() && !tickets.isNull()) {
        if (!tickets.isArray() || tickets.toArray().size() > kMaxLeaseSeats)
            return ApiError::badRequest(QStringLiteral("invalid_sale"), QStringLiteral("'tickets' must be an array of the tickets printed."));
        for (const QJsonValue &ticket : tickets.toArray()) {
            const QJsonObject t = ticket.toObject();
            const auto id = requiredString(t, QStringLiteral("ticket_id"), 64);
            const auto seat = requiredString(t, QStringLiteral("seat_id"), 32);
            const auto code = optionalString(t, QStringLiteral("code"), 2000);
            if (!ticket.isObject() || firstError(id, seat, code) || !sale.seatIds.contains(std::get<QString>(seat)))
                return ApiError::badRequest(QStringLiteral("invalid_sale"),
                                            QStringLiteral("Each ticket is {ticket_id, seat_id, code} for a seat of the sale."));
            sale.tickets.append(QJsonObject{{QStringLiteral("ticket_id"), std::get<QString>(id)},
                                            {QStringLiteral("seat_id"), std::get<QString>(seat)},
                                            {QStringLiteral("code"), std::get<QString>(code)}});
        }
    }
    if (sale.tenderedMinor < sale.amountMinor)
        return apiError(ErrorCode::InsufficientTender, {}, {{QStringLiteral("cash_due_minor"), sale.amountMinor}});
    // The content a retry must repeat exactly: the seats in canonical order, the time to the millisecond.
    const QJsonObject canonical{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(sortedBytewise(sale.seatIds))},
                                {QStringLiteral("amount_minor"), sale.amountMinor},
                                {QStringLiteral("currency"), sale.currency},
                                {QStringLiteral("tendered_minor"), sale.tenderedMinor},
                                {QStringLiteral("sold_at"), toIsoUtc(sale.soldAt)},
                                {QStringLiteral("tickets"), sale.tickets}};
    sale.fingerprint = sha256(QJsonDocument(canonical).toJson(QJsonDocument::Compact));
    return sale;
}

/** @brief A lease setting: absent or null keeps the server's default; else 0 to @p max. */
std::variant<std::optional<int>, ApiError> setting(const QJsonObject &body, const QString &field, int max)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::optional<int>{};
    const auto number = requiredInteger(body, field);
    if (const auto *error = std::get_if<ApiError>(&number))
        return *error;
    if (std::get<qint64>(number) < 0 || std::get<qint64>(number) > max)
        return ApiError::badRequest(QStringLiteral("invalid_setting"), QStringLiteral("'%1' must be 0 to %2.").arg(field).arg(max));
    return std::optional<int>(int(std::get<qint64>(number)));
}
} // namespace

void registerLeaseRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/shows/{show_id}/leases"), Access::roles_(kLeaseRoles),
                   [&context](RequestContext &request, const QJsonObject &body) {
                       const auto showId = request.idParam(QStringLiteral("show_id"));
                       if (!showId)
                           return HttpResponse::error(apiError(ErrorCode::InvalidShowId));
                       const auto key = idempotencyKey(request);
                       if (const ApiError *error = std::get_if<ApiError>(&key))
                           return HttpResponse::error(*error);
                       const auto parsed = parseLeaseRequest(*showId, std::get<QString>(key), body);
                       if (const auto *error = std::get_if<ApiError>(&parsed))
                           return HttpResponse::error(*error);
                       return answer(context.leaseService.place(request.caller(), std::get<LeaseRequest>(parsed)));
                   });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/leases"), Access::roles_(kLeaseRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return HttpResponse::error(apiError(ErrorCode::InvalidShowId));
        return answer(context.leaseService.leasesOfShow(request.caller(), *showId));
    });

    router.add(Method::Get, QStringLiteral("/api/v1/leases/{lease_id}"), Access::roles_(kLeaseRoles), [&context](RequestContext &request) {
        return answer(context.leaseService.lease(request.caller(), request.params.value(QStringLiteral("lease_id"))));
    });

    router.add(Method::Delete, QStringLiteral("/api/v1/leases/{lease_id}"), Access::roles_(kLeaseRoles), [&context](RequestContext &request) {
        return answer(context.leaseService.end(request.caller(), request.params.value(QStringLiteral("lease_id"))));
    });

    router.addJson(Method::Post, QStringLiteral("/api/v1/leases/{lease_id}/sales"), Access::roles_(kLeaseRoles),
                   [&context](RequestContext &request, const QJsonObject &body) {
                       const auto sale = parseSale(body);
                       if (const auto *error = std::get_if<ApiError>(&sale))
                           return HttpResponse::error(*error);
                       return answer(context.leaseService.reportSale(request.caller(), request.params.value(QStringLiteral("lease_id")),
                                                                     std::get<store::LeaseSale>(sale)));
                   });

    router.add(Method::Get, QStringLiteral("/api/v1/shows/{show_id}/lease-settings"), Access::roles_(kManagerRoles), [&context](RequestContext &request) {
        const auto showId = request.idParam(QStringLiteral("show_id"));
        if (!showId)
            return badId(QStringLiteral("show"));
        return answer(context.leaseService.settings(*showId));
    });

    router.addJson(Method::Put, QStringLiteral("/api/v1/shows/{show_id}/lease-settings"), Access::roles_(kManagerRoles),
                   [&context](RequestContext &request, const QJsonObject &body) {
                       const auto showId = request.idParam(QStringLiteral("show_id"));
                       if (!showId)
                           return badId(QStringLiteral("show"));
                       const auto seats = setting(body, QStringLiteral("seats_per_device"), 10000);
                       const auto before = setting(body, QStringLiteral("return_before_seconds"), 7 * 24 * 3600);
                       const auto grace = setting(body, QStringLiteral("grace_seconds"), 7 * 24 * 3600);
                       if (const ApiError *error = firstError(seats, before, grace))
                           return HttpResponse::error(*error);
                       return answer(context.leaseService.setSettings(request.caller(), *showId, std::get<std::optional<int>>(seats),
                                                                      std::get<std::optional<int>>(before), std::get<std::optional<int>>(grace)));
                   });
}

} // namespace marquee::http
