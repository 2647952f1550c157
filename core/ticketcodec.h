// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QUuid>
#include <optional>

namespace marquee {

/**
 * @brief What a ticket's QR code says: which ticket, for which show and seat, when it may be used, and which
 * key signed it. No personal data. The exact byte layout is documented in docs/tickets.md.
 */
struct TicketPayload {
    quint32 keyId = 0;      ///< signing key (signing_keys.key_id), 1..2^32-1
    QUuid ticketId;         ///< the ticket (never null)
    qint64 showId = 0;      ///< the show (> 0)
    QString seatId;         ///< the seat, 1..64 bytes of UTF-8
    qint64 validFrom = 0;   ///< unix seconds, inclusive
    qint64 validUntil = 0;  ///< unix seconds, exclusive; validUntil > validFrom

    bool operator==(const TicketPayload &other) const = default;
};

/** @brief A raw Ed25519 key pair: 32-byte private seed and 32-byte public key. */
struct TicketKeyPair {
    QByteArray privateKey;
    QByteArray publicKey;
};

/** @brief The outcome of checking a QR string's form and signature (not its validity window or revocation). */
enum class TicketCheck {
    Ok,               ///< well formed and signed by the named key
    Malformed,        ///< not an MQ1 string, bad base64url, wrong lengths or an unknown format version
    UnknownKey,       ///< well formed, but the key id is not among the known public keys
    InvalidSignature, ///< well formed, known key, but the signature does not match
};

/** @brief Wire name of a check result: "ok", "malformed", "unknown_key", "invalid_signature". */
QString toString(TicketCheck check);

/** @brief The result of TicketCodec::verify(): the check and, unless Malformed, the decoded fields. */
struct TicketVerification {
    TicketCheck result = TicketCheck::Malformed;
    TicketPayload payload; ///< decoded fields; meaningful unless result is Malformed (untrusted unless Ok)
};

/**
 * @brief Signed QR tickets: `MQ1.<base64url payload>.<base64url signature>` without padding, Ed25519 over the
 * raw payload bytes (OpenSSL 3). Shared by the server (signs) and the app (verifies offline at the door).
 *
 * All functions are thread-safe and never throw.
 */
class TicketCodec
{
public:
    static constexpr quint8 kFormatVersion = 1;
    static constexpr int kMaxSeatIdBytes = 64;
    static constexpr int kKeyBytes = 32;
    static constexpr int kSignatureBytes = 64;

    /** @brief A fresh key pair from the OS CSPRNG; std::nullopt only if OpenSSL fails. */
    static std::optional<TicketKeyPair> generateKeyPair();
    /** @brief The public key of a raw 32-byte private key; empty on bad input. */
    static QByteArray publicKeyOf(const QByteArray &privateKey);

    /** @brief The compact binary payload; empty when a field is out of range (see TicketPayload). */
    static QByteArray encodePayload(const TicketPayload &payload);
    /** @brief Parse a binary payload strictly (exact length, known version); std::nullopt otherwise. */
    static std::optional<TicketPayload> decodePayload(const QByteArray &bytes);

    /** @brief Ed25519 signature (64 bytes) of @p message with a raw private key; empty on error. */
    static QByteArray signBytes(const QByteArray &message, const QByteArray &privateKey);
    /** @brief True when @p signature is a valid Ed25519 signature of @p message by the raw @p publicKey. */
    static bool verifyBytes(const QByteArray &message, const QByteArray &signature, const QByteArray &publicKey);

    /** @brief The QR string for @p payload signed with @p privateKey; empty on bad input. */
    static QString sign(const TicketPayload &payload, const QByteArray &privateKey);
    /**
     * @brief Check a QR string against the known public keys (key id → raw 32-byte public key).
     *
     * Strict: only canonical unpadded base64url is accepted, so one ticket has exactly one QR string.
     */
    static TicketVerification verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById);

    /** @brief Unpadded base64url, the encoding used in QR strings. */
    static QByteArray toBase64Url(const QByteArray &bytes);
    /** @brief Strict decoding of canonical unpadded base64url; std::nullopt on any other input. */
    static std::optional<QByteArray> fromBase64Url(const QByteArray &text);
};

} // namespace marquee
