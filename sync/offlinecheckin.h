// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// Offline check-in needs the ticket codec (core/ticketcodec.h); in a tree without it, the rest of the library
// still builds.
#if __has_include("core/ticketcodec.h")
#define MARQUEE_SYNC_HAS_CHECKIN 1
#include "core/ticketcodec.h"
#include "localstore.h"

#include <QDateTime>
#include <QString>

namespace marquee::sync {

class SyncEngine;

/** @brief What the door decided for one scan, before (or without) the server. */
struct ScanOutcome {
    QString nonce;       ///< the scan's nonce (its upload's idempotency key)
    QString result;      ///< "ok", "already_redeemed", "revoked", "invalid_signature", "unknown_key", "malformed",
                         ///< "wrong_venue", "wrong_show", "not_yet_valid", "expired"; for a device-signed ticket also
                         ///< "unknown_delegation", "outside_delegation", "delegation_revoked"
    TicketPayload ticket; ///< decoded fields (meaningful unless result is "malformed")
    QDateTime scannedAt;
    bool recorded = false; ///< journaled (and, for a decodable QR, queued for upload)
    bool admit() const { return result == QLatin1String("ok"); }
};

/**
 * @brief Check-in at the door that keeps working offline: verifies the QR signature against the cached public
 * keys of this device's venue only (core TicketCodec, Ed25519; a ticket of another venue's key is wrong_venue,
 * and with no venue known yet every key is unknown), checks the cached revocation list, the show and the validity window, and
 * refuses a second entry on this device. A device-signed ticket (`MQ2.`, sold offline under a lease) is verified
 * against the device key of its delegation from the cached GET /api/v1/delegations (itself checked against the
 * venue's keys) and admitted only for the delegation's show, seats and window, and, once the delegation is revoked,
 * only when its sale was reported (the delegation's ticket_ids). Every scan is journaled with a fresh nonce and its real time, and its
 * upload (POST /api/v1/checkin, nonce as idempotency key) is queued in the same transaction; the SyncEngine
 * stores the server's answer (for example already_redeemed at another door) on the scan.
 */
class OfflineCheckin
{
public:
    explicit OfflineCheckin(LocalStore &store, SyncEngine *engine = nullptr);

    /** @brief Check a scanned QR for @p showId (0: any show) at @p now (default: the current time). */
    ScanOutcome scan(const QString &qr, qint64 showId = 0, const QDateTime &now = {});

private:
    LocalStore &m_store;
    SyncEngine *m_engine;
};

} // namespace marquee::sync

#endif // __has_include("core/ticketcodec.h")
