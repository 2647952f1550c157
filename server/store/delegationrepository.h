// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/ticketcodec.h"
#include "store/database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QList>
#include <QStringList>
#include <optional>
#include <variant>

namespace marquee::store {

/** @brief A delegation as stored (migration 038): the signed delegation and what became of it. */
struct StoredDelegation {
    TicketDelegation delegation;
    qint64 venueId = 0;
    QDateTime revokedAt;    ///< invalid while in force
    QString revokedReason;  ///< "returned" or "revoked" (what its lease's end was)
    QStringList ticketIds;  ///< tickets on record under it (booked through reported sales), ascending
    bool revoked() const { return revokedAt.isValid(); }
};

/** @brief Why the tickets of a reported sale are refused (checkSaleTickets()). */
struct SaleTicketsRefusal {
    bool incomplete = false; ///< not exactly one device-signed ticket per seat (missingSeats, duplicateSeats)
    QStringList missingSeats;
    QStringList duplicateSeats;
    QString ticketId;        ///< otherwise: the first ticket refused …
    QString seatId;
    QString reason;          ///< … and why: malformed, invalid_signature, other_delegation, other_show, seat_not_delegated,
                             ///< outside_window, seat_mismatch, ticket_id_mismatch, ticket_id_taken
};

/** @brief One device-signed ticket of a sale, checked: what goes into the tickets table. */
struct DelegatedSaleTicket {
    QString ticketId;
    QString seatId;
    QString qr;
    qint64 validFrom = 0;
    qint64 validUntil = 0;
};

/**
 * @brief The delegations of leases (migration 038): stored when the lease is granted, read by the sale upload, the
 * booking and check-in, revoked when the lease ends, and published per venue (GET /api/v1/delegations). The
 * write functions take the caller's connection and run inside its transaction.
 */
class DelegationRepository
{
public:
    explicit DelegationRepository(const Database &database);

    /** @brief Store a signed delegation of venue @p venueId (caller's transaction). */
    bool insert(QSqlDatabase &db, const TicketDelegation &delegation, qint64 venueId);
    /** @brief The delegation of a lease (std::nullopt: none; see @p ok). */
    std::optional<StoredDelegation> ofLease(QSqlDatabase &db, const QString &leaseId, bool *ok);
    /** @brief A delegation by id, locked FOR SHARE when @p lock (a scan waits for a revocation being written). */
    std::optional<StoredDelegation> byId(QSqlDatabase &db, const QString &delegationId, bool lock, bool *ok);
    /** @brief Revoke the delegation of a lease whose lease ended (@p reason "returned" or "revoked"); idempotent. */
    bool revokeOfLease(QSqlDatabase &db, const QString &leaseId, const QString &reason);
    /**
     * @brief The delegations that can still admit somebody (valid_until in the future), active and revoked, of
     * venue @p venueId (0 and @p everyVenue: every venue's), oldest first; std::nullopt on error.
     */
    std::optional<QList<StoredDelegation>> published(qint64 venueId, bool everyVenue);
    /** @brief The ids among @p ticketIds already on record as tickets of something else than @p delegationId. */
    std::optional<QStringList> ticketIdsTakenElsewhere(QSqlDatabase &db, const QStringList &ticketIds, const QString &delegationId);

    /**
     * @brief The device-signed tickets of a sale of @p seatIds under @p delegation, checked: exactly one per seat,
     * each signed by the delegation's device key and covered by it, the entry's ticket_id and seat_id those of its
     * code. @p tickets is the sale's [{ticket_id, seat_id, code}]. Pure: no database.
     */
    static std::variant<QList<DelegatedSaleTicket>, SaleTicketsRefusal> checkSaleTickets(const TicketDelegation &delegation,
                                                                                      const QStringList &seatIds, const QJsonArray &tickets);
    /** @brief True when one of @p tickets carries a device-signed code (`MQ2.`): the sale asks for delegated tickets. */
    static bool hasDelegatedCodes(const QJsonArray &tickets);
    /** @brief The JSON the feed and the lease answers publish: the delegation plus state, revoked_at, ticket_ids. */
    static QJsonObject feedEntry(const StoredDelegation &stored);

private:
    std::optional<StoredDelegation> read(QSqlDatabase &db, const QString &where, const QString &value, bool lock, bool *ok);

    const Database &m_database;
};

} // namespace marquee::store
