// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/databaseconfig.h"

#include <QString>
#include <optional>

namespace marquee::Backup {

/** @brief The files of a backup directory. */
inline constexpr const char *kManifestFile = "manifest.json";
inline constexpr const char *kDumpFile = "database.dump";
inline constexpr const char *kKeyEncryptionKeyFile = "signing-kek";
/** @brief The manifest's "format": what restore understands. */
inline constexpr const char *kFormat = "marquee-backup/1";

/**
 * @brief pg_dump of the database @p owner connects to (as that role), custom format, one snapshot, into @p file
 * (created 0600, must not exist). The password reaches pg_dump through a private PGPASSFILE, never its arguments.
 * The pg_dump of the server's major version is used when it is installed.
 */
bool dumpDatabase(const store::DatabaseConfig &owner, const QString &file, QString *error);

struct Created {
    int schemaVersion = 0;
    qint64 dumpBytes = 0;
};
/**
 * @brief A backup in @p directory (created 0700; an existing one must be empty): database.dump (dumpDatabase),
 * signing-kek (a copy of the key-encryption key at @p keyEncryptionKeyPath, 0600) and manifest.json (format,
 * schema_version, server_version, created_at UTC, database, postgresql_version, every file's name, size and SHA-256),
 * written last: a directory without a manifest is not a backup. On failure the files written are removed.
 */
std::optional<Created> create(const store::DatabaseConfig &owner, const QString &keyEncryptionKeyPath, const QString &directory,
                              QString *error);

struct Restored {
    int schemaVersion = 0;
    qint64 signingKeys = 0;   ///< signing keys that still verify, each proven to open with the restored KEK
    bool keyEncryptionKeyWritten = false; ///< false: the same key was already at the destination
};
/**
 * @brief Restore the backup in @p directory into the EMPTY database @p target (as its owner): every file's size
 * and checksum are checked against the manifest first and a database with anything in it is refused (nothing
 * changed either way); pg_restore runs in one transaction; every signing key that still verifies must then open
 * with the backup's key-encryption key, which is written to @p keyEncryptionKeyPath (0600) last. An existing
 * different key there is refused before anything is restored.
 */
std::optional<Restored> restore(const store::DatabaseConfig &target, const QString &directory, const QString &keyEncryptionKeyPath,
                                QString *error);

/**
 * @brief Before migrating @p owner's database from schema @p fromVersion to @p toVersion: a dump in @p directory
 * (created 0700) named pre-upgrade-<from>-<to>-<UTC yyyyMMddTHHmmssZ>.dump, then all but the newest @p keep such
 * dumps removed. The file written, or std::nullopt with @p error.
 */
std::optional<QString> preUpgradeDump(const store::DatabaseConfig &owner, const QString &directory, int fromVersion, int toVersion,
                                      int keep, QString *error);

} // namespace marquee::Backup
