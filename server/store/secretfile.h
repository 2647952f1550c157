// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace marquee::store::SecretFile {

/**
 * @brief The file of the systemd credential @p name (LoadCredential=): $CREDENTIALS_DIRECTORY/NAME when that
 * exists and is not empty, else an empty string.
 */
QString credential(const QString &name);

/** @brief Whether @p path is a file of $CREDENTIALS_DIRECTORY (private to the service: systemd sees to that). */
bool inCredentialsDirectory(const QString &path);

/**
 * @brief Read a secret (a password, a webhook secret) from @p path. Refuses a file that other users may read or
 * write (like ssh with a private key; a systemd credential may show its ACL as group bits and is accepted) and,
 * unless @p anyOwner or this process is root, one that belongs to another user. One trailing line break is
 * dropped, so `echo secret > file` works.
 */
std::optional<QByteArray> read(const QString &path, QString *error, bool anyOwner = false);

/**
 * @brief The password in @p path, created (mode 0600, 64 random hex digits, atomically: two processes creating it
 * at once end up with the same) when there is none yet.
 */
std::optional<QString> loadOrCreatePassword(const QString &path, QString *error);

} // namespace marquee::store::SecretFile
