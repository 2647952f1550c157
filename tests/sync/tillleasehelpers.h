// SPDX-License-Identifier: AGPL-3.0-or-later
// A till's leases in tests (sync and app): the lease's delegation kept with the till's own signer.
#pragma once

#include "core/ticketcodec.h"
#include "sync/deviceticketsigner.h"
#include "sync/leasekeeper.h"
#include "sync/localstore.h"

#include <QJsonArray>
#include <QUuid>
#include <gtest/gtest.h>

namespace marquee::test {

/**
 * @brief Keep the delegation of @p lease with @p signer, so that the till can sign its tickets. The server's own,
 * when the lease answer carries one (a lease asked for with the device key); a server that does not sign
 * delegations yet gets one signed here by a venue key of the test's, cached in @p store as the venue's — the
 * tickets are then real Ed25519 signatures of the device key all the same, which such a server only keeps.
 */
inline bool keepDelegation(sync::LocalStore &store, sync::DeviceTicketSigner &signer, const sync::StoredLease &lease)
{
    const QJsonObject own = lease.lease.value(QStringLiteral("delegation")).toObject();
    if (!own.isEmpty()) {
        const sync::DelegationAcceptOutcome accepted = signer.accept(own);
        EXPECT_TRUE(accepted.ok()) << accepted.message.toStdString();
        return accepted.ok();
    }
    static const TicketKeyPair venue = *TicketCodec::generateKeyPair();
    constexpr quint32 kTestVenueKey = 990001;
    const qint64 venueId = store.deviceVenue() > 0 ? store.deviceVenue() : 1;
    QList<sync::PublicKey> keys = store.publicKeys();
    keys.append({kTestVenueKey, venue.publicKey, venueId, {}});
    EXPECT_TRUE(store.replacePublicKeys(keys));
    EXPECT_TRUE(store.setDeviceVenue(venueId));
    TicketDelegation delegation;
    delegation.keyId = kTestVenueKey;
    delegation.delegationId = QUuid::createUuid();
    delegation.leaseId = QUuid(lease.leaseId);
    delegation.deviceId = lease.lease.value(QStringLiteral("device_id")).toInteger();
    delegation.showId = lease.showId;
    delegation.devicePublicKey = signer.publicKeyBytes();
    QStringList seats;
    for (const QJsonValue &seat : lease.lease.value(QStringLiteral("seat_ids")).toArray())
        seats.append(seat.toString());
    delegation.seatIds = DelegationCodec::canonicalSeats(seats);
    delegation.validFrom = QDateTime::currentSecsSinceEpoch() - 3600;
    delegation.validUntil = lease.expiresAt.toSecsSinceEpoch() + 3600;
    delegation.sellUntil = lease.expiresAt.toSecsSinceEpoch();
    EXPECT_TRUE(DelegationCodec::sign(delegation, venue.privateKey));
    const sync::DelegationAcceptOutcome accepted = signer.accept(DelegationCodec::toJson(delegation));
    EXPECT_TRUE(accepted.ok()) << accepted.message.toStdString();
    return accepted.ok();
}

} // namespace marquee::test
