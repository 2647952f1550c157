// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <optional>

namespace marquee::store {

/** @brief What backups and restores ask the database (runtime/backup.h runs pg_dump and pg_restore). */
class BackupRepository
{
public:
    explicit BackupRepository(const Database &database);

    /** @brief How many tables, views, sequences and functions the database holds outside the system schemas. */
    std::optional<qint64> userObjectCount();
    /** @brief The signing keys that still verify (the ones a restore proves open with the restored KEK). */
    std::optional<qint64> liveSigningKeyCount();
    /** @brief The PostgreSQL server's version text (SHOW server_version). */
    std::optional<QString> serverVersion();
    /**
     * @brief Create the database @p name on the server @p maintenance is connected to (its `postgres` database)
     * unless it exists; @p name is lower-case letters, digits and underscores only.
     */
    static bool ensureDatabase(const Database &maintenance, const QString &name, QString *error);
    /**
     * @brief After pg_restore (which restores without owners): give the audit log back to marquee_audit_owner, as
     * migration 025 did, when the restoring role is a superuser (else the server reports the log unprotected).
     */
    bool restoreAuditOwner(QString *error);

private:
    std::optional<QVariant> scalar(const QString &sql);
    const Database &m_database;
};

} // namespace marquee::store
