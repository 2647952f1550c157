// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/authrepository.h"
#include "store/database.h"
#include "store/delegationrepository.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QStringList>
#include <optional>

namespace marquee::store {

/** @brief A ticket as handed to its buyer: its id, its seat and the signed QR string. */
struct IssuedTicket {
    QString ticketId;
    QString seatId;
    QString qr;
};

/** @brief A public signing key as published at GET /api/v1/keys. */
struct PublicSigningKey {
    qint64 keyId = 0;
    qint64 venueId = 0;
    QByteArray publicKey; ///< raw 32 bytes
    QDateTime notAfter;
    bool retired = false; ///< no longer signs new tickets, still verifies until notAfter
};

/** @brief A revocation as listed at GET /api/v1/revocations. */
struct Revocation {
    qint64 cursor = 0;
    QString ticketId;
    QDateTime revokedAt;
    QString reason;
};

/** @brief A scan as uploaded by a door device (online, or later from its offline queue). */
struct CheckinRequest {
    QString qr;
    QString nonce;          ///< unique per scan; the same nonce always gets the same answer
    QDateTime scannedAt;
    std::optional<qint64> doorShowId; ///< the show this door admits to, when the scanner knows it
    QString device;         ///< the caller's owner string ("device:3")
    /** @brief The venue of the scanning device (Principal::venueId), when it has one: a ticket of another venue is
     *  refused as wrong_venue, however good its signature. */
    std::optional<qint64> doorVenueId;
    /** @brief A staff session scanning: the check-in's audit row is written with its first answer (not on a retry). */
    std::optional<Principal> staff;
};

/** @brief Outcome of a check-in. */
struct CheckinOutcome {
    enum class Status { Answered, MalformedQr, NonceReused, StoreError };
    Status status = Status::StoreError;
    QJsonObject body; ///< {result, ticket, first_scanned_at?} when Answered
};

/** @brief What a reprint over HTTP (POST /api/v1/tickets/{id}/reissue) did. */
struct ReissueOutcome {
    enum class Kind {
        Reissued,         ///< old ticket revoked, new one issued, audit written (one transaction)
        Replayed,         ///< the old ticket was already reissued and its replacement is still valid: that one, nothing written
        NotFound,         ///< no such ticket
        Revoked,          ///< the ticket is revoked (booking cancelled, or its replacement was reissued or revoked again)
        AlreadyCheckedIn, ///< the ticket was admitted: a new ticket id would admit the seat a second time
        Error             ///< database error: nothing changed
    };
    Kind kind = Kind::Error;
    IssuedTicket ticket;  ///< the valid replacement (Reissued, Replayed)
    QString bookingId;
    qint64 showId = 0;
};

/**
 * @brief Tickets, their per-venue Ed25519 signing keys, revocations and check-ins.
 *
 * The write functions that take a QSqlDatabase run INSIDE the caller's transaction on the caller's (this
 * thread's) connection and never begin or commit one themselves: the orders code issues tickets in the same
 * transaction that books the seats, and revokes them in the one that cancels the booking. On false or
 * std::nullopt the caller must roll back.
 */
class TicketRepository
{
public:
    explicit TicketRepository(const Database &database);

    /**
     * @brief The key-encryption key that seals the signing keys at rest (KeyEncryptionKey, core/keyseal.h). Set
     * once at start-up, before any request. Without it no ticket can be signed (fail closed).
     */
    void setKeyEncryptionKey(const QByteArray &keyEncryptionKey);
    /**
     * @brief At start-up, with the KEK set: seal the signing keys still stored raw (schema 2) and check that every
     * key that still verifies opens with this KEK, and that the KEK is the one the database's first server left its
     * check with (also while no signing key exists yet). false with @p error when one does not (another server's
     * KEK file is needed) or on a database error.
     */
    bool prepareSigningKeys(QString *error);
    /** @brief The associated data a sealed seed is bound to: its venue and its public key (docs/tickets.md). */
    static QByteArray sealContext(qint64 venueId, const QByteArray &publicKey);

    /** @brief Doors open this long before a show starts: a ticket is valid from then (docs/tickets.md). */
    static constexpr int kDoorsOpenSecondsBeforeStart = 3 * 3600;
    /** @brief Lifetime of a new signing key. */
    static constexpr int kKeyLifetimeDays = 730;

    /**
     * @brief Issue one signed ticket per seat of @p seatIds for booking @p bookingId of show @p showId, with the
     * venue's current key (created on first use). Valid from doors-open (3 h before the start) until the show
     * ends (start + runtime). Writes one outbox event `ticket.issued` {booking_id, show_id, tickets:[{ticket_id,
     * seat_id}]}. std::nullopt on an unknown show, a seat that already has a valid ticket, or a database error.
     */
    std::optional<QList<IssuedTicket>> issueTickets(QSqlDatabase &db, const QString &bookingId, qint64 showId,
                                                    const QStringList &seatIds, const QString &holdId = {});
    /**
     * @brief The delegation of lease @p leaseId to the device key @p devicePublicKey (raw 32 bytes), signed with the
     * venue's current key and stored, inside the caller's transaction (the one that granted the lease): the seats
     * of the lease, its show, tickets valid from doors open until the show ends (as issueTickets() would sign
     * them), no signing by the device after the lease's expiry. std::nullopt on an unknown lease or an error.
     */
    std::optional<TicketDelegation> issueDelegation(QSqlDatabase &db, const QString &leaseId, const QByteArray &devicePublicKey);
    /** @brief The delegations of leases (stored, revoked, published). */
    DelegationRepository &delegations() { return m_delegations; }
    /**
     * @brief Revoke every valid ticket of @p bookingId: state revoked, one revocation row each, one outbox event
     * `ticket.revoked` {booking_id, ticket_ids, reason}. Idempotent: true (and nothing written) when there is
     * nothing left to revoke. false on a database error.
     */
    bool revokeTicketsOfBooking(QSqlDatabase &db, const QString &bookingId, const QString &reason);
    /**
     * @brief Reprint: revoke ticket @p ticketId (reason @p reason) and issue a new one for the same booking and
     * seat, linked by replaced_by. Writes `ticket.revoked` and `ticket.issued`. std::nullopt when the ticket is
     * unknown or already revoked, or on a database error.
     */
    std::optional<IssuedTicket> reissueTicket(QSqlDatabase &db, const QString &ticketId, const QString &reason);
    /**
     * @brief Reprint at the till, in one transaction of its own: lock the booking (as cancel does, so a cancel
     * cannot miss the new ticket), refuse unknown, revoked and already admitted tickets, reissueTicket() and
     * append the audit entry "ticket.reissue" for @p actor. Repeating the call for the same old ticket returns
     * its still-valid replacement without writing anything (the old ticket id is the idempotency key).
     */
    ReissueOutcome reissue(const Principal &actor, const QString &ticketId, const QString &reason);

    /** @brief The valid tickets of a booking, in seat order (own connection); std::nullopt on error. */
    std::optional<QList<IssuedTicket>> validTicketsOfBooking(const QString &bookingId);

    /** @brief Every key that still verifies (not_after in the future), newest first; std::nullopt on error. */
    std::optional<QList<PublicSigningKey>> publicKeys();
    /**
     * @brief Retire the venue's signing key (it keeps verifying until its not_after) and create a new one that
     * signs from now on, in one transaction. The new key id, or std::nullopt with @p error.
     */
    std::optional<qint64> rotateKey(qint64 venueId, QString *error);

    /** @brief Revocations after @p cursor, oldest first, at most @p limit; std::nullopt on error. */
    std::optional<QList<Revocation>> revocations(qint64 afterCursor, int limit);

    /**
     * @brief Check a ticket in: verify the QR against the known keys, then, in one transaction serialised per
     * nonce, either return the stored answer for this nonce or decide (revoked, wrong_show, not_yet_valid,
     * expired, or first scan wins via a conditional insert) and store the answer under the nonce.
     */
    CheckinOutcome checkIn(const CheckinRequest &request);

private:
    /** @brief Leave the KEK check (migration 034) when there is none, else open it; false with @p error. */
    bool checkKeyEncryptionKey(QSqlDatabase &db, QString *error);
    struct SigningKey {
        qint64 keyId = 0;
        QByteArray privateKey; ///< unsealed, in memory only while signing
    };

    std::optional<SigningKey> currentKey(QSqlDatabase &db, qint64 venueId, const QDateTime &neededUntil);
    QHash<quint32, QByteArray> verificationKeys(bool reload, bool *ok);

    std::optional<QList<IssuedTicket>> insertDelegatedTickets(QSqlDatabase &db, const QString &bookingId, qint64 showId, const QStringList &seats,
                                                              const QString &delegationId, const QJsonArray &saleTickets);
    bool insertIssuedEvent(QSqlDatabase &db, const QString &bookingId, qint64 showId, const QList<IssuedTicket> &issued);
    /** @brief True when the seat has a valid ticket other than @p ticketId. */
    bool seatTakenByAnotherTicket(QSqlDatabase &db, qint64 showId, const QString &seatId, const QString &ticketId, bool *ok);
    /** @brief Read a delegated ticket's delegation and check its venue signature: nullopt when unknown or not genuine. */
    std::optional<StoredDelegation> verifiedDelegation(QSqlDatabase &db, const QUuid &delegationId, bool *ok);

    const Database &m_database;
    DelegationRepository m_delegations;
    QByteArray m_keyEncryptionKey;
    QMutex m_keysMutex;
    QHash<quint32, QByteArray> m_keys; ///< key id → public key, of keys that still verify
    QDateTime m_keysLoadedAt;
};

} // namespace marquee::store
