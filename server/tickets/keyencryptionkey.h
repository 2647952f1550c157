// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief The server's key-encryption key (KEK): 32 random bytes in a file of the data directory, owned by the
 * server's OS user and readable by it only (0600), or a systemd credential (LoadCredential=signing-kek:…, found in
 * $CREDENTIALS_DIRECTORY). Ticket signing keys are stored in PostgreSQL sealed with it (core/keyseal.h), so a
 * database dump or backup alone cannot forge tickets. Every server of one database needs the same file.
 */
namespace KeyEncryptionKey {
/** @brief The file name inside the data directory. */
inline QString defaultPath(const QString &dataDirectory)
{
    return dataDirectory + QStringLiteral("/signing-kek");
}
/**
 * @brief Read the KEK at @p path, or create it when there is none yet (atomically: two servers starting at once
 * end up with the same key). Refuses a file of the wrong size, one that others may read or write, or one that
 * belongs to a user other than this process's (or root's, for a credential).
 */
std::optional<QByteArray> loadOrCreate(const QString &path, QString *error);
/** @brief Read an existing KEK (marquee-admin never creates one: it must use the server's). */
std::optional<QByteArray> load(const QString &path, QString *error);
} // namespace KeyEncryptionKey

} // namespace marquee
