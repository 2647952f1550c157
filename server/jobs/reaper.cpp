// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jobs/reaper.h"
#include "logging.h"

#include "store/database.h"
#include "store/holdrepository.h"
#include "store/joblease.h"
#include "store/leaserepository.h"

#include <QLoggingCategory>


namespace marquee::jobs {

Reaper::Reaper(store::HoldRepository &holds, const store::Database &database, int intervalMs, store::LeaseRepository *leases)
    : m_holds(holds)
    , m_leases(leases)
    , m_database(database)
    , m_intervalMs(intervalMs)
{
    setObjectName(QStringLiteral("reaper"));
}

Reaper::~Reaper()
{
    stopAndWait();
}

void Reaper::stopAndWait()
{
    m_stop = true;
    wait();
}

void Reaper::run()
{
    constexpr int batch = 1000;
    // One instance of a fleet sweeps; the others would only repeat its work (and its hold.expired events).
    store::JobLease lease(m_database, store::FleetJob::HoldReaper);
    while (!m_stop) {
        int freed = 0;
        // Drain in batches so that one sweep never holds many row locks for long.
        if (lease.holdOrTake()) {
            do {
                freed = m_holds.reapExpired(batch);
                if (freed > 0) {
                    m_freed += freed;
                    qCDebug(lcJobs) << "reaper freed" << freed << "seats";
                }
            } while (freed >= batch && !m_stop); // a full batch of holds frees at least as many seats
            if (m_leases) {
                int swept = 0;
                do {
                    swept = m_leases->sweep(batch);
                    if (swept > 0)
                        qCInfo(lcJobs) << "reaper swept" << swept << "expired leases";
                } while (swept >= batch && !m_stop);
            }
        }
        for (int slept = 0; slept < m_intervalMs && !m_stop; slept += 10)
            QThread::msleep(10);
    }
    lease.release();
    m_database.closeThreadConnection();
}

} // namespace marquee::jobs
