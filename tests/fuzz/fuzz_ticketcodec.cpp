// SPDX-License-Identifier: AGPL-3.0-or-later
// core/TicketCodec: what a door scanner reads from a QR code (MQ1.<payload>.<signature>), verified offline.
#include "core/ticketcodec.h"
#include "fuzzcheck.h"

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

void checkQr(const QString &qr, const QHash<quint32, QByteArray> &keys)
{
    const TicketVerification verification = TicketCodec::verify(qr, keys);
    if (verification.result == TicketCheck::Malformed)
        return;
    // Whatever decodes is a payload the codec could have written: one ticket has exactly one QR string, so
    // signing the decoded fields again gives the very same string (Ed25519 signatures are deterministic).
    const TicketPayload &payload = verification.payload;
    FUZZ_CHECK(!TicketCodec::encodePayload(payload).isEmpty());
    FUZZ_CHECK(payload.keyId != 0 && !payload.ticketId.isNull() && payload.showId > 0 && payload.validUntil > payload.validFrom);
    if (verification.result == TicketCheck::Ok) {
        FUZZ_CHECK(payload.keyId == kKeyId);
        FUZZ_CHECK(TicketCodec::sign(payload, privateKey()) == qr);
    }
    if (verification.result == TicketCheck::UnknownKey)
        FUZZ_CHECK(!keys.contains(payload.keyId));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QHash<quint32, QByteArray> keys{{kKeyId, TicketCodec::publicKeyOf(privateKey())}};
    const QByteArray bytes = marquee::fuzz::input(data, size);
    // A scanner hands over text: as UTF-8 (a camera decoder) and as Latin-1 (a keyboard-wedge scanner).
    checkQr(QString::fromUtf8(bytes), keys);
    checkQr(QString::fromLatin1(bytes), keys);

    // The pieces on raw bytes: strict base64url and the binary payload both have one spelling only.
    if (const auto decoded = TicketCodec::fromBase64Url(bytes))
        FUZZ_CHECK(TicketCodec::toBase64Url(*decoded) == bytes);
    if (const auto payload = TicketCodec::decodePayload(bytes))
        FUZZ_CHECK(TicketCodec::encodePayload(*payload) == bytes);
    return 0;
}
