// SPDX-License-Identifier: AGPL-3.0-or-later
#include "offlinecheckin.h"
#ifdef MARQUEE_SYNC_HAS_CHECKIN
#include "syncengine.h"
#include "synclog.h"

#include <QSet>
#include <QUuid>

namespace marquee::sync {

OfflineCheckin::OfflineCheckin(LocalStore &store, SyncEngine *engine)
    : m_store(store)
    , m_engine(engine)
{
}

ScanOutcome OfflineCheckin::scan(const QString &qr, qint64 showId, const QDateTime &now)
{
    ScanOutcome outcome;
    outcome.nonce = QUuid::createUuid().toString(QUuid::WithoutBraces);
    outcome.scannedAt = now.isValid() ? now.toUTC() : QDateTime::currentDateTimeUtc();

    // Only this venue's keys verify: another venue's ticket, genuinely signed there, does not open this door.
    const qint64 venue = m_store.deviceVenue();
    QHash<quint32, QByteArray> keys;
    QSet<quint32> otherVenues;
    for (const PublicKey &key : m_store.publicKeys()) {
        if (venue > 0 && key.venueId == venue)
            keys.insert(key.keyId, key.publicKey);
        else if (venue > 0)
            otherVenues.insert(key.keyId);
    }
    TicketVerification verification = TicketCodec::verify(qr.trimmed(), keys);
    // A device-signed ticket: the venue-signed delegation it names, from the cached feed, checked again against this
    // venue's keys (a delegation is what lets a device key admit anybody), gives the device key to verify it with.
    std::optional<TicketDelegation> delegation;
    std::optional<DelegationRecord> delegationRecord;
    if (verification.result == TicketCheck::UnknownDelegation) {
        delegationRecord = m_store.venueDelegation(verification.payload.delegationId.toString(QUuid::WithoutBraces));
        if (delegationRecord)
            delegation = DelegationCodec::fromJson(delegationRecord->document);
        if (delegation && DelegationCodec::verify(*delegation, keys) != TicketCheck::Ok)
            delegation.reset();
        if (delegation)
            verification = TicketCodec::verify(qr.trimmed(), keys, {{delegation->delegationId, delegation->devicePublicKey}});
    }
    outcome.ticket = verification.payload;
    const QString ticketId = verification.result == TicketCheck::Malformed ? QString() : verification.payload.ticketId.toString(QUuid::WithoutBraces);
    const qint64 at = outcome.scannedAt.toSecsSinceEpoch();
    switch (verification.result) {
    case TicketCheck::Malformed:
        outcome.result = QStringLiteral("malformed");
        break;
    case TicketCheck::UnknownKey:
        outcome.result = otherVenues.contains(verification.payload.keyId) ? QStringLiteral("wrong_venue") : QStringLiteral("unknown_key");
        break;
    case TicketCheck::InvalidSignature:
        outcome.result = QStringLiteral("invalid_signature");
        break;
    case TicketCheck::UnknownDelegation:
        outcome.result = QStringLiteral("unknown_delegation");
        break;
    case TicketCheck::Ok:
        if (delegation && DelegationCodec::covers(*delegation, verification.payload) != DelegationCover::Covered)
            outcome.result = QStringLiteral("outside_delegation"); // the device key signed what its lease never allowed
        else if (m_store.revocation(ticketId))
            outcome.result = QStringLiteral("revoked");
        else if (delegationRecord && delegationRecord->revokedAt.isValid() && !delegationRecord->reportedTicketIds.contains(ticketId))
            outcome.result = QStringLiteral("delegation_revoked"); // its lease ended and this sale was never reported
        else if (showId > 0 && verification.payload.showId != showId)
            outcome.result = QStringLiteral("wrong_show");
        else if (at < verification.payload.validFrom)
            outcome.result = QStringLiteral("not_yet_valid");
        else if (at >= verification.payload.validUntil)
            outcome.result = QStringLiteral("expired");
        else
            outcome.result = QStringLiteral("ok");
        break;
    }
    // One entry per ticket at this door: an earlier admitted scan of the same ticket wins.
    if (outcome.result == QLatin1String("ok")) {
        for (const CheckinScan &earlier : m_store.scans()) {
            if (earlier.ticketId == ticketId && earlier.localResult == QLatin1String("ok")) {
                outcome.result = QStringLiteral("already_redeemed");
                break;
            }
        }
    }

    CheckinScan scan;
    scan.nonce = outcome.nonce;
    scan.qr = qr;
    scan.ticketId = ticketId;
    scan.scannedAt = outcome.scannedAt;
    scan.localResult = outcome.result;
    std::optional<NewAction> upload;
    if (verification.result != TicketCheck::Malformed) {
        // The server is the judge across doors; a QR we could not even parse is not worth its time.
        NewAction action;
        action.kind = QStringLiteral("checkin");
        action.method = QStringLiteral("POST");
        action.path = QStringLiteral("/api/v1/checkin");
        action.body = QJsonObject{{QStringLiteral("qr"), qr},
                                  {QStringLiteral("nonce"), outcome.nonce},
                                  {QStringLiteral("scanned_at"), outcome.scannedAt.toString(Qt::ISODateWithMs)}};
        action.idempotencyKey = outcome.nonce;
        // Scans of one ticket upload in the order they were made, so that the server, like this door, admits the
        // first and calls the later ones already redeemed; scans of different tickets replay in parallel.
        action.group = ticketId.isEmpty() ? QStringLiteral("checkin:") + outcome.nonce : QStringLiteral("ticket:") + ticketId;
        upload = action;
    } else {
        scan.uploadState = QStringLiteral("local_only");
    }
    outcome.recorded = m_store.recordScan(scan, upload);
    if (!outcome.recorded)
        qCWarning(lcSync) << "could not journal a scan:" << m_store.errorString();
    if (m_engine && upload)
        m_engine->kick();
    return outcome;
}

} // namespace marquee::sync

#endif // MARQUEE_SYNC_HAS_CHECKIN
