// SPDX-License-Identifier: AGPL-3.0-or-later
#include "testcluster.h"

#include "store/database.h"
#include "store/embeddedpostgres.h"

#include <QDir>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unistd.h>

namespace marquee::test {

namespace {
std::unique_ptr<QTemporaryDir> g_dir;
std::unique_ptr<store::EmbeddedPostgres> g_cluster;
std::atomic<int> g_counter{0};
} // namespace

TestCluster::TestCluster()
{
    // Under CTest a fixture runs one shared cluster for all test processes (see tests/CMakeLists.txt).
    if (qEnvironmentVariableIsSet("MARQUEE_TEST_PGDIR"))
        return;
    // A short path under /tmp: unix socket paths are limited to 107 bytes.
    g_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/mqtest-XXXXXX"));
    g_cluster = std::make_unique<store::EmbeddedPostgres>(g_dir->path());
    if (!g_cluster->start()) {
        std::fprintf(stderr, "cannot start the test PostgreSQL cluster: %s\n", qPrintable(g_cluster->errorString()));
        std::abort();
    }
    std::atexit(&TestCluster::shutdown);
}

TestCluster &TestCluster::instance()
{
    static TestCluster cluster;
    return cluster;
}

void TestCluster::shutdown()
{
    if (g_cluster)
        g_cluster->stop();
    g_cluster.reset();
    g_dir.reset();
}

QString TestCluster::socketDirectory() const
{
    return g_cluster ? g_cluster->socketDirectory() : store::EmbeddedPostgres(qEnvironmentVariable("MARQUEE_TEST_PGDIR")).socketDirectory();
}

store::DatabaseConfig TestCluster::createDatabase(const QString &prefix)
{
    store::DatabaseConfig config;
    if (g_cluster)
        config = g_cluster->config();
    else // the fixture's cluster: its socket and its owner's password file are in its directory
        config = store::EmbeddedPostgres(qEnvironmentVariable("MARQUEE_TEST_PGDIR")).config();
    // Unique across the concurrent test processes that share one cluster, and across the processes of a whole
    // run: databases are not dropped, and a long run reuses process ids (the random part keeps names apart then).
    const QString name = QStringLiteral("%1_%2_%3_%4")
                             .arg(prefix.toLower())
                             .arg(::getpid())
                             .arg(g_counter++)
                             .arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
    {
        store::DatabaseConfig admin = config;
        admin.database = QStringLiteral("postgres");
        store::Database database(admin);
        QSqlQuery query(database.connection());
        if (!query.exec(QStringLiteral("CREATE DATABASE \"%1\"").arg(name))) {
            std::fprintf(stderr, "cannot create test database: %s\n", qPrintable(query.lastError().text()));
            std::abort();
        }
        database.closeThreadConnection();
    }
    config.database = name;
    return config;
}

} // namespace marquee::test
