// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <optional>

namespace marquee {

/**
 * @brief Authenticated encryption of small secrets (ticket signing seeds) under a 32-byte key-encryption key:
 * AES-256-GCM (OpenSSL 3) with a fresh random 96-bit nonce per seal.
 *
 * Sealed form: version byte 1 | 12-byte nonce | ciphertext (as long as the plaintext) | 16-byte tag. The
 * associated data is authenticated but not stored: opening with other associated data fails, so a sealed secret
 * is bound to the record it belongs to.
 */
namespace KeySeal {
constexpr int kKeyBytes = 32;
constexpr int kNonceBytes = 12;
constexpr int kTagBytes = 16;
constexpr char kVersion = 1;
/** @brief The length of a sealed secret of @p plaintextBytes. */
constexpr int sealedSize(int plaintextBytes)
{
    return 1 + kNonceBytes + plaintextBytes + kTagBytes;
}
/** @brief Seal @p plaintext; empty on a bad key or an OpenSSL failure. */
QByteArray seal(const QByteArray &keyEncryptionKey, const QByteArray &plaintext, const QByteArray &associatedData);
/** @brief Open what seal() produced; std::nullopt when the key, the associated data or the bytes do not match. */
std::optional<QByteArray> open(const QByteArray &keyEncryptionKey, const QByteArray &sealed, const QByteArray &associatedData);
} // namespace KeySeal

} // namespace marquee
