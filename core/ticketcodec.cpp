// SPDX-License-Identifier: AGPL-3.0-or-later
#include "ticketcodec.h"

#include <QtEndian>
#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace marquee {

namespace {
const QByteArray kPrefix = QByteArrayLiteral("MQ1.");

// Fixed part: version 1 + key id 4 + ticket id 16 + show id 8 + seat length 1 + valid-from 8 + valid-until 8.
constexpr int kFixedBytes = 1 + 4 + 16 + 8 + 1 + 8 + 8;

struct PkeyDeleter {
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};
struct MdCtxDeleter {
    void operator()(EVP_MD_CTX *ctx) const { EVP_MD_CTX_free(ctx); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

const unsigned char *bytes(const QByteArray &data)
{
    return reinterpret_cast<const unsigned char *>(data.constData());
}

template<typename T>
void appendBigEndian(QByteArray &out, T value)
{
    char buffer[sizeof(T)];
    qToBigEndian(value, buffer);
    out.append(buffer, sizeof(T));
}

template<typename T>
T readBigEndian(const char *at)
{
    return qFromBigEndian<T>(at);
}

bool isBase64UrlChar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}
} // namespace

QString toString(TicketCheck check)
{
    switch (check) {
    case TicketCheck::Ok:
        return QStringLiteral("ok");
    case TicketCheck::Malformed:
        return QStringLiteral("malformed");
    case TicketCheck::UnknownKey:
        return QStringLiteral("unknown_key");
    case TicketCheck::InvalidSignature:
        return QStringLiteral("invalid_signature");
    }
    return QStringLiteral("malformed");
}

std::optional<TicketKeyPair> TicketCodec::generateKeyPair()
{
    QByteArray seed(kKeyBytes, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(seed.data()), kKeyBytes) != 1)
        return std::nullopt;
    const QByteArray publicKey = publicKeyOf(seed);
    if (publicKey.isEmpty())
        return std::nullopt;
    return TicketKeyPair{seed, publicKey};
}

QByteArray TicketCodec::publicKeyOf(const QByteArray &privateKey)
{
    if (privateKey.size() != kKeyBytes)
        return {};
    PkeyPtr key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes(privateKey), size_t(privateKey.size())));
    if (!key)
        return {};
    QByteArray out(kKeyBytes, Qt::Uninitialized);
    size_t length = size_t(out.size());
    if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char *>(out.data()), &length) != 1
        || length != size_t(kKeyBytes))
        return {};
    return out;
}

QByteArray TicketCodec::encodePayload(const TicketPayload &payload)
{
    const QByteArray seat = payload.seatId.toUtf8();
    if (payload.keyId == 0 || payload.ticketId.isNull() || payload.showId <= 0 || seat.isEmpty()
        || seat.size() > kMaxSeatIdBytes || payload.validUntil <= payload.validFrom)
        return {};
    QByteArray out;
    out.reserve(kFixedBytes + seat.size());
    out.append(char(kFormatVersion));
    appendBigEndian<quint32>(out, payload.keyId);
    out.append(payload.ticketId.toRfc4122());
    appendBigEndian<qint64>(out, payload.showId);
    out.append(char(quint8(seat.size())));
    out.append(seat);
    appendBigEndian<qint64>(out, payload.validFrom);
    appendBigEndian<qint64>(out, payload.validUntil);
    return out;
}

std::optional<TicketPayload> TicketCodec::decodePayload(const QByteArray &data)
{
    if (data.size() < kFixedBytes + 1 || quint8(data[0]) != kFormatVersion)
        return std::nullopt;
    const char *p = data.constData();
    TicketPayload payload;
    payload.keyId = readBigEndian<quint32>(p + 1);
    payload.ticketId = QUuid::fromRfc4122(QByteArrayView(p + 5, 16));
    payload.showId = readBigEndian<qint64>(p + 21);
    const int seatLength = quint8(p[29]);
    if (seatLength < 1 || seatLength > kMaxSeatIdBytes || data.size() != kFixedBytes + seatLength)
        return std::nullopt;
    const QByteArray seat(p + 30, seatLength);
    payload.seatId = QString::fromUtf8(seat);
    payload.validFrom = readBigEndian<qint64>(p + 30 + seatLength);
    payload.validUntil = readBigEndian<qint64>(p + 38 + seatLength);
    // Refuse anything encodePayload() would not have produced (invalid UTF-8, zero ids, empty window).
    if (payload.seatId.toUtf8() != seat || encodePayload(payload) != data)
        return std::nullopt;
    return payload;
}

QByteArray TicketCodec::signBytes(const QByteArray &message, const QByteArray &privateKey)
{
    if (privateKey.size() != kKeyBytes)
        return {};
    PkeyPtr key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes(privateKey), size_t(privateKey.size())));
    MdCtxPtr ctx(EVP_MD_CTX_new());
    if (!key || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return {};
    QByteArray signature(kSignatureBytes, Qt::Uninitialized);
    size_t length = size_t(signature.size());
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(signature.data()), &length, bytes(message),
                       size_t(message.size()))
            != 1
        || length != size_t(kSignatureBytes))
        return {};
    return signature;
}

bool TicketCodec::verifyBytes(const QByteArray &message, const QByteArray &signature, const QByteArray &publicKey)
{
    if (publicKey.size() != kKeyBytes || signature.size() != kSignatureBytes)
        return false;
    PkeyPtr key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes(publicKey), size_t(publicKey.size())));
    MdCtxPtr ctx(EVP_MD_CTX_new());
    if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return false;
    return EVP_DigestVerify(ctx.get(), bytes(signature), size_t(signature.size()), bytes(message), size_t(message.size())) == 1;
}

QString TicketCodec::sign(const TicketPayload &payload, const QByteArray &privateKey)
{
    const QByteArray encoded = encodePayload(payload);
    if (encoded.isEmpty())
        return {};
    const QByteArray signature = signBytes(encoded, privateKey);
    if (signature.isEmpty())
        return {};
    return QString::fromLatin1(kPrefix + toBase64Url(encoded) + '.' + toBase64Url(signature));
}

TicketVerification TicketCodec::verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById)
{
    TicketVerification result;
    // The longest valid string is well under 300 characters; refuse anything far bigger before decoding.
    if (qr.size() > 512)
        return result;
    const QByteArray text = qr.toLatin1();
    if (!text.startsWith(kPrefix) || QString::fromLatin1(text) != qr)
        return result;
    const QList<QByteArray> parts = text.mid(kPrefix.size()).split('.');
    if (parts.size() != 2)
        return result;
    const auto payloadBytes = fromBase64Url(parts[0]);
    const auto signature = fromBase64Url(parts[1]);
    if (!payloadBytes || !signature || signature->size() != kSignatureBytes)
        return result;
    const auto payload = decodePayload(*payloadBytes);
    if (!payload)
        return result;
    result.payload = *payload;
    const auto key = publicKeysById.constFind(payload->keyId);
    if (key == publicKeysById.constEnd()) {
        result.result = TicketCheck::UnknownKey;
        return result;
    }
    result.result = verifyBytes(*payloadBytes, *signature, *key) ? TicketCheck::Ok : TicketCheck::InvalidSignature;
    return result;
}

QByteArray TicketCodec::toBase64Url(const QByteArray &data)
{
    return data.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

std::optional<QByteArray> TicketCodec::fromBase64Url(const QByteArray &text)
{
    if (text.isEmpty() || text.size() % 4 == 1)
        return std::nullopt;
    for (char c : text) {
        if (!isBase64UrlChar(c))
            return std::nullopt;
    }
    auto decoded = QByteArray::fromBase64Encoding(text, QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals
                                                            | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    // Non-zero unused trailing bits would give a second spelling of the same bytes: refuse them.
    if (toBase64Url(decoded.decoded) != text)
        return std::nullopt;
    return decoded.decoded;
}

} // namespace marquee
