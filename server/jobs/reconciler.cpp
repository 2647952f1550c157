// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jobs/reconciler.h"
#include "logging.h"

#include "orders/orderservice.h"
#include "store/database.h"
#include "store/joblease.h"

#include <QLoggingCategory>


namespace marquee::jobs {

Reconciler::Reconciler(payments::OrderService &service, const store::Database &database, int intervalMs)
    : m_service(service)
    , m_database(database)
    , m_intervalMs(intervalMs)
{
    setObjectName(QStringLiteral("reconciler"));
}

Reconciler::~Reconciler()
{
    stopAndWait();
}

void Reconciler::stopAndWait()
{
    m_stop = true;
    wait();
}

void Reconciler::run()
{
    // One instance of a fleet reconciles: the others would ask the provider about the same orders again.
    store::JobLease lease(m_database, store::FleetJob::OrderReconciler);
    while (!m_stop) {
        if (lease.holdOrTake()) {
            const int moved = m_service.reconcileOnce();
            if (moved > 0) {
                m_moved += moved;
                qCInfo(lcJobs) << "reconciler moved" << moved << "orders";
            }
        }
        for (int slept = 0; slept < m_intervalMs && !m_stop; slept += 10)
            QThread::msleep(10);
    }
    lease.release();
    m_database.closeThreadConnection();
}

} // namespace marquee::jobs
