// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace marquee {

/** @brief A new random bearer token: 32 bytes from the OS CSPRNG, base64url without padding. */
QString newBearerToken();
/** @brief SHA-256 of a token, hex; only this is stored. */
QByteArray tokenHash(const QString &token);
/** @brief Hash a password with PBKDF2-HMAC-SHA256 and a random salt: "pbkdf2-sha256$iter$salt$hash". */
QString hashPassword(const QString &password, int iterations = 120000);
/** @brief Verify a password against hashPassword() output in constant time. */
bool verifyPassword(const QString &password, const QString &encoded);
/** @brief HMAC-SHA256 of @p data with @p key, hex encoded. */
QByteArray hmacSha256Hex(const QByteArray &key, const QByteArray &data);
/** @brief Constant-time comparison of two byte strings. */
bool constantTimeEquals(const QByteArray &a, const QByteArray &b);

} // namespace marquee
