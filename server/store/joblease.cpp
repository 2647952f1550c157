// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/joblease.h"

#include "logging.h"
#include "store/database.h"

#include <QSqlQuery>

namespace marquee::store {

namespace {
// The first key of every Marquee advisory lock ("MQ"), so that other software sharing the database cannot collide
// with one by accident; the job is the second.
constexpr int kLockNamespace = 0x4D51;
} // namespace

QString toString(FleetJob job)
{
    switch (job) {
    case FleetJob::OutboxRelay:
        return QStringLiteral("outbox relay");
    case FleetJob::HoldReaper:
        return QStringLiteral("hold reaper");
    case FleetJob::OrderReconciler:
        return QStringLiteral("order reconciler");
    }
    return QStringLiteral("job %1").arg(int(job));
}

JobLease::JobLease(const Database &database, FleetJob job)
    : m_database(database)
    , m_job(job)
{
}

bool JobLease::holdOrTake()
{
    // One round trip: a session that already holds the lock is recognised by its backend pid (taking it again
    // would stack the lock); any other session tries to take it.
    QSqlQuery *query = m_database.prepared(QStringLiteral(
        "SELECT pg_backend_pid(), CASE WHEN pg_backend_pid() = ? THEN true ELSE pg_try_advisory_lock(?, ?) END"));
    const int before = m_heldBy;
    int now = 0;
    if (query) {
        query->addBindValue(m_heldBy);
        query->addBindValue(kLockNamespace);
        query->addBindValue(int(m_job));
        if (query->exec() && query->next()) {
            if (query->value(1).toBool())
                now = query->value(0).toInt();
        } else {
            m_database.resetAfterError(query->lastError());
        }
        query->finish();
    }
    m_heldBy = now;
    if (before == 0 && now != 0)
        qCInfo(lcJobs).noquote() << "this instance now runs the" << toString(m_job) << "(database session" << now << ")";
    else if (before != 0 && now == 0)
        qCWarning(lcJobs).noquote() << "this instance no longer runs the" << toString(m_job)
                                    << "(its database session ended; another instance may take it over)";
    return now != 0;
}

void JobLease::release()
{
    if (m_heldBy == 0)
        return;
    if (QSqlQuery *query = m_database.prepared(QStringLiteral("SELECT pg_advisory_unlock(?, ?) WHERE pg_backend_pid() = ?"))) {
        query->addBindValue(kLockNamespace);
        query->addBindValue(int(m_job));
        query->addBindValue(m_heldBy);
        query->exec();
        query->finish();
    }
    qCInfo(lcJobs).noquote() << "this instance let the" << toString(m_job) << "go";
    m_heldBy = 0;
}

} // namespace marquee::store
