// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "database.h"

#include <optional>
#include <set>

namespace marquee::store {

/**
 * @brief Applies the versioned SQL migrations compiled into the binary (`:/migrations/NNN_name.sql`).
 *
 * Each migration runs in its own transaction and is recorded in `schema_migrations`. A database whose schema
 * is newer than the binary is refused: an old binary must never write to a schema it does not understand.
 * Every migration not yet recorded is applied, whatever its number, so migrations that land out of numeric
 * order (written in parallel) still reach every database.
 */
class Migrations
{
public:
    enum class Status { Current, Behind, Ahead, Error };

    /** @param directory where the NNN_name.sql files are; tests pass their own, the server the compiled-in one. */
    explicit Migrations(const Database &database, QString directory = QStringLiteral(":/migrations"));

    /** @brief Highest migration version compiled into this binary. */
    static int latestVersion();
    /** @brief Version recorded in the database (0 for an empty database, -1 on error). */
    int currentVersion();
    /** @brief Ahead if a recorded version is newer than every file, Behind if any file is not recorded yet. */
    Status status();
    /** @brief Apply every pending migration; false (with errorString()) on any error or a newer schema. */
    bool migrate();
    QString errorString() const { return m_error; }

private:
    std::optional<std::set<int>> appliedVersions();

    const Database &m_database;
    QString m_directory;
    QString m_error;
};

} // namespace marquee::store
