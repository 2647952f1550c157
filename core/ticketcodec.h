// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QUuid>
#include <optional>

namespace marquee {

/**
 * @brief What a ticket's QR code says: which ticket, for which show and seat, when it may be used, and which
 * key signed it. No personal data. The exact byte layout is documented in docs/tickets.md.
 *
 * Two kinds share it: a venue-signed ticket (`MQ1.`, keyId names the venue's signing key, delegationId null)
 * and a device-signed ticket sold offline under a lease (`MQ2.`, keyId 0, delegationId names the server-signed
 * delegation whose device key signed it; see core/ticketdelegation.h).
 */
struct TicketPayload {
    quint32 keyId = 0;      ///< venue signing key (signing_keys.key_id), 1..2^32-1; 0 for a delegated ticket
    QUuid ticketId;         ///< the ticket (never null)
    qint64 showId = 0;      ///< the show (> 0)
    QString seatId;         ///< the seat, 1..64 bytes of UTF-8
    qint64 validFrom = 0;   ///< unix seconds, inclusive
    qint64 validUntil = 0;  ///< unix seconds, exclusive; validUntil > validFrom
    QUuid delegationId;     ///< null for a venue-signed ticket; the delegation of a device-signed one

    /** @brief True for a device-signed ticket (`MQ2.`) sold under a delegation. */
    bool isDelegated() const { return !delegationId.isNull(); }
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
    UnknownDelegation, ///< a well formed delegated ticket (MQ2) whose delegation is not among the known ones
};

/** @brief Wire name of a check result: "ok", "malformed", "unknown_key", "invalid_signature", "unknown_delegation". */
QString toString(TicketCheck check);

/** @brief The result of TicketCodec::verify(): the check and, unless Malformed, the decoded fields. */
struct TicketVerification {
    TicketCheck result = TicketCheck::Malformed;
    TicketPayload payload; ///< decoded fields; meaningful unless result is Malformed (untrusted unless Ok)
};

/**
 * @brief Signed QR tickets: `MQ1.<base64url payload>.<base64url signature>` (venue key) or
 * `MQ2.<base64url payload>.<base64url signature>` (a device key under a delegation), without padding, Ed25519
 * over the raw payload bytes (OpenSSL 3). Shared by the server (signs, verifies), the till (signs offline under
 * its lease) and the app (verifies offline at the door).
 *
 * All functions are thread-safe and never throw.
 */
class TicketCodec
{
public:
    static constexpr quint8 kFormatVersion = 1;
    /** @brief The payload version of a delegated ticket (`MQ2.`). */
    static constexpr quint8 kDelegatedFormatVersion = 2;
    static constexpr int kMaxSeatIdBytes = 64;
    static constexpr int kKeyBytes = 32;
    static constexpr int kSignatureBytes = 64;

    /** @brief A fresh key pair from the OS CSPRNG; std::nullopt only if OpenSSL fails. */
    static std::optional<TicketKeyPair> generateKeyPair();
    /** @brief The public key of a raw 32-byte private key; empty on bad input. */
    static QByteArray publicKeyOf(const QByteArray &privateKey);

    /**
     * @brief The compact binary payload; empty when a field is out of range (see TicketPayload). A payload with a
     * delegation id is written in the delegated layout (version 2, no key id), else in version 1.
     */
    static QByteArray encodePayload(const TicketPayload &payload);
    /** @brief Parse a binary payload (version 1 or 2) strictly (exact length); std::nullopt otherwise. */
    static std::optional<TicketPayload> decodePayload(const QByteArray &bytes);

    /** @brief Ed25519 signature (64 bytes) of @p message with a raw private key; empty on error. */
    static QByteArray signBytes(const QByteArray &message, const QByteArray &privateKey);
    /** @brief True when @p signature is a valid Ed25519 signature of @p message by the raw @p publicKey. */
    static bool verifyBytes(const QByteArray &message, const QByteArray &signature, const QByteArray &publicKey);

    /**
     * @brief The QR string for @p payload signed with @p privateKey; empty on bad input. A payload with a
     * delegation id gives an `MQ2.` string (the private key is then the device's), else `MQ1.`.
     */
    static QString sign(const TicketPayload &payload, const QByteArray &privateKey);
    /**
     * @brief Check a QR string against the known public keys (key id → raw 32-byte public key).
     *
     * Strict: only canonical unpadded base64url is accepted, so one ticket has exactly one QR string. A delegated
     * ticket (`MQ2.`) gets UnknownDelegation here: it needs the overload with the delegations' device keys.
     */
    static TicketVerification verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById);
    /**
     * @brief Check a venue-signed (`MQ1.`) or device-signed (`MQ2.`) QR string: the former against the venue
     * keys, the latter against the device public key of its delegation (delegation id → raw 32-byte key of a
     * delegation whose venue signature was checked, DelegationCodec::verify). Whether the delegation covers the
     * ticket's show, seat and window is DelegationCodec::covers(), not this.
     */
    static TicketVerification verify(const QString &qr, const QHash<quint32, QByteArray> &publicKeysById,
                                     const QHash<QUuid, QByteArray> &devicePublicKeysByDelegation);

    /** @brief Unpadded base64url, the encoding used in QR strings. */
    static QByteArray toBase64Url(const QByteArray &bytes);
    /** @brief Strict decoding of canonical unpadded base64url; std::nullopt on any other input. */
    static std::optional<QByteArray> fromBase64Url(const QByteArray &text);
};


/**
 * @brief A server-signed delegation: the venue lets one device key sign tickets for the seats of one lease,
 * within a window. The venue's ticket signing key signs its canonical bytes (docs/tickets.md, "Delegations").
 */
struct TicketDelegation {
    quint32 keyId = 0;          ///< the venue signing key that signed the delegation (signing_keys.key_id), > 0
    QUuid delegationId;         ///< the delegation (never null); delegated tickets carry it
    QUuid leaseId;              ///< the lease it belongs to (never null)
    qint64 deviceId = 0;        ///< the device the lease is for (> 0)
    qint64 showId = 0;          ///< the show (> 0)
    QByteArray devicePublicKey; ///< raw 32-byte Ed25519 public key of the device
    QStringList seatIds;        ///< canonical: each 1..64 bytes of UTF-8, ascending by bytes, no duplicates, 1..1000 seats
    qint64 validFrom = 0;       ///< unix seconds: a ticket under it is valid no earlier than this
    qint64 validUntil = 0;      ///< unix seconds: ... and no later; validUntil > validFrom
    qint64 sellUntil = 0;       ///< unix seconds: the device signs no ticket from this moment on (the lease's expiry), > 0
    QByteArray signature;       ///< 64-byte Ed25519 signature by keyId over DelegationCodec::encode()

    bool operator==(const TicketDelegation &other) const = default;
};

/** @brief Whether a delegation covers a (correctly signed) delegated ticket: DelegationCodec::covers(). */
enum class DelegationCover {
    Covered,          ///< its delegation, show, one of its seats, and a window inside the delegation's
    OtherDelegation,  ///< the ticket names another delegation
    OtherShow,        ///< the ticket is for another show than the delegation
    SeatNotDelegated, ///< the seat is not in the delegation's seat list
    OutsideWindow,    ///< the ticket's window reaches outside the delegation's
};

/** @brief Wire name: "covered", "other_delegation", "other_show", "seat_not_delegated", "outside_window". */
QString toString(DelegationCover cover);

/** @brief DelegationCodec::checkTicket(): the signature check and, when it is Ok, whether the delegation covers it. */
struct DelegatedTicketCheck {
    TicketCheck signature = TicketCheck::Malformed; ///< against the delegation's device key (UnknownDelegation: another delegation's id)
    DelegationCover cover = DelegationCover::OtherDelegation; ///< meaningful when signature is Ok
    TicketPayload payload;                          ///< decoded fields unless Malformed (trusted only when ok())
    bool ok() const { return signature == TicketCheck::Ok && cover == DelegationCover::Covered; }
};

/**
 * @brief Delegations: their canonical bytes (what the venue key signs), their JSON form (the lease answer and
 * `GET /api/v1/delegations`), signing, verifying, and the rule that a device-signed ticket is honoured only
 * for a seat and window of its delegation. Thread-safe, never throws.
 */
class DelegationCodec
{
public:
    static constexpr int kMaxSeats = 1000;

    /** @brief Seats in canonical order (ascending by UTF-8 bytes), duplicates dropped. */
    static QStringList canonicalSeats(QStringList seats);
    /** @brief The signed bytes (without the signature); empty when a field is out of range or not canonical. */
    static QByteArray encode(const TicketDelegation &delegation);
    /** @brief Strict parse of encode()'s bytes (the signature is not part of them); std::nullopt otherwise. */
    static std::optional<TicketDelegation> decode(const QByteArray &bytes);
    /** @brief Sign @p delegation with the venue's raw private key (sets its signature); false on bad input. */
    static bool sign(TicketDelegation &delegation, const QByteArray &venuePrivateKey);
    /**
     * @brief Check the delegation's form and its venue signature against the known venue keys (key id → raw
     * 32-byte public key): Ok, Malformed, UnknownKey or InvalidSignature.
     */
    static TicketCheck verify(const TicketDelegation &delegation, const QHash<quint32, QByteArray> &venueKeysById);
    /** @brief Whether @p delegation covers the delegated @p ticket (its signature is TicketCodec::verify's job). */
    static DelegationCover covers(const TicketDelegation &delegation, const TicketPayload &ticket);
    /** @brief A QR string checked against one (venue-verified) delegation: signed by its device key, and covered. */
    static DelegatedTicketCheck checkTicket(const TicketDelegation &delegation, const QString &qr);

    /**
     * @brief The JSON form: {delegation_id, lease_id, device_id, show_id, device_public_key (base64), seat_ids,
     * valid_from, valid_until, sell_until (ISO 8601, whole seconds), key_id, signature (base64)}.
     */
    static QJsonObject toJson(const TicketDelegation &delegation);
    /** @brief Strict parse of toJson()'s form (every field, canonical values); std::nullopt otherwise. Unsigned
     *  until verify() said Ok. */
    static std::optional<TicketDelegation> fromJson(const QJsonObject &json);
};

} // namespace marquee
