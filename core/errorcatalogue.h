// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace marquee {

/**
 * @brief Every error a hold or a new order can end in, named once. The wire (HTTP status, the stable code in "error" and the
 * sentence in "message") is the catalogue's alone: SQL and services decide an ErrorCode, routes send what
 * errorEntry() says for it. Two entries may share a wire code when only the sentence differs (sales_closed).
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

/**
 * @brief @p object as PostgreSQL writes a jsonb value as text ("key": value, ", " between members, keys ordered by
 * length and then byte by byte): the form of every answer the database decided and of every stored answer it
 * replays, kept byte for byte now that C++ writes them.
 */
QByteArray jsonbText(const QJsonObject &object);

} // namespace marquee
