// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/errorcatalogue.h"

#include <QJsonArray>
#include <QJsonValue>
#include <algorithm>
#include <vector>

namespace marquee {

namespace {

struct Row {
    ErrorCode code;
    ErrorEntry entry;
};

// Ordered as the enum: errorEntry() indexes it (a static_assert below keeps the two in step).
constexpr Row kCatalogue[] = {
    {ErrorCode::SeatsUnavailable, {409, "seats_unavailable", "Some of these seats were just taken; none of them is held for you."}},
    {ErrorCode::IdempotencyKeyReused, {422, "idempotency_key_reused", "This Idempotency-Key was used with a different request."}},
    {ErrorCode::RequestInProgress, {409, "request_in_progress", "A request with this Idempotency-Key is still being processed."}},
    {ErrorCode::SalesClosed, {422, "sales_closed", "Sales for this show are closed."}},
    {ErrorCode::SalesNotOpen, {422, "sales_closed", "Sales for this show have not opened yet."}},
    {ErrorCode::ShowNotFound, {404, "show_not_found", "There is no show with this id."}},
    {ErrorCode::UnknownSeat, {400, "unknown_seat", "Some seat ids do not exist in this show."}},
    {ErrorCode::TooManySeats, {400, "too_many_seats", "One hold may take at most %1 seats."}},
    {ErrorCode::InvalidShowId, {400, "invalid_id", "The show id must be a positive integer."}},
    {ErrorCode::IdempotencyKeyTooLong, {400, "invalid_idempotency_key", "The Idempotency-Key header is longer than 255 characters."}},
    {ErrorCode::HoldNotFound, {404, "hold_not_found", "There is no hold with this id for you."}},
    {ErrorCode::HoldStoreUnavailable, {503, "unavailable", "The booking database is not answering; nothing was held. Try again shortly."}},
    {ErrorCode::HoldLimitReached, {409, "hold_limit_reached", "You already hold %1 seats of this show and may hold at most %2 at a time; buy or release some first."}},
    {ErrorCode::HoldReleased, {409, "hold_released", "This hold was released; its seats are no longer yours."}},
    {ErrorCode::HoldExpired, {409, "hold_expired", "This hold has expired; hold the seats again."}},
    {ErrorCode::ShowStarted, {422, "sales_closed", "This show has started."}},
    {ErrorCode::OrderExists, {409, "order_exists", "This hold already has an order."}},
    {ErrorCode::PriceMissing, {422, "price_missing", "Some seats of this hold have no price; ask a manager."}},
    {ErrorCode::InvalidSplit, {422, "invalid_split", "The cash part of a split payment must be less than the total."}},
    {ErrorCode::InsufficientTender, {422, "insufficient_tender", "The cash handed over is less than the cash due."}},
    {ErrorCode::LeaseSeatsUnavailable, {409, "seats_unavailable", "Some of these seats are held, leased or sold; none of them was leased to you."}},
    {ErrorCode::NotEnoughSeats, {409, "not_enough_seats", "Only %1 seats of this show are free; nothing was leased."}},
    {ErrorCode::LeaseLimitReached, {422, "lease_limit_reached", "This till already has %1 seats of this show leased and may have at most %2."}},
    {ErrorCode::ShowStarting, {422, "show_starting", "This show starts too soon for a lease: leased seats go back on sale at %1."}},
    {ErrorCode::LeaseNeedsTill, {422, "lease_needs_till", "Seats are leased to a till: use the till's token or a session opened at a till."}},
    {ErrorCode::LeaseNotFound, {404, "lease_not_found", "There is no lease with this id for you."}},
    {ErrorCode::SaleConflict, {409, "sale_conflict", "This device sequence number was already reported with a different sale; nothing was changed."}},
    {ErrorCode::LeaseReturned, {409, "lease_returned", "This lease was given back; no sale can be reported under it any more."}},
    {ErrorCode::SaleOutsideLease, {422, "sale_outside_lease", "The sale's time is outside the lease; nothing was changed."}},
    {ErrorCode::SeatsNotInLease, {409, "seats_not_in_lease", "Some seats of this sale are not in the lease; nothing was changed."}},
    {ErrorCode::SeatsNotLeased, {409, "seats_not_leased", "Some seats of this sale are no longer leased to this lease; nothing was changed."}},
    {ErrorCode::PriceMismatch, {422, "price_mismatch", "These seats cost %1 when they were sold, not the sale's amount; nothing was changed."}},
    {ErrorCode::SaleNotBooked, {409, "sale_not_booked", "This sale's order ended without a booking; a manager must settle it."}},
    {ErrorCode::PaymentMethodNotAllowed, {403, "payment_method_not_allowed", "Kiosks take cards only; cash is for tills and cashiers."}},
    {ErrorCode::CardProviderNotConfigured, {503, "payment_provider_unavailable", "No card payment provider is configured; nothing was changed."}},
    {ErrorCode::PaymentProviderDown, {502, "payment_provider_unavailable", "The payment provider did not answer; no money was taken and the hold is still yours. Try again."}},
    {ErrorCode::PaymentNotStarted, {502, "payment_provider_unavailable", "The payment provider did not answer."}},
    {ErrorCode::OrderStoreUnavailable, {503, "unavailable", "The booking database is not answering; nothing was changed. Try again shortly."}},
    {ErrorCode::OrderNotFound, {404, "order_not_found", "There is no order with this id for you."}},
    {ErrorCode::IntentMismatch, {409, "intent_mismatch", "This payment intent does not belong to this order."}},
    {ErrorCode::PaymentPending, {409, "payment_pending", "The payment has not completed yet; confirm again after paying."}},
    {ErrorCode::ConfirmInProgress, {503, "confirm_in_progress", "The payment went through; the booking is being completed. Confirm again shortly."}},
    {ErrorCode::PaymentStatusUnknown, {503, "payment_status_unknown", "The payment provider did not answer; nothing was changed. Confirm again shortly."}},
    {ErrorCode::PaymentMismatch, {503, "payment_status_unknown", "The payment does not match the order; staff will resolve it."}},
    {ErrorCode::PaymentInconsistent, {503, "payment_status_unknown", "The payment state is inconsistent; staff will resolve it."}},
    {ErrorCode::PaymentFailed, {402, "payment_failed", "The payment was declined; the seats were released."}},
    {ErrorCode::OrderExpired, {409, "order_expired", "Nobody paid within the payment window; the seats were released."}},
    {ErrorCode::OrderCancelled, {409, "order_cancelled", "The hold was released before paying; the order was cancelled."}},
    {ErrorCode::OrderFailed, {409, "order_failed", "The payment could not be started."}},
    {ErrorCode::HoldLost, {409, "hold_lost", "The seats were released before the payment completed; the payment is being refunded."}},
    {ErrorCode::OrderIsConfirmed, {409, "order_confirmed", "This order is CONFIRMED."}},
    {ErrorCode::OrderIsFailed, {409, "order_failed", "This order is FAILED."}},
    {ErrorCode::OrderIsExpired, {409, "order_expired", "This order is EXPIRED."}},
    {ErrorCode::OrderIsCancelled, {409, "order_cancelled", "This order is CANCELLED."}},
    {ErrorCode::OrderIsRefundPending, {409, "order_refund_pending", "This order is REFUND_PENDING."}},
    {ErrorCode::OrderIsRefunded, {409, "order_refunded", "This order is REFUNDED."}},
    {ErrorCode::InvalidSignature, {401, "invalid_signature", "The X-Signature header does not match the body."}},
    {ErrorCode::InvalidPaymentEvent, {400, "invalid_event", "The event needs event_id, type and payment_intent_id."}},
    {ErrorCode::UnknownPaymentEvent, {400, "invalid_event", "Unknown event type."}},
    {ErrorCode::EventNotProcessed, {503, "payment_status_unknown", "The payment provider could not be asked about this intent; the event was not processed. Send it again."}},
    {ErrorCode::ReleaseStatusUnknown, {503, "payment_status_unknown", "The payment provider did not answer, so the payment may still go through; the hold is kept. Try again shortly."}},
    {ErrorCode::PaymentInProgress, {409, "payment_in_progress", "An order for this hold is being paid; the hold is kept until the payment is settled."}},
    {ErrorCode::OrderPaid, {409, "order_paid", "The order of this hold was paid before the release; its seats stay with the booking. Confirm the order."}},
    {ErrorCode::BookingNotFound, {404, "booking_not_found", "There is no booking with this id for you."}},
    {ErrorCode::BookingNotFoundToCancel, {404, "booking_not_found", "There is no booking with this id."}},
    {ErrorCode::KioskMayNotCancel, {403, "forbidden", "Kiosks may not cancel bookings."}},
    {ErrorCode::StaffSessionRequired, {403, "staff_session_required", "A till cancels and refunds only in a staff session: sign in on the till and enter your password or PIN again."}},
    {ErrorCode::FeeWaiverNotAllowed, {403, "fee_waiver_not_allowed", "Only a manager may waive the cancellation fee."}},
    {ErrorCode::FeeWaiverNeedsReason, {422, "reason_required", "Waiving the cancellation fee needs a reason."}},
    {ErrorCode::OverrideNotAllowed, {403, "override_not_allowed", "Only a manager may refund a ticket already admitted at the door."}},
    {ErrorCode::OverrideNeedsReason, {422, "reason_required", "Refunding an admitted ticket needs a reason."}},
    {ErrorCode::TicketAdmitted, {409, "ticket_admitted", "A ticket of this booking was already admitted at the door; only a manager may refund it."}},
    {ErrorCode::TicketAdmittedNeedsOverride, {409, "ticket_admitted", "A ticket of this booking was already admitted at the door; refunding it needs admitted_override with a reason."}},
    {ErrorCode::OutsideCancelPolicy, {422, "outside_cancel_policy", "Too close to the start to cancel; ask a manager."}},
    {ErrorCode::OutsideCancelPolicyNeedsReason, {422, "outside_cancel_policy", "Too close to the start; a manager override needs a reason."}},
    {ErrorCode::InvalidDevicePublicKey, {400, "invalid_device_public_key", "'device_public_key' must be the device's Ed25519 public key: 32 bytes in standard base64."}},
    {ErrorCode::DelegatedTicketInvalid, {422, "delegated_ticket_invalid", "Ticket %1 of this sale is not signed by this lease's device key for its seat, show and window; nothing was changed."}},
    {ErrorCode::DelegatedTicketsIncomplete, {422, "delegated_tickets_incomplete", "A sale with device-signed tickets must carry exactly one for each of its seats; nothing was changed."}},
    {ErrorCode::MalformedTicketCode, {400, "malformed_qr", "This is not a Marquee ticket code (MQ1.<payload>.<signature>, or MQ2. for a ticket a till signed)."}},
    {ErrorCode::NonceReused, {422, "nonce_reused", "This nonce was already used for a different scan."}},
    {ErrorCode::TicketStoreUnavailable, {503, "unavailable", "The ticket database is not answering; keep the scan and upload it again."}},
    {ErrorCode::WaitingRoomStoreUnavailable, {503, "unavailable", "The booking database is not answering; try again shortly."}},
    {ErrorCode::BoxOfficeHoldLimit, {409, "box_office_hold_limit", "This till or session already has %1 live holds on show %2, the most the box office may have while its waiting room is on; sell or release one first."}},
    {ErrorCode::AdmissionRequired, {403, "admission_required", "Show %1 sells through its waiting room: join it (POST /api/v1/queue/%1/join) and send the admission token in the Admission-Token header."}},
    {ErrorCode::AdmissionInvalid, {403, "admission_invalid", "The admission token is not a valid admission to show %1."}},
    {ErrorCode::AdmissionGone, {403, "admission_invalid", "This admission no longer exists."}},
    {ErrorCode::AdmissionWrongHolder, {403, "admission_wrong_holder", "This admission token was issued to another device or session."}},
    {ErrorCode::AdmissionExpired, {403, "admission_expired", "This admission has expired; join the waiting room again."}},
    {ErrorCode::AdmissionHoldActive, {409, "admission_hold_active", "This admission already has a live hold; release it or let it expire first."}},
    {ErrorCode::AdmissionHoldInProgress, {409, "admission_hold_in_progress", "Another hold with this admission is being placed right now."}},
    {ErrorCode::WaitingRoomNotFound, {404, "waiting_room_not_found", "Show %1 has no waiting room (the show is unknown or sells without one)."}},
    {ErrorCode::ShowSoldOut, {409, "sold_out", "Show %1 is sold out."}},
    {ErrorCode::WaitingRoomClosed, {409, "waiting_room_closed", "The waiting room of show %1 is closed."}},
    {ErrorCode::InvalidQueueToken, {400, "invalid_queue_token", "This is not a queue token of show %1's waiting room."}},
    {ErrorCode::QueueTokenWrongHolder, {403, "queue_token_wrong_holder", "This queue token belongs to another device or session."}},
    {ErrorCode::QueueEntryNotFound, {404, "queue_entry_not_found", "This queue entry no longer exists."}},
    {ErrorCode::QueueOwnerUnusable, {500, "internal_error", "Something went wrong on the server; nothing was changed."}},
    {ErrorCode::InvalidPairingCode, {400, "invalid_pairing_code", "A pairing code is 8 letters and digits, like 7K3M-Q9TZ."}},
    {ErrorCode::PairingCodeNotFound, {404, "pairing_code_not_found", "No such pairing code; check it and try again."}},
    {ErrorCode::PairingCodeUsed, {409, "pairing_code_used", "This pairing code was used already; ask for a new one."}},
    {ErrorCode::PairingCodeExpired, {410, "pairing_code_expired", "This pairing code has expired; ask for a new one."}},
    {ErrorCode::PairingNameTaken, {409, "device_exists", "A device of this code's name was enrolled meanwhile; ask for a new code."}},
    {ErrorCode::PairingLockedFleetWide, {429, "pairing_locked", "Too many wrong pairing codes lately: pairing is locked for a while."}},
    {ErrorCode::PairingLockedForAddress, {429, "pairing_locked", "Too many wrong pairing codes from this address: pairing is locked for a while."}},
    {ErrorCode::PairingStoreUnavailable, {503, "unavailable", "The booking database is not answering; the device is not paired. Try again."}},
};

constexpr bool inEnumOrder()
{
    for (size_t i = 0; i < std::size(kCatalogue); ++i)
        if (size_t(kCatalogue[i].code) != i)
            return false;
    return true;
}
static_assert(inEnumOrder(), "kCatalogue must list the ErrorCode values in their order");
static_assert(std::size(kCatalogue) == size_t(ErrorCode::PairingStoreUnavailable) + 1, "every ErrorCode needs an entry");

void writeString(QByteArray &out, const QString &text)
{
    // escape_json() of PostgreSQL: the two-letter escapes, \u00XX for the other control characters, the rest as UTF-8.
    out += '"';
    const QByteArray utf8 = text.toUtf8();
    for (const char c : utf8) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += "\\u00" + QByteArray::number(int(static_cast<unsigned char>(c)), 16).rightJustified(2, '0');
            else
                out += c;
        }
    }
    out += '"';
}

void writeValue(QByteArray &out, const QJsonValue &value);

void writeObject(QByteArray &out, const QJsonObject &object)
{
    std::vector<QByteArray> keys;
    for (auto it = object.begin(); it != object.end(); ++it)
        keys.push_back(it.key().toUtf8());
    std::sort(keys.begin(), keys.end(), [](const QByteArray &a, const QByteArray &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    out += '{';
    bool first = true;
    for (const QByteArray &key : keys) {
        if (!first)
            out += ", ";
        first = false;
        writeString(out, QString::fromUtf8(key));
        out += ": ";
        writeValue(out, object.value(QString::fromUtf8(key)));
    }
    out += '}';
}

void writeValue(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out += "null";
        break;
    case QJsonValue::Bool:
        out += value.toBool() ? "true" : "false";
        break;
    case QJsonValue::Double:
        if (value.toDouble() == double(value.toInteger()))
            out += QByteArray::number(value.toInteger());
        else
            out += QByteArray::number(value.toDouble(), 'g', 17);
        break;
    case QJsonValue::String:
        writeString(out, value.toString());
        break;
    case QJsonValue::Array: {
        out += '[';
        bool first = true;
        for (const QJsonValue &item : value.toArray()) {
            if (!first)
                out += ", ";
            first = false;
            writeValue(out, item);
        }
        out += ']';
        break;
    }
    case QJsonValue::Object:
        writeObject(out, value.toObject());
        break;
    }
}

} // namespace

const ErrorEntry &errorEntry(ErrorCode code)
{
    return kCatalogue[size_t(code)].entry;
}

ApiError apiError(ErrorCode code, const QStringList &arguments, const QJsonObject &extra)
{
    const ErrorEntry &entry = errorEntry(code);
    QString message = QString::fromUtf8(entry.message);
    for (const QString &argument : arguments)
        message = message.arg(argument);
    return ApiError{entry.httpStatus, QString::fromUtf8(entry.code), message, extra};
}

ApiError apiError(const Refusal &refusal)
{
    return apiError(refusal.code, refusal.arguments, refusal.data);
}

QByteArray jsonbText(const QJsonObject &object)
{
    QByteArray out;
    writeObject(out, object);
    return out;
}

} // namespace marquee
