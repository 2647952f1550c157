// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace marquee {

/**
 * @brief Every error a hold, an order, its payment, a booking, a lease, a check-in, the waiting room or a device's
 * pairing can end in, named once. The wire (HTTP status, the stable
 * code in "error" and the sentence in "message") is the catalogue's alone: SQL and services decide an ErrorCode, routes
 * send what errorEntry() says for it. Two entries may share a wire code when only the sentence differs (sales_closed).
 */
enum class ErrorCode {
    SeatsUnavailable,      ///< 409 seats_unavailable: some seat is held or sold (extra: held_seats)
    IdempotencyKeyReused,  ///< 422 idempotency_key_reused: the key was used with another request
    RequestInProgress,     ///< 409 request_in_progress: a request with this key is still being decided
    SalesClosed,           ///< 422 sales_closed: the show's sales window has ended (or the show started)
    SalesNotOpen,          ///< 422 sales_closed: the show's sales window has not opened yet
    ShowNotFound,          ///< 404 show_not_found
    UnknownSeat,           ///< 400 unknown_seat: a seat the show does not have, or one named twice (extra: unknown_seats)
    TooManySeats,          ///< 400 too_many_seats: more seats than one hold may take (argument: the limit)
    InvalidShowId,         ///< 400 invalid_id: the show id is not a positive integer
    IdempotencyKeyTooLong, ///< 400 invalid_idempotency_key: the header is longer than 255 characters
    HoldNotFound,          ///< 404 hold_not_found: no hold with this id for this caller
    HoldStoreUnavailable,  ///< 503 unavailable: the database did not answer; nothing was held
    HoldLimitReached,      ///< 409 hold_limit_reached: the caller's live held seats on the show would pass its bound
                           ///< (arguments: seats held, the bound; extra: seats_held, seat_limit)
    // Creating an order for a hold:
    HoldReleased,          ///< 409 hold_released: the hold was released before the order
    HoldExpired,           ///< 409 hold_expired: the hold's seats expired before they could be frozen for payment
    ShowStarted,           ///< 422 sales_closed: the show has started
    OrderExists,           ///< 409 order_exists: the hold already has a live order (extra: order_id)
    PriceMissing,          ///< 422 price_missing: a seat's tier has no price
    InvalidSplit,          ///< 422 invalid_split: the cash part of a split payment is not less than the total (extra: amount_minor)
    InsufficientTender,    ///< 422 insufficient_tender: less cash handed over than is due (extra: cash_due_minor)
    // Seat-block leases (server/leases) and the sales a till reports under them:
    LeaseSeatsUnavailable, ///< 409 seats_unavailable: some seat is held, leased or sold; none was leased (extra: held_seats)
    NotEnoughSeats,        ///< 409 not_enough_seats: fewer free seats than "best" asked for (argument and extra: available)
    LeaseLimitReached,     ///< 422 lease_limit_reached: the till would pass its leased seats on the show (arguments: leased,
                           ///< limit; extra: leased, limit)
    ShowStarting,          ///< 422 show_starting: too close to the start for a lease (argument and extra: return_by)
    LeaseNeedsTill,        ///< 422 lease_needs_till: the caller is no till and no session opened at one
    LeaseNotFound,         ///< 404 lease_not_found: no such lease for this caller
    SaleConflict,          ///< 409 sale_conflict: the device sequence number was used for another sale (extra: device_seq)
    LeaseReturned,         ///< 409 lease_returned: the lease was given back; no sale can be reported under it any more
    SaleOutsideLease,      ///< 422 sale_outside_lease: sold before the lease began or after it expired (extra: created_at, expires_at)
    SeatsNotInLease,       ///< 409 seats_not_in_lease: seats the lease never had, or one named twice (extra: seats)
    SeatsNotLeased,        ///< 409 seats_not_leased: seats no longer leased to the lease (extra: seats)
    PriceMismatch,         ///< 422 price_mismatch: not what the seats cost when sold (argument: that amount; extra: amount_minor, currency)
    SaleNotBooked,         ///< 409 sale_not_booked: the sale's order ended without a booking; staff must settle it (extra: order_id, state)
    // Paying for an order and confirming it (extra, where the order is known: order_id, state):
    PaymentMethodNotAllowed,   ///< 403 payment_method_not_allowed: a kiosk asked to pay cash
    CardProviderNotConfigured, ///< 503 payment_provider_unavailable: no card provider is configured
    PaymentProviderDown,       ///< 502 payment_provider_unavailable: the provider did not create the intent
    PaymentNotStarted,         ///< 502 payment_provider_unavailable: the stored answer of an order that failed so
    OrderStoreUnavailable,     ///< 503 unavailable: the database did not answer; nothing was changed
    OrderNotFound,             ///< 404 order_not_found: no order with this id for this caller
    IntentMismatch,            ///< 409 intent_mismatch: the payment intent is not this order's
    PaymentPending,            ///< 409 payment_pending: not paid yet
    ConfirmInProgress,         ///< 503 confirm_in_progress: paid, the booking is being made
    PaymentStatusUnknown,      ///< 503 payment_status_unknown: the provider did not answer
    PaymentMismatch,           ///< 503 payment_status_unknown: the provider reports another amount or currency
    PaymentInconsistent,       ///< 503 payment_status_unknown: the provider reports a refund of an unsettled order
    PaymentFailed,             ///< 402 payment_failed: declined, seats released (extra: reason)
    OrderExpired,              ///< 409 order_expired: nobody paid within the window, seats released
    OrderCancelled,            ///< 409 order_cancelled: the hold was released before paying
    OrderFailed,               ///< 409 order_failed: the payment could not be started (the reconciler ended it)
    HoldLost,                  ///< 409 hold_lost: paid after the seats were released; the payment is refunded
    OrderIsConfirmed,          ///< 409 order_confirmed: "This order is CONFIRMED." (an order without a stored answer)
    OrderIsFailed,             ///< 409 order_failed: likewise FAILED
    OrderIsExpired,            ///< 409 order_expired: likewise EXPIRED
    OrderIsCancelled,          ///< 409 order_cancelled: likewise CANCELLED
    OrderIsRefundPending,      ///< 409 order_refund_pending: likewise REFUND_PENDING
    OrderIsRefunded,           ///< 409 order_refunded: likewise REFUNDED
    // The payment provider's webhook:
    InvalidSignature,          ///< 401 invalid_signature: X-Signature does not match the body
    InvalidPaymentEvent,       ///< 400 invalid_event: event_id, type or payment_intent_id missing or too long
    UnknownPaymentEvent,       ///< 400 invalid_event: a type this server does not know
    EventNotProcessed,         ///< 503 payment_status_unknown: the provider could not be asked; send the event again
    // Releasing a hold frozen by an order (extra: order_id, and state or order_state):
    ReleaseStatusUnknown,      ///< 503 payment_status_unknown: the provider did not answer; the hold is kept
    PaymentInProgress,         ///< 409 payment_in_progress: the order is still being paid
    OrderPaid,                 ///< 409 order_paid: paid before the release; the seats stay with the booking
    // Bookings and their cancellation:
    BookingNotFound,           ///< 404 booking_not_found: no booking with this id for this caller
    BookingNotFoundToCancel,   ///< 404 booking_not_found: no booking with this id (staff)
    KioskMayNotCancel,         ///< 403 forbidden: kiosks never cancel
    StaffSessionRequired,      ///< 403 staff_session_required: a till's own token does not refund
    FeeWaiverNotAllowed,       ///< 403 fee_waiver_not_allowed: only a manager waives the fee
    FeeWaiverNeedsReason,      ///< 422 reason_required: waiving the fee needs a reason
    OverrideNotAllowed,        ///< 403 override_not_allowed: only a manager refunds an admitted ticket
    OverrideNeedsReason,       ///< 422 reason_required: refunding an admitted ticket needs a reason
    TicketAdmitted,            ///< 409 ticket_admitted: a ticket was used at the door; ask a manager (extra: admitted_seats)
    TicketAdmittedNeedsOverride, ///< 409 ticket_admitted: likewise, to a manager: needs admitted_override (extra: admitted_seats)
    OutsideCancelPolicy,       ///< 422 outside_cancel_policy: too close to the start; ask a manager (extra: cutoff_seconds)
    OutsideCancelPolicyNeedsReason, ///< 422 outside_cancel_policy: likewise, to a manager: needs a reason (extra: cutoff_seconds)
    // Delegated ticket signing (a till's own key signs the tickets of its lease):
    InvalidDevicePublicKey,    ///< 400 invalid_device_public_key: device_public_key is not 32 bytes of canonical base64
    DelegatedTicketInvalid,    ///< 422 delegated_ticket_invalid: a ticket of the sale is not the lease device's for its seat (extra: ticket_id, seat_id, reason)
    DelegatedTicketsIncomplete, ///< 422 delegated_tickets_incomplete: device-signed tickets, but not exactly one per seat (extra: missing_seats, duplicate_seats)
    // Check-in at the door (TicketRepository::checkIn); a scan that is answered says why in its "result":
    MalformedTicketCode,       ///< 400 malformed_qr: not a Marquee ticket code (MQ1.<payload>.<signature>)
    NonceReused,               ///< 422 nonce_reused: the scan's nonce was used for a different scan
    TicketStoreUnavailable,    ///< 503 unavailable: the database did not answer; the scanner keeps the scan and uploads it again
    // A hold on a show whose waiting room is on (WaitingRoomService::admitHold), and the waiting room itself:
    WaitingRoomStoreUnavailable, ///< 503 unavailable: the database did not answer; nothing was held, joined or switched
    BoxOfficeHoldLimit,        ///< 409 box_office_hold_limit: a till or session has its most live holds (arguments: holds, show)
    AdmissionRequired,         ///< 403 admission_required: the show sells through its waiting room (argument: show)
    AdmissionInvalid,          ///< 403 admission_invalid: the token is no admission to this show (argument: show)
    AdmissionGone,             ///< 403 admission_invalid: the admission no longer exists
    AdmissionWrongHolder,      ///< 403 admission_wrong_holder: the admission was issued to another caller
    AdmissionExpired,          ///< 403 admission_expired: join the waiting room again
    AdmissionHoldActive,       ///< 409 admission_hold_active: the admission has a live hold (extra: hold_id)
    AdmissionHoldInProgress,   ///< 409 admission_hold_in_progress: another hold with the admission is being placed
    // Joining the waiting room and polling its status (WaitingRoomService::join, status):
    WaitingRoomNotFound,       ///< 404 waiting_room_not_found: the show is unknown or sells without a room (argument: show)
    ShowSoldOut,               ///< 409 sold_out: the room stopped admitting, every seat is sold (argument: show)
    WaitingRoomClosed,         ///< 409 waiting_room_closed: switched off or sold out since the last refresh (argument: show)
    InvalidQueueToken,         ///< 400 invalid_queue_token: not a queue token of this show's room (argument: show)
    QueueTokenWrongHolder,     ///< 403 queue_token_wrong_holder: the queue token was issued to another caller
    QueueEntryNotFound,        ///< 404 queue_entry_not_found: the token's entry is gone
    QueueOwnerUnusable,        ///< 500 internal_error: the caller's owner name cannot be written into a queue token
    // Pairing a device with a one-time code (devices/PairingService; lockouts carry extra: retry_after_s):
    InvalidPairingCode,        ///< 400 invalid_pairing_code: not 8 letters and digits of Crockford base32
    PairingCodeNotFound,       ///< 404 pairing_code_not_found: no such code
    PairingCodeUsed,           ///< 409 pairing_code_used: the code paired a device already
    PairingCodeExpired,        ///< 410 pairing_code_expired: the code is past its time
    PairingNameTaken,          ///< 409 device_exists: a device of the code's name was enrolled after the code was made
    PairingLockedFleetWide,    ///< 429 pairing_locked: too many wrong codes from anywhere lately
    PairingLockedForAddress,   ///< 429 pairing_locked: too many wrong codes from this address
    PairingStoreUnavailable,   ///< 503 unavailable: the database did not answer; the device is not paired
};

/**
 * @brief A refusal as the domain decides it: the catalogue's code, the data the answer names (merged into the body)
 * and the arguments its sentence takes. Services return it; the routes alone turn it into HTTP (apiError()).
 */
struct Refusal {
    ErrorCode code;
    QJsonObject data;
    QStringList arguments;
};

/** @brief One entry of the catalogue. */
struct ErrorEntry {
    int httpStatus;
    const char *code;    ///< the stable machine code ("error")
    const char *message; ///< the sentence ("message"); %1, %2 … are filled from the arguments
};

/** @brief What the wire says for @p code. */
const ErrorEntry &errorEntry(ErrorCode code);

/** @brief The error for @p code, its message filled with @p arguments, @p extra merged into the body. */
ApiError apiError(ErrorCode code, const QStringList &arguments = {}, const QJsonObject &extra = {});
/** @brief The error for @p refusal. */
ApiError apiError(const Refusal &refusal);

/**
 * @brief @p object as PostgreSQL writes a jsonb value as text ("key": value, ", " between members, keys ordered by
 * length and then byte by byte): the form of every answer the database decided and of every stored answer it
 * replays, kept byte for byte now that C++ writes them.
 */
QByteArray jsonbText(const QJsonObject &object);

} // namespace marquee
