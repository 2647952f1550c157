// SPDX-License-Identifier: AGPL-3.0-or-later
#include "ticketcodec.h"

#include "isotime.h"

#include <QJsonArray>
#include <QtEndian>
#include <algorithm>
#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace marquee {

namespace {
const QByteArray kPrefix = QByteArrayLiteral("MQ1.");
const QByteArray kDelegatedPrefix = QByteArrayLiteral("MQ2.");

// Fixed part: version 1 + key id 4 + ticket id 16 + show id 8 + seat length 1 + valid-from 8 + valid-until 8.
constexpr int kFixedBytes = 1 + 4 + 16 + 8 + 1 + 8 + 8;
// Delegated: version 1 + delegation id 16 + ticket id 16 + show id 8 + seat length 1 + valid-from 8 + valid-until 8.
constexpr int kDelegatedFixedBytes = 1 + 16 + 16 + 8 + 1 + 8 + 8;

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

// What a venue key signs for a delegation starts with these four bytes; a ticket payload starts with its version
// byte (0x01), so no signature over one can be passed off as a signature over the other.
const QByteArray kDelegationMagic = QByteArrayLiteral("MQD1");
// Fixed part: magic 4 + key id 4 + delegation id 16 + lease id 16 + device id 8 + show id 8 + device key 32
// + valid-from 8 + valid-until 8 + sell-until 8 + seat count 2.
constexpr int kDelegationFixedBytes = 4 + 4 + 16 + 16 + 8 + 8 + 32 + 8 + 8 + 8 + 2;

bool lessByBytes(const QString &a, const QString &b)
{
    return a.toUtf8() < b.toUtf8();
}

/** @brief Canonical standard base64 (with padding), the encoding of keys and signatures in JSON; strict. */
std::optional<QByteArray> fromCanonicalBase64(const QString &text)
{
    const QByteArray latin = text.toLatin1();
    if (latin.isEmpty() || QString::fromLatin1(latin) != text)
        return std::nullopt;
    auto decoded = QByteArray::fromBase64Encoding(latin, QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.toBase64() != latin)
        return std::nullopt;
    return decoded.decoded;
}

/** @brief Unix seconds of an ISO 8601 time with no fraction of a second; std::nullopt otherwise. */
std::optional<qint64> wholeSeconds(const QJsonValue &value)
{
    if (!value.isString())
        return std::nullopt;
    const QDateTime time = fromIso(value.toString());
    if (!time.isValid() || time.toMSecsSinceEpoch() % 1000 != 0)
        return std::nullopt;
    return time.toSecsSinceEpoch();
}

std::optional<QUuid> uuidField(const QJsonValue &value)
{
    const QString text = value.toString();
    const QUuid id = QUuid::fromString(text);
    if (text.size() != 36 || id.isNull() || id.toString(QUuid::WithoutBraces) != text)
        return std::nullopt;
    return id;
}

std::optional<qint64> positiveInteger(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double number = value.toDouble();
    const qint64 integer = value.toInteger(-1);
    if (integer <= 0 || double(integer) != number)
        return std::nullopt;
    return integer;
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
    case TicketCheck::UnknownDelegation:
        return QStringLiteral("unknown_delegation");
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
    if (payload.ticketId.isNull() || payload.showId <= 0 || seat.isEmpty() || seat.size() > kMaxSeatIdBytes
        || payload.validUntil <= payload.validFrom)
        return {};
    // A delegated ticket names its delegation and no venue key; a venue ticket names its key and no delegation.
    if (payload.isDelegated() == (payload.keyId != 0))
        return {};
    QByteArray out;
    if (payload.isDelegated()) {
        out.reserve(kDelegatedFixedBytes + seat.size());
        out.append(char(kDelegatedFormatVersion));
        out.append(payload.delegationId.toRfc4122());
    } else {
        out.reserve(kFixedBytes + seat.size());
        out.append(char(kFormatVersion));
        appendBigEndian<quint32>(out, payload.keyId);
    }
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
    if (data.isEmpty())
        return std::nullopt;
    const quint8 version = quint8(data[0]);
    if (version != kFormatVersion && version != kDelegatedFormatVersion)
        return std::nullopt;
    const bool delegated = version == kDelegatedFormatVersion;
    const int fixedBytes = delegated ? kDelegatedFixedBytes : kFixedBytes;
    if (data.size() < fixedBytes + 1)
        return std::nullopt;
    const char *p = data.constData() + 1;
    TicketPayload payload;
    if (delegated) {
        payload.delegationId = QUuid::fromRfc4122(QByteArrayView(p, 16));
        p += 16;
    } else {
        payload.keyId = readBigEndian<quint32>(p);
        p += 4;
    }
    payload.ticketId = QUuid::fromRfc4122(QByteArrayView(p, 16));
    payload.showId = readBigEndian<qint64>(p + 16);
    const int seatLength = quint8(p[24]);
    if (seatLength < 1 || seatLength > kMaxSeatIdBytes || data.size() != fixedBytes + seatLength)
        return std::nullopt;
    const QByteArray seat(p + 25, seatLength);
    payload.seatId = QString::fromUtf8(seat);
    payload.validFrom = readBigEndian<qint64>(p + 25 + seatLength);
    payload.validUntil = readBigEndian<qint64>(p + 33 + seatLength);
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
    const QByteArray &prefix = payload.isDelegated() ? kDelegatedPrefix : kPrefix;
    return QString::fromLatin1(prefix + toBase64Url(encoded) + '.' + toBase64Url(signature));
}

TicketVerification TicketCodec::verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById)
{
    return verify(qr, publicKeysById, {});
}

TicketVerification TicketCodec::verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById,
                                       const QHash<QUuid, QByteArray> &devicePublicKeysByDelegation)
{
    TicketVerification result;
    // The longest valid string is well under 300 characters; refuse anything far bigger before decoding.
    if (qr.size() > 512)
        return result;
    const QByteArray text = qr.toLatin1();
    if (QString::fromLatin1(text) != qr)
        return result;
    const bool delegated = text.startsWith(kDelegatedPrefix);
    if (!delegated && !text.startsWith(kPrefix))
        return result;
    // Both prefixes are four characters.
    const QList<QByteArray> parts = text.mid(kPrefix.size()).split('.');
    if (parts.size() != 2)
        return result;
    const auto payloadBytes = fromBase64Url(parts[0]);
    const auto signature = fromBase64Url(parts[1]);
    if (!payloadBytes || !signature || signature->size() != kSignatureBytes)
        return result;
    const auto payload = decodePayload(*payloadBytes);
    // The prefix and the payload's version say the same: an MQ1 string never carries a delegated payload.
    if (!payload || payload->isDelegated() != delegated)
        return result;
    result.payload = *payload;
    if (delegated) {
        const auto key = devicePublicKeysByDelegation.constFind(payload->delegationId);
        if (key == devicePublicKeysByDelegation.constEnd()) {
            result.result = TicketCheck::UnknownDelegation;
            return result;
        }
        result.result = verifyBytes(*payloadBytes, *signature, *key) ? TicketCheck::Ok : TicketCheck::InvalidSignature;
        return result;
    }
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

QString toString(DelegationCover cover)
{
    switch (cover) {
    case DelegationCover::Covered:
        return QStringLiteral("covered");
    case DelegationCover::OtherDelegation:
        return QStringLiteral("other_delegation");
    case DelegationCover::OtherShow:
        return QStringLiteral("other_show");
    case DelegationCover::SeatNotDelegated:
        return QStringLiteral("seat_not_delegated");
    case DelegationCover::OutsideWindow:
        return QStringLiteral("outside_window");
    }
    return QStringLiteral("other_delegation");
}

QStringList DelegationCodec::canonicalSeats(QStringList seats)
{
    std::sort(seats.begin(), seats.end(), lessByBytes);
    seats.erase(std::unique(seats.begin(), seats.end()), seats.end());
    return seats;
}

QByteArray DelegationCodec::encode(const TicketDelegation &d)
{
    if (d.keyId == 0 || d.delegationId.isNull() || d.leaseId.isNull() || d.deviceId <= 0 || d.showId <= 0
        || d.devicePublicKey.size() != TicketCodec::kKeyBytes || d.validUntil <= d.validFrom || d.sellUntil <= 0
        || d.seatIds.isEmpty() || d.seatIds.size() > kMaxSeats || canonicalSeats(d.seatIds) != d.seatIds)
        return {};
    QByteArray out;
    out.reserve(kDelegationFixedBytes + d.seatIds.size() * 5);
    out.append(kDelegationMagic);
    appendBigEndian<quint32>(out, d.keyId);
    out.append(d.delegationId.toRfc4122());
    out.append(d.leaseId.toRfc4122());
    appendBigEndian<qint64>(out, d.deviceId);
    appendBigEndian<qint64>(out, d.showId);
    out.append(d.devicePublicKey);
    appendBigEndian<qint64>(out, d.validFrom);
    appendBigEndian<qint64>(out, d.validUntil);
    appendBigEndian<qint64>(out, d.sellUntil);
    appendBigEndian<quint16>(out, quint16(d.seatIds.size()));
    for (const QString &seatId : d.seatIds) {
        const QByteArray seat = seatId.toUtf8();
        if (seat.isEmpty() || seat.size() > TicketCodec::kMaxSeatIdBytes)
            return {};
        out.append(char(quint8(seat.size())));
        out.append(seat);
    }
    return out;
}

std::optional<TicketDelegation> DelegationCodec::decode(const QByteArray &data)
{
    if (data.size() < kDelegationFixedBytes || !data.startsWith(kDelegationMagic))
        return std::nullopt;
    const char *p = data.constData();
    TicketDelegation d;
    d.keyId = readBigEndian<quint32>(p + 4);
    d.delegationId = QUuid::fromRfc4122(QByteArrayView(p + 8, 16));
    d.leaseId = QUuid::fromRfc4122(QByteArrayView(p + 24, 16));
    d.deviceId = readBigEndian<qint64>(p + 40);
    d.showId = readBigEndian<qint64>(p + 48);
    d.devicePublicKey = QByteArray(p + 56, TicketCodec::kKeyBytes);
    d.validFrom = readBigEndian<qint64>(p + 88);
    d.validUntil = readBigEndian<qint64>(p + 96);
    d.sellUntil = readBigEndian<qint64>(p + 104);
    const int count = readBigEndian<quint16>(p + 112);
    qsizetype at = kDelegationFixedBytes;
    for (int i = 0; i < count; ++i) {
        if (at >= data.size())
            return std::nullopt;
        const int length = quint8(data[at]);
        if (at + 1 + length > data.size())
            return std::nullopt;
        const QByteArray seat = data.mid(at + 1, length);
        const QString seatId = QString::fromUtf8(seat);
        if (seatId.toUtf8() != seat)
            return std::nullopt;
        d.seatIds.append(seatId);
        at += 1 + length;
    }
    // Exactly the bytes encode() writes: no trailing bytes, canonical seat order, every field in range.
    if (at != data.size() || encode(d) != data)
        return std::nullopt;
    return d;
}

bool DelegationCodec::sign(TicketDelegation &delegation, const QByteArray &venuePrivateKey)
{
    const QByteArray encoded = encode(delegation);
    if (encoded.isEmpty())
        return false;
    const QByteArray signature = TicketCodec::signBytes(encoded, venuePrivateKey);
    if (signature.isEmpty())
        return false;
    delegation.signature = signature;
    return true;
}

TicketCheck DelegationCodec::verify(const TicketDelegation &delegation, const QHash<quint32, QByteArray> &venueKeysById)
{
    const QByteArray encoded = encode(delegation);
    if (encoded.isEmpty() || delegation.signature.size() != TicketCodec::kSignatureBytes)
        return TicketCheck::Malformed;
    const auto key = venueKeysById.constFind(delegation.keyId);
    if (key == venueKeysById.constEnd())
        return TicketCheck::UnknownKey;
    return TicketCodec::verifyBytes(encoded, delegation.signature, *key) ? TicketCheck::Ok : TicketCheck::InvalidSignature;
}

DelegationCover DelegationCodec::covers(const TicketDelegation &delegation, const TicketPayload &ticket)
{
    if (!ticket.isDelegated() || ticket.delegationId != delegation.delegationId)
        return DelegationCover::OtherDelegation;
    if (ticket.showId != delegation.showId)
        return DelegationCover::OtherShow;
    if (!std::binary_search(delegation.seatIds.cbegin(), delegation.seatIds.cend(), ticket.seatId, lessByBytes))
        return DelegationCover::SeatNotDelegated;
    if (ticket.validFrom < delegation.validFrom || ticket.validUntil > delegation.validUntil)
        return DelegationCover::OutsideWindow;
    return DelegationCover::Covered;
}

DelegatedTicketCheck DelegationCodec::checkTicket(const TicketDelegation &delegation, const QString &qr)
{
    DelegatedTicketCheck check;
    const TicketVerification verification = TicketCodec::verify(qr, {}, {{delegation.delegationId, delegation.devicePublicKey}});
    check.payload = verification.payload;
    // A venue ticket (MQ1) is not this delegation's either: the venue keys were deliberately not given.
    check.signature = verification.result == TicketCheck::UnknownKey ? TicketCheck::UnknownDelegation : verification.result;
    if (check.signature == TicketCheck::Ok)
        check.cover = covers(delegation, verification.payload);
    return check;
}

QJsonObject DelegationCodec::toJson(const TicketDelegation &d)
{
    const auto iso = [](qint64 seconds) { return toIsoUtc(QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC)); };
    return QJsonObject{{QStringLiteral("delegation_id"), d.delegationId.toString(QUuid::WithoutBraces)},
                       {QStringLiteral("lease_id"), d.leaseId.toString(QUuid::WithoutBraces)},
                       {QStringLiteral("device_id"), d.deviceId},
                       {QStringLiteral("show_id"), d.showId},
                       {QStringLiteral("device_public_key"), QString::fromLatin1(d.devicePublicKey.toBase64())},
                       {QStringLiteral("seat_ids"), QJsonArray::fromStringList(d.seatIds)},
                       {QStringLiteral("valid_from"), iso(d.validFrom)},
                       {QStringLiteral("valid_until"), iso(d.validUntil)},
                       {QStringLiteral("sell_until"), iso(d.sellUntil)},
                       {QStringLiteral("key_id"), qint64(d.keyId)},
                       {QStringLiteral("signature"), QString::fromLatin1(d.signature.toBase64())}};
}

std::optional<TicketDelegation> DelegationCodec::fromJson(const QJsonObject &json)
{
    const auto delegationId = uuidField(json.value(QStringLiteral("delegation_id")));
    const auto leaseId = uuidField(json.value(QStringLiteral("lease_id")));
    const auto deviceId = positiveInteger(json.value(QStringLiteral("device_id")));
    const auto showId = positiveInteger(json.value(QStringLiteral("show_id")));
    const auto keyId = positiveInteger(json.value(QStringLiteral("key_id")));
    const auto devicePublicKey = fromCanonicalBase64(json.value(QStringLiteral("device_public_key")).toString());
    const auto signature = fromCanonicalBase64(json.value(QStringLiteral("signature")).toString());
    const auto validFrom = wholeSeconds(json.value(QStringLiteral("valid_from")));
    const auto validUntil = wholeSeconds(json.value(QStringLiteral("valid_until")));
    const auto sellUntil = wholeSeconds(json.value(QStringLiteral("sell_until")));
    const QJsonValue seats = json.value(QStringLiteral("seat_ids"));
    if (!delegationId || !leaseId || !deviceId || !showId || !keyId || *keyId > qint64(0xFFFFFFFFu) || !devicePublicKey || !signature
        || !validFrom || !validUntil || !sellUntil || !seats.isArray())
        return std::nullopt;
    TicketDelegation d;
    d.keyId = quint32(*keyId);
    d.delegationId = *delegationId;
    d.leaseId = *leaseId;
    d.deviceId = *deviceId;
    d.showId = *showId;
    d.devicePublicKey = *devicePublicKey;
    d.signature = *signature;
    d.validFrom = *validFrom;
    d.validUntil = *validUntil;
    d.sellUntil = *sellUntil;
    for (const QJsonValue &seat : seats.toArray()) {
        if (!seat.isString())
            return std::nullopt;
        d.seatIds.append(seat.toString());
    }
    if (encode(d).isEmpty() || d.signature.size() != TicketCodec::kSignatureBytes)
        return std::nullopt;
    return d;
}

} // namespace marquee
