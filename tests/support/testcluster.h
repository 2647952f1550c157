// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/databaseconfig.h"

#include <QString>

namespace marquee::test {

/**
 * @brief One throw-away PostgreSQL cluster per test process (the same EmbeddedPostgres code the server uses),
 * in a fresh temporary directory, removed when the process ends. Each test asks for its own database.
 */
class TestCluster
{
public:
    /** @brief The process's cluster, started on first use; aborts the test run when it cannot start. */
    static TestCluster &instance();
    /** @brief A new empty database (not migrated), unique to the caller. */
    store::DatabaseConfig createDatabase(const QString &prefix = QStringLiteral("t"));
    /** @brief Stop the cluster and delete its directory (registered with atexit by instance()). */
    static void shutdown();
    QString socketDirectory() const;

private:
    TestCluster();
};

} // namespace marquee::test
