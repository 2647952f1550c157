// SPDX-License-Identifier: AGPL-3.0-or-later
// core/TicketCodec: what a door scanner reads from a QR code (MQ1.<payload>.<signature>, or a device-signed
// MQ2.<payload>.<signature> under a delegation), verified offline; and the delegations a door caches.
#include "core/ticketcodec.h"
#include "fuzzcheck.h"

#include <QJsonDocument>

using namespace marquee;

namespace {
// The key of the seed corpus (tests/fuzz/make-seeds): its private seed is 32 bytes 0x01..0x20, key id 7.
constexpr quint32 kKeyId = 7;
QByteArray privateKey()
{
    QByteArray seed;
    for (char c = 1; c <= 32; ++c)
        seed.append(c);
    return seed;
}

// The delegation of the seed corpus: its device key is the seed 0x02..0x21 (make-seeds: DEVICE_KEY).
const QUuid kDelegationId = QUuid::fromString(QStringLiteral("0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"));
QByteArray deviceKey()
{
    QByteArray seed;
    for (char c = 2; c <= 33; ++c)
        seed.append(c);
    return seed;
}

void checkQr(const QString &qr, const QHash<quint32, QByteArray> &keys, const QHash<QUuid, QByteArray> &delegations)
{
    const TicketVerification verification = TicketCodec::verify(qr, keys, delegations);
    if (verification.result == TicketCheck::Malformed)
        return;
    // Whatever decodes is a payload the codec could have written: one ticket has exactly one QR string, so
    // signing the decoded fields again gives the very same string (Ed25519 signatures are deterministic).
    const TicketPayload &payload = verification.payload;
    FUZZ_CHECK(!TicketCodec::encodePayload(payload).isEmpty());
    FUZZ_CHECK((payload.keyId != 0) != payload.isDelegated() && !payload.ticketId.isNull() && payload.showId > 0
               && payload.validUntil > payload.validFrom);
    FUZZ_CHECK(qr.startsWith(payload.isDelegated() ? QLatin1String("MQ2.") : QLatin1String("MQ1.")));
    if (verification.result == TicketCheck::Ok && !payload.isDelegated()) {
        FUZZ_CHECK(payload.keyId == kKeyId);
        FUZZ_CHECK(TicketCodec::sign(payload, privateKey()) == qr);
    }
    if (verification.result == TicketCheck::Ok && payload.isDelegated()) {
        FUZZ_CHECK(payload.delegationId == kDelegationId);
        FUZZ_CHECK(TicketCodec::sign(payload, deviceKey()) == qr);
    }
    if (verification.result == TicketCheck::UnknownKey)
        FUZZ_CHECK(!payload.isDelegated() && !keys.contains(payload.keyId));
    if (verification.result == TicketCheck::UnknownDelegation)
        FUZZ_CHECK(payload.isDelegated() && !delegations.contains(payload.delegationId));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QHash<quint32, QByteArray> keys{{kKeyId, TicketCodec::publicKeyOf(privateKey())}};
    static const QHash<QUuid, QByteArray> delegations{{kDelegationId, TicketCodec::publicKeyOf(deviceKey())}};
    const QByteArray bytes = marquee::fuzz::input(data, size);
    // A scanner hands over text: as UTF-8 (a camera decoder) and as Latin-1 (a keyboard-wedge scanner).
    checkQr(QString::fromUtf8(bytes), keys, delegations);
    checkQr(QString::fromLatin1(bytes), keys, delegations);

    // A delegation, as its canonical bytes and as the JSON a door caches: one spelling, and what decodes re-encodes.
    if (const auto delegation = DelegationCodec::decode(bytes)) {
        FUZZ_CHECK(DelegationCodec::encode(*delegation) == bytes);
        FUZZ_CHECK(delegation->seatIds == DelegationCodec::canonicalSeats(delegation->seatIds));
    }
    const QJsonDocument json = QJsonDocument::fromJson(bytes);
    if (json.isObject()) {
        if (const auto delegation = DelegationCodec::fromJson(json.object())) {
            FUZZ_CHECK(!DelegationCodec::encode(*delegation).isEmpty());
            FUZZ_CHECK(DelegationCodec::fromJson(DelegationCodec::toJson(*delegation)) == delegation);
            (void)DelegationCodec::verify(*delegation, keys);
        }
    }

    // The pieces on raw bytes: strict base64url and the binary payload both have one spelling only.
    if (const auto decoded = TicketCodec::fromBase64Url(bytes))
        FUZZ_CHECK(TicketCodec::toBase64Url(*decoded) == bytes);
    if (const auto payload = TicketCodec::decodePayload(bytes))
        FUZZ_CHECK(TicketCodec::encodePayload(*payload) == bytes);
    return 0;
}
