// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"
#include "store/delegationrepository.h"
#include "store/principal.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee::store {

class TicketRepository;

/** @brief The defaults of a show's lease settings (ServerConfig; a show's own row in show_lease_settings wins). */
struct LeaseDefaults {
    int seatsPerDevice = 6;
    int returnBeforeSeconds = 1200;
    int graceSeconds = 1800;
};

/** @brief A decision of one of the lease functions: its name and data as PostgreSQL made them. */
struct LeaseDecision {
    bool ok = false; ///< false: the database failed, nothing changed
    QString decision;
    QJsonObject data;
    bool replayed = false;
};

/** @brief What ending a lease did (mq_return_lease). */
struct LeaseEnd {
    bool ok = false;
    QString decision; ///< returned, revoked or lease_not_found
    QJsonObject lease;
    qint64 showId = 0;
    QStringList freed; ///< put back on sale by this call
};

/** @brief One sale a device made under its lease, as it reports it. */
struct LeaseSale {
    qint64 deviceSeq = 0;
    QStringList seatIds;
    qint64 amountMinor = 0;
    QString currency;
    qint64 tenderedMinor = 0;
    QDateTime soldAt;
    QJsonArray tickets; ///< [{ticket_id, seat_id, code}] as the device printed them
    QByteArray fingerprint;
};

/**
 * @brief Seat-block leases (migration 039): placing, reading, ending and sweeping them, and recording the sales a
 * device reports under one. Every seat write is one of the lease functions (server/sql/functions/mq_*lease*.sql),
 * decided by PostgreSQL alone; the seats it wrote reach the seat maps through SeatWrites after the commit.
 */
class LeaseRepository
{
public:
    /** @brief @p tickets signs the delegation of a lease requested with a device key (TicketRepository::issueDelegation). */
    LeaseRepository(const Database &database, TicketRepository &tickets);

    /**
     * @brief The till @p caller sells for: a till's own token, or the till a staff session was opened at
     * (sessions.device_id); 0 when there is none, -1 on a database error.
     */
    qint64 tillOf(const Principal &caller);
    /**
     * @brief mq_place_lease: @p seatIds, or (empty) the @p best free seats nearest the middle. With a
     * @p devicePublicKey (raw 32 bytes), a granted lease gets its signed delegation in the same transaction, in the
     * answer's `delegation` (a replay answers the one it got then).
     */
    LeaseDecision place(const QString &leaseId, qint64 showId, qint64 deviceId, const QString &owner, const QString &idempotencyKey,
                        const QByteArray &requestHash, const QStringList &seatIds, int best, const LeaseDefaults &defaults,
                        const QByteArray &devicePublicKey = {});
    /** @brief The delegation of a lease as its answers carry it (`delegation`), null when it has none; std::nullopt on error. */
    std::optional<QJsonValue> delegationOf(const QString &leaseId);
    /** @brief The lease (mq_lease_json); std::nullopt when there is none (see @p ok). */
    std::optional<QJsonObject> lease(const QString &leaseId, bool *ok);
    /** @brief The leases of a show, oldest first; only those of @p deviceId unless it is 0. */
    std::optional<QJsonArray> leasesOfShow(qint64 showId, qint64 deviceId);
    /**
     * @brief mq_return_lease: give back (the lease's device, or a manager after expiry) or revoke (a manager before);
     * either revokes the lease's delegation in the same transaction (its device signs nothing more that a door admits).
     * What a manager ends is audited in that transaction (lease.revoke, or lease.return after the expiry).
     */
    LeaseEnd end(const QString &leaseId, const Principal &caller, qint64 deviceId, bool manager);
    /**
     * @brief Check the device-signed tickets (`MQ2.` codes) of a sale of @p deviceId under lease @p leaseId before it
     * is recorded (DelegationRepository::checkSaleTickets, and no ticket id already on record for anything else):
     * the refusal, or none (also when the sale carries no such codes, or the lease is not @p deviceId's: its
     * recording then answers). @p ok false on a database error.
     */
    std::optional<SaleTicketsRefusal> checkDelegatedTickets(const QString &leaseId, qint64 deviceId, const LeaseSale &sale, bool *ok);
    /** @brief mq_lease_sale: record @p sale and move its seats from leased into a hold of @p owner. */
    LeaseDecision recordSale(const QString &leaseId, qint64 deviceId, const QString &owner, const LeaseSale &sale, int holdTtlSeconds);
    /** @brief Note the order and (when there is one) the booking a recorded sale became. */
    bool noteSaleResult(const QString &leaseId, qint64 deviceSeq, const QString &orderId, const QString &bookingId);
    /** @brief mq_sweep_leases: expired leases closed or marked unreported; how many, -1 on error. */
    int sweep(int batch);
    /** @brief A show's lease settings ({seats_per_device, return_before_seconds, grace_seconds}, the defaults filled in). */
    std::optional<QJsonObject> settings(qint64 showId, const LeaseDefaults &defaults);
    /**
     * @brief Store a show's lease settings (std::nullopt: the default), audited (lease.settings) in the same
     * transaction; false on error or an unknown show.
     */
    bool setSettings(qint64 showId, std::optional<int> seatsPerDevice, std::optional<int> returnBeforeSeconds,
                     std::optional<int> graceSeconds, const Principal &caller, bool *showKnown);

private:
    const Database &m_database;
    TicketRepository &m_tickets;
};

} // namespace marquee::store
