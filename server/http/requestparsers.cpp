// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/requestparsers.h"

#include "core/customercontact.h"
#include "core/errorcatalogue.h"
#include "core/isotime.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>

namespace marquee::http {

namespace {
// Scanner clocks drift; a scan from further in the future than this is a broken clock, not a scan.
constexpr int kMaxClockSkewSeconds = 300;

// Cash at a till: tendered_minor (cash and split, optional: exact cash when absent) and cash_minor (split only,
// the part paid in cash, above 0; the card pays the rest). Whether they fit the order's amount is decided when
// the order is priced (OrderRepository::create).
Result<store::CashTender> cashTender(const QJsonObject &body, const QString &paymentMethod)
{
    store::CashTender tender;
    const bool cash = paymentMethod == QLatin1String("cash");
    const bool split = paymentMethod == QLatin1String("split");
    auto amount = [&body](const QString &field) -> Result<qint64> {
        const auto value = requiredInteger(body, field);
        if (isError(value))
            return value;
        if (std::get<qint64>(value) < 0 || std::get<qint64>(value) > 100'000'000'00)
            return ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("'%1' must be a non-negative integer of minor units.").arg(field));
        return value;
    };
    if (body.contains(QStringLiteral("tendered_minor"))) {
        if (!cash && !split)
            return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'tendered_minor' is for cash and split payments."));
        const auto tendered = amount(QStringLiteral("tendered_minor"));
        if (isError(tendered))
            return std::get<ApiError>(tendered);
        tender.tenderedMinor = std::get<qint64>(tendered);
    }
    if (split) {
        const auto part = amount(QStringLiteral("cash_minor"));
        if (isError(part))
            return std::get<ApiError>(part);
        if (std::get<qint64>(part) == 0)
            return ApiError::badRequest(QStringLiteral("invalid_amount"), QStringLiteral("A split payment needs a cash part above 0 in 'cash_minor'."));
        tender.splitCashMinor = std::get<qint64>(part);
    } else if (body.contains(QStringLiteral("cash_minor"))) {
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'cash_minor' is for split payments."));
    }
    return tender;
}

// The customer's e-mail and phone (both optional): stored normalised so the till can find the booking by them.
Result<store::CustomerContact> customerContact(const QJsonObject &body)
{
    store::CustomerContact contact;
    const auto email = optionalString(body, QStringLiteral("customer_email"), 254);
    if (isError(email))
        return std::get<ApiError>(email);
    if (!std::get<QString>(email).isEmpty()) {
        const auto normalized = normalizedCustomerEmail(std::get<QString>(email));
        if (!normalized)
            return ApiError::badRequest(QStringLiteral("invalid_email"), QStringLiteral("'customer_email' is not an e-mail address."));
        contact.email = *normalized;
    }
    const auto phone = optionalString(body, QStringLiteral("customer_phone"), 40);
    if (isError(phone))
        return std::get<ApiError>(phone);
    if (!std::get<QString>(phone).isEmpty()) {
        const auto normalized = normalizedCustomerPhone(std::get<QString>(phone));
        if (!normalized)
            return ApiError::badRequest(QStringLiteral("invalid_phone"), QStringLiteral("'customer_phone' must be 6 to 20 digits (spaces, dashes, brackets and a leading + allowed)."));
        contact.phone = *normalized;
    }
    return contact;
}

ApiError atIndex(ApiError error, qsizetype index)
{
    error.message = QStringLiteral("actions[%1]: %2").arg(index).arg(error.message);
    error.extra.insert(QStringLiteral("index"), qint64(index));
    return error;
}

ApiError keyMismatch(const QString &field)
{
    return ApiError::badRequest(QStringLiteral("invalid_idempotency_key"),
                                QStringLiteral("'idempotency_key' must equal the payload's '%1' (the key of this action on its own endpoint).").arg(field));
}

Result<SyncAction> parseSyncAction(const QJsonValue &value, int maxSeatsPerHold, const store::Principal &caller)
{
    if (!value.isObject())
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("Each action must be an object {kind, idempotency_key, payload}."));
    const QJsonObject action = value.toObject();
    const auto kind = requiredString(action, QStringLiteral("kind"), 32);
    if (isError(kind))
        return std::get<ApiError>(kind);
    const auto key = requiredString(action, QStringLiteral("idempotency_key"), 255);
    if (isError(key))
        return std::get<ApiError>(key);
    const QString &idempotencyKey = std::get<QString>(key);
    if (idempotencyKey.isEmpty())
        return ApiError::badRequest(QStringLiteral("invalid_idempotency_key"), QStringLiteral("'idempotency_key' must not be empty."));
    if (!action.value(QStringLiteral("payload")).isObject())
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'payload' must be an object."));
    const QJsonObject payload = action.value(QStringLiteral("payload")).toObject();
    const QString &actionKind = std::get<QString>(kind);

    if (actionKind == QLatin1String("hold")) {
        const auto showId = requiredInteger(payload, QStringLiteral("show_id"));
        if (isError(showId))
            return std::get<ApiError>(showId);
        if (std::get<qint64>(showId) <= 0)
            return apiError(ErrorCode::InvalidShowId);
        const auto admission = optionalString(payload, QStringLiteral("admission_token"), 1000);
        if (isError(admission))
            return std::get<ApiError>(admission);
        auto hold = parseHoldRequest(maxSeatsPerHold, std::get<qint64>(showId), idempotencyKey, payload, std::get<QString>(admission).toUtf8());
        if (isError(hold))
            return std::get<ApiError>(hold);
        return std::get<HoldRequest>(std::move(hold));
    }
    if (actionKind == QLatin1String("checkin")) {
        auto checkin = parseCheckinRequest(payload, caller);
        if (isError(checkin))
            return std::get<ApiError>(checkin);
        if (std::get<store::CheckinRequest>(checkin).nonce != idempotencyKey)
            return keyMismatch(QStringLiteral("nonce"));
        return std::get<store::CheckinRequest>(std::move(checkin));
    }
    if (actionKind == QLatin1String("confirm_order")) {
        const auto orderId = requiredString(payload, QStringLiteral("order_id"), 64);
        if (isError(orderId))
            return std::get<ApiError>(orderId);
        const auto intent = parseConfirmIntent(payload);
        if (isError(intent))
            return std::get<ApiError>(intent);
        if (std::get<QString>(intent) != idempotencyKey)
            return keyMismatch(QStringLiteral("payment_intent_id"));
        return ConfirmRequest{std::get<QString>(orderId), std::get<QString>(intent)};
    }
    return ApiError::badRequest(QStringLiteral("unknown_kind"),
                                QStringLiteral("Unknown action kind '%1'; one of hold, checkin, confirm_order.").arg(actionKind));
}
} // namespace

Result<HoldRequest> parseHoldRequest(int maxSeatsPerHold, qint64 showId, const QString &idempotencyKey, const QJsonObject &body,
                                     const QByteArray &admissionToken)
{
    const auto seatIds = requiredStringArray(body, QStringLiteral("seat_ids"));
    if (isError(seatIds))
        return std::get<ApiError>(seatIds);
    const QStringList &seats = std::get<QStringList>(seatIds);
    if (seats.size() > maxSeatsPerHold)
        return apiError(ErrorCode::TooManySeats, {QString::number(maxSeatsPerHold)});
    // The fingerprint covers what the request means (show and the set of seats), not its formatting.
    QStringList sorted = seats;
    sorted.sort();
    const QByteArray fingerprint =
        QCryptographicHash::hash(QByteArray::number(showId) + '|' + sorted.join(QLatin1Char(',')).toUtf8(), QCryptographicHash::Sha256).toHex();
    return HoldRequest{showId, idempotencyKey, seats, fingerprint, admissionToken};
}

Result<store::CheckinRequest> parseCheckinRequest(const QJsonObject &body, const store::Principal &caller)
{
    const auto qr = requiredString(body, QStringLiteral("qr"), 512);
    if (isError(qr))
        return std::get<ApiError>(qr);
    const auto nonce = requiredString(body, QStringLiteral("nonce"), 128);
    if (isError(nonce))
        return std::get<ApiError>(nonce);
    const auto scannedText = requiredString(body, QStringLiteral("scanned_at"), 64);
    if (isError(scannedText))
        return std::get<ApiError>(scannedText);
    const QDateTime scannedAt = fromIso(std::get<QString>(scannedText));
    if (!scannedAt.isValid())
        return ApiError::badRequest(QStringLiteral("invalid_scanned_at"),
                                    QStringLiteral("scanned_at must be an ISO 8601 timestamp with an offset, e.g. 2026-05-01T19:30:00Z."));
    if (scannedAt > QDateTime::currentDateTimeUtc().addSecs(kMaxClockSkewSeconds))
        return ApiError::badRequest(QStringLiteral("invalid_scanned_at"), QStringLiteral("scanned_at is in the future; check the scanner's clock."));
    store::CheckinRequest checkin;
    checkin.qr = std::get<QString>(qr);
    checkin.nonce = std::get<QString>(nonce);
    checkin.scannedAt = scannedAt.toUTC();
    checkin.device = caller.owner();
    if (caller.venueId > 0)
        checkin.doorVenueId = caller.venueId;
    if (caller.kind == store::Principal::Kind::Session)
        checkin.staff = caller;
    if (body.contains(QStringLiteral("show_id")) && !body.value(QStringLiteral("show_id")).isNull()) {
        const auto showId = requiredInteger(body, QStringLiteral("show_id"));
        if (isError(showId))
            return std::get<ApiError>(showId);
        if (std::get<qint64>(showId) <= 0)
            return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("show_id must be a positive integer."));
        checkin.doorShowId = std::get<qint64>(showId);
    }
    return checkin;
}

Result<OrderRequest> parseOrderRequest(const QJsonObject &body, Role role)
{
    const auto holdId = requiredString(body, QStringLiteral("hold_id"), 64);
    if (isError(holdId))
        return std::get<ApiError>(holdId);
    const auto method = optionalString(body, QStringLiteral("payment_method"), 16);
    if (isError(method))
        return std::get<ApiError>(method);
    const QString &paymentMethod = std::get<QString>(method);
    if (!paymentMethod.isEmpty() && paymentMethod != QLatin1String("card") && paymentMethod != QLatin1String("cash")
        && paymentMethod != QLatin1String("split"))
        return ApiError::badRequest(QStringLiteral("invalid_payment_method"), QStringLiteral("payment_method must be 'card', 'cash' or 'split'."));
    if (paymentMethod == QLatin1String("split") && role == Role::Kiosk)
        return ApiError{403, QStringLiteral("payment_method_not_allowed"), QStringLiteral("Kiosks take cards only; cash is for tills and cashiers."), {}};
    const auto tender = cashTender(body, paymentMethod);
    if (isError(tender))
        return std::get<ApiError>(tender);
    const auto contact = customerContact(body);
    if (isError(contact))
        return std::get<ApiError>(contact);
    return OrderRequest{std::get<QString>(holdId), paymentMethod == QLatin1String("cash"), std::get<store::CashTender>(tender),
                        std::get<store::CustomerContact>(contact)};
}

Result<QString> parseConfirmIntent(const QJsonObject &body)
{
    return requiredString(body, QStringLiteral("payment_intent_id"), 128);
}

Result<std::vector<SyncAction>> parseSyncBatch(const QJsonObject &body, int maxSeatsPerHold, const store::Principal &caller)
{
    const QJsonValue actionsValue = body.value(QStringLiteral("actions"));
    if (!actionsValue.isArray())
        return ApiError::badRequest(QStringLiteral("invalid_field"), QStringLiteral("'actions' must be an array."));
    const QJsonArray actions = actionsValue.toArray();
    if (actions.isEmpty() || actions.size() > kMaxSyncBatchActions)
        return ApiError::badRequest(QStringLiteral("too_many_actions"),
                                    QStringLiteral("A batch carries 1 to %1 actions; this one has %2.").arg(kMaxSyncBatchActions).arg(actions.size()));
    std::vector<SyncAction> batch;
    batch.reserve(actions.size());
    for (qsizetype i = 0; i < actions.size(); ++i) {
        auto action = parseSyncAction(actions.at(i), maxSeatsPerHold, caller);
        if (isError(action))
            return atIndex(std::get<ApiError>(action), i);
        batch.push_back(std::get<SyncAction>(std::move(action)));
    }
    return batch;
}

} // namespace marquee::http
