// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace marquee::store {

/**
 * @brief Brings a database to this binary's schema: the numbered migrations (`:/migrations/NNN_name.sql`,
 * tables, indexes, data changes: applied once each) and the repeatable SQL (`:/functions/name.sql`: every function,
 * trigger and view, each defined once, re-applied whenever its file changed).
 *
 * One run is one transaction: the pending migrations in version order (each recorded in `schema_migrations`),
 * then every function file whose SHA-256 differs from the one recorded in `schema_functions` (all of them when
 * any migration was applied, since a migration may drop a function), in file-name order, then the part of each
 * applied migration after a line `-- marquee:after-functions` (backfills that call those functions). A database
 * whose schema is newer than the binary is refused: an old binary must never write to a schema it does not
 * understand. Every migration not yet recorded is applied, whatever its number, so migrations that land out of
 * numeric order (written in parallel) still reach every database.
 */
class Migrations
{
public:
    enum class Status { Current, Behind, Ahead, Error };

    /**
     * @param directory where the NNN_name.sql files are; tests pass their own, the server the compiled-in one.
     * @param functionsDirectory where the repeatable name.sql files are (a folder that does not exist: none).
     */
    explicit Migrations(const Database &database, QString directory = QStringLiteral(":/migrations"),
                        QString functionsDirectory = QStringLiteral(":/functions"));

    /** @brief Highest migration version compiled into this binary. */
    static int latestVersion();
    /** @brief Version recorded in the database (0 for an empty database, -1 on error). */
    int currentVersion();
    /**
     * @brief Ahead if a recorded version is newer than every file; Behind if any migration is not recorded yet or
     * a function file's checksum is not the one recorded.
     */
    Status status();
    /** @brief The versions of the migrations not recorded yet, in order (empty when none); std::nullopt on error. */
    std::optional<std::vector<int>> pendingMigrations();
    /** @brief Apply every pending migration; false (with errorString()) on any error or a newer schema. */
    bool migrate();
    QString errorString() const { return m_error; }

private:
    std::optional<std::set<int>> appliedVersions();
    /** @brief Function file name → checksum as recorded (empty before the first run that records them). */
    std::optional<std::map<QString, QByteArray>> appliedFunctions();

    const Database &m_database;
    QString m_directory;
    QString m_functionsDirectory;
    QString m_error;
};

} // namespace marquee::store
