// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/ticketcodec.h"
#include "localstore.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace marquee::sync {

/** @brief What DeviceTicketSigner::accept() made of a delegation that came with a lease. */
enum class DelegationAcceptance {
    Accepted,         ///< verified and kept (accepting the same delegation again is Accepted too)
    Malformed,        ///< not a delegation (a field missing, out of range or not canonical)
    UnknownKey,       ///< signed by a key that is not among this venue's cached keys: refresh GET /api/v1/keys, retry
    InvalidSignature, ///< the venue signature does not match: forged or altered, never trusted
    OtherDevice,      ///< genuine, but for another device key than this device's
    NoDeviceKey,      ///< open() has not succeeded
    StoreFailed,      ///< the local store could not keep it (errorString())
};

/** @brief Wire-style name: "accepted", "malformed", "unknown_key", "invalid_signature", "other_device", "no_device_key", "store_failed". */
QString toString(DelegationAcceptance acceptance);

/** @brief The answer of DeviceTicketSigner::accept(). */
struct DelegationAcceptOutcome {
    DelegationAcceptance result = DelegationAcceptance::Malformed;
    TicketDelegation delegation; ///< the decoded delegation (trusted only when Accepted)
    QString message;             ///< why, in words, when not Accepted
    bool ok() const { return result == DelegationAcceptance::Accepted; }
};

/** @brief Why DeviceTicketSigner::sign() refused; None when it signed. */
enum class SignRefusal {
    None,
    NoDeviceKey,       ///< open() has not succeeded
    NoDelegation,      ///< no accepted delegation for that lease on this device
    OtherDevice,       ///< the delegation kept for the lease is for another key (the key file was replaced)
    DelegationRevoked, ///< the lease was revoked or given back (setRevoked): this device sells no more under it
    OtherShow,         ///< the show is not the delegation's
    SeatNotDelegated,  ///< the seat is not in the delegation's seat list: a device key never signs a seat outside its lease
    OutsideWindow,     ///< the requested validity window reaches outside the delegation's
    SaleWindowOver,    ///< the lease's sale window is over (now >= sell_until)
    InvalidRequest,    ///< the fields cannot form a ticket (empty or over-long seat id, empty window)
    StoreFailed,       ///< the ticket could not be kept durably, so it is not handed out (errorString())
};

/** @brief Wire-style name: "none", "no_device_key", "no_delegation", "other_device", "delegation_revoked", "other_show",
 *  "seat_not_delegated", "outside_window", "sale_window_over", "invalid_request", "store_failed". */
QString toString(SignRefusal refusal);

/** @brief The answer of DeviceTicketSigner::sign(): a ticket, or a refusal with its reason. */
struct SignOutcome {
    SignRefusal refusal = SignRefusal::None;
    QString message;       ///< why, in words, when refused
    QString ticketId;      ///< the ticket's UUID (lower case, no braces), generated on this device
    QString qr;            ///< the `MQ2.` string to print
    TicketPayload payload; ///< its fields
    bool existing = false; ///< the seat had been signed before under this delegation: the same ticket again
    bool ok() const { return refusal == SignRefusal::None; }
};

/**
 * @brief The device's own ticket-signing key and the delegations that let it sign (docs/tickets.md, "Delegated
 * tickets"). A till sends publicKey() with a lease request (`device_public_key`), keeps the server-signed
 * delegation of the answer with accept(), and while offline signs the tickets of the seats it sells with sign():
 * `MQ2.` strings that doors verify against the delegation, and that become the booking's tickets when the sale is
 * uploaded (POST /api/v1/leases/{id}/sales, `tickets`).
 *
 * The key is created once: a random Ed25519 seed in the file `<store path>.device-key` (mode 0600, written to a
 * temporary file and linked into place, so two processes never make two keys), never sent anywhere. A key file that
 * others may read or write, or of the wrong size, is refused (open() fails): the device then cannot sign at all.
 *
 * sign() refuses any seat not in the delegation's seat list, another show, a window beyond the delegation's and
 * any signing after its sale window; it signs each seat of a delegation once: a second call for the same seat
 * returns the ticket of the first (kept in the LocalStore before it is returned), so a reprint or a retry after a
 * crash never makes a second valid ticket for one seat. Use from one thread at a time.
 */
class DeviceTicketSigner
{
public:
    explicit DeviceTicketSigner(LocalStore &store);

    /** @brief Load the device key, creating it on first use; false with errorString() on failure. The store must be open. */
    bool open();
    bool isOpen() const { return !m_privateKey.isEmpty(); }
    QString errorString() const { return m_error; }
    /** @brief The key file (`<store path>.device-key`). */
    QString keyPath() const;

    /** @brief The device's public key, standard base64 of the raw 32 bytes (`device_public_key` of a lease request). */
    QString publicKey() const;
    QByteArray publicKeyBytes() const { return m_publicKey; }

    /**
     * @brief Keep the delegation of a lease answer (its `delegation` object) after checking it: its venue signature
     * against this device's venue keys cached in the LocalStore (GET /api/v1/keys), and that it names this
     * device's key. An expired delegation is kept all the same (sign() refuses under it).
     */
    DelegationAcceptOutcome accept(const QJsonObject &delegation);
    /** @brief The accepted delegation of a lease, if any. */
    std::optional<TicketDelegation> delegationForLease(const QString &leaseId);
    /** @brief Whether the delegation of a lease is marked revoked on this device. */
    bool isRevoked(const QString &leaseId);
    /** @brief Stop signing under a lease's delegation (the lease was revoked or given back); false on a store error. */
    bool setRevoked(const QString &leaseId, const QDateTime &at = {});

    /**
     * @brief Bring the kept delegations in line with what the till knows of its leases (LocalStore::leases()): keep
     * the delegation of every live lease not kept yet, stop signing under a lease that was revoked or given back.
     * Returns the leases whose delegation a venue key signed that is not cached yet: the caller reads the keys feed
     * again (once per lease) and calls this again.
     */
    QStringList followLeases(const QList<StoredLease> &leases);

    /**
     * @brief Sign the ticket for @p seatId of @p showId under the delegation of @p leaseId, valid from @p validFrom
     * until @p validUntil (unix seconds; 0 for either takes the delegation's own bound, which is also the window of
     * a ticket the server would issue: doors open to the end of the show). @p now (default: the current time)
     * must be before the delegation's sell_until. The ticket id is a fresh UUID made here; the ticket is kept in
     * the store before it is returned.
     */
    SignOutcome sign(const QString &leaseId, qint64 showId, const QString &seatId, qint64 validFrom = 0, qint64 validUntil = 0,
                     const QDateTime &now = {});

private:
    bool loadOrCreateKey();

    LocalStore &m_store;
    QByteArray m_privateKey;
    QByteArray m_publicKey;
    QString m_error;
};

} // namespace marquee::sync
