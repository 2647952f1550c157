// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "database.h"

namespace marquee::store {

/**
 * @brief Applies the versioned SQL migrations compiled into the binary (`:/migrations/NNN_name.sql`).
 *
 * Each migration runs in its own transaction and is recorded in `schema_migrations`. A database whose schema
 * is newer than the binary is refused: an old binary must never write to a schema it does not understand.
 */
class Migrations
{
public:
    enum class Status { Current, Behind, Ahead, Error };

    explicit Migrations(const Database &database);

    /** @brief Highest migration version compiled into this binary. */
    static int latestVersion();
    /** @brief Version recorded in the database (0 for an empty database, -1 on error). */
    int currentVersion();
    Status status();
    /** @brief Apply every pending migration; false (with errorString()) on any error or a newer schema. */
    bool migrate();
    QString errorString() const { return m_error; }

private:
    const Database &m_database;
    QString m_error;
};

} // namespace marquee::store
