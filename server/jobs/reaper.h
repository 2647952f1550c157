// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QThread>
#include <atomic>

namespace marquee::store {
class HoldRepository;
class LeaseRepository;
class Database;
}

namespace marquee::jobs {

/**
 * @brief Background sweep of expired holds. Correctness never depends on it (an expired hold's seats are
 * claimable at once); it keeps the table tidy, emits `hold.expired` events and drops old idempotency keys. It also
 * sweeps expired seat-block leases: never freeing a seat, only closing them or marking them unreported.
 */
class Reaper : public QThread
{
public:
    /** @brief @p leases: also sweep expired seat-block leases (closed, or marked unreported), in the same lease. */
    Reaper(store::HoldRepository &holds, const store::Database &database, int intervalMs, store::LeaseRepository *leases = nullptr);
    ~Reaper() override;
    void stopAndWait();
    qint64 seatsFreed() const { return m_freed.load(); }

protected:
    void run() override;

private:
    store::HoldRepository &m_holds;
    store::LeaseRepository *m_leases;
    const store::Database &m_database;
    const int m_intervalMs;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_freed{0};
};

} // namespace marquee::jobs
