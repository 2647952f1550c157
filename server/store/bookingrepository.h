// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/authrepository.h"
#include "store/database.h"
#include "store/orderrepository.h"

#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee::store {

class TicketRepository;

/** @brief What confirming a paid order did. */
struct ConfirmOutcome {
    enum class Kind {
        Confirmed, ///< seats booked, booking and tickets stored, order CONFIRMED; body is the booking as confirm
                   ///< answers it
        HoldLost, ///< not every seat was still held by the order's hold: nothing changed
        NotPaid, ///< the order is not PAID (someone else settled it first): nothing changed
        Error ///< database error: nothing changed
    };
    Kind kind = Kind::Error;
    QJsonObject body;
};

/** @brief The cancellation policy: until when cashiers may cancel, and what it costs the customer. */
struct CancelPolicy {
    int cutoffSeconds = 2 * 3600; ///< cashiers may cancel until this long before the start; later only a manager override
    qint64 feeMinor = 0;          ///< fixed fee, minor units of the booking's currency
    int feePercent = 0;           ///< plus this percentage (0–100) of the amount paid, rounded down

    /** @brief The fee kept when a booking of @p paidMinor is cancelled: fixed + percent, never more than was paid. */
    qint64 feeFor(qint64 paidMinor) const
    {
        const qint64 fee = feeMinor + paidMinor * feePercent / 100;
        return qBound<qint64>(0, fee, qMax<qint64>(0, paidMinor));
    }
};

/** @brief What cancelling a booking did. */
struct CancelOutcome {
    enum class Kind { Cancelled, AlreadyCancelled, NotFound, OutsidePolicy, Admitted, Error };
    Kind kind = Kind::Error;
    QString orderId;
    qint64 feeMinor = 0;    ///< kept by the venue (also for AlreadyCancelled: the fee of that cancellation)
    qint64 refundMinor = 0; ///< paid − fee
    QString currency;
    QStringList admittedSeats; ///< Admitted: the seats whose tickets were already scanned in at the door
};

/**
 * @brief Bookings: the confirm transaction (held → booked), cancellation and reads.
 */
class BookingRepository
{
public:
    BookingRepository(const Database &database, TicketRepository &tickets);

    /**
     * @brief Book a PAID order, in one transaction: lock the order, flip the hold's seats held → booked with ONE
     * conditional UPDATE (only where still held by this order's hold; the row count must equal the seat count or
     * everything rolls back), insert the booking and its seats, issue the tickets, write the outbox events and move
     * the order to CONFIRMED with the 200 answer stored for repeated confirms.
     */
    ConfirmOutcome confirm(const OrderRecord &order);

    /**
     * @brief Cancel a confirmed booking in one transaction: seats booked → available (all or nothing), tickets
     * revoked, the fee of @p policy stored on the booking, the order to REFUND_PENDING with a pending refund of the
     * amount paid minus the fee (or to CANCELLED when nothing is owed). Cashiers may cancel until
     * policy.cutoffSeconds before the start; @p overridePolicy lets a manager cancel later (recorded with the
     * reason); @p waiveFee (managers, with a reason) refunds everything. A booking with a ticket already admitted
     * at the door is refused (Admitted) unless @p admittedOverride (a manager, with a reason). Every cancellation is
     * written to the audit log in the same transaction (who, device, booking, amounts, reason).
     */
    CancelOutcome cancel(const QString &bookingId, const Principal &actor, const QString &reason, bool overridePolicy,
                         const CancelPolicy &policy, bool waiveFee, bool admittedOverride = false);

    /** @brief The booking with its valid tickets and its order's "owner" (strip before sending); std::nullopt when unknown (see @p ok). */
    std::optional<QJsonObject> booking(const QString &bookingId, bool *ok);
    std::optional<QJsonObject> bookingByRef(const QString &ref, bool *ok);

    /** @brief Which contact detail a customer search matches. */
    enum class ContactField { Email, Phone };
    /**
     * @brief The bookings made with this normalised e-mail or phone (core/customercontact), newest first, at most
     * @p limit: [{booking_id, booking_ref, show_id, seats, amount_minor, currency, state, created_at,
     * customer_email, customer_phone}]. std::nullopt on a database error. One index range (migration 010).
     */
    std::optional<QJsonArray> bookingsByContact(ContactField field, const QString &value, int limit);
    /** @brief The e-mail and phone stored with a booking (empty when none were given); std::nullopt on a database error. */
    std::optional<CustomerContact> contactOf(const QString &bookingId);

    /** @brief A new short human booking reference: 8 characters without look-alikes (no 0/O, 1/I). */
    static QString newBookingRef();

private:
    std::optional<QJsonObject> bookingWhere(const QString &column, const QString &value, bool *ok);
    const Database &m_database;
    TicketRepository &m_tickets;
};

} // namespace marquee::store
