// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QThread>
#include <atomic>

namespace marquee::store {
class HoldRepository;
class Database;
}

namespace marquee::jobs {

/**
 * @brief Background sweep of expired holds. Correctness never depends on it (an expired hold's seats are
 * claimable at once); it keeps the table tidy, emits `hold.expired` events and drops old idempotency keys.
 */
class Reaper : public QThread
{
public:
    Reaper(store::HoldRepository &holds, const store::Database &database, int intervalMs);
    ~Reaper() override;
    void stopAndWait();
    qint64 seatsFreed() const { return m_freed.load(); }

protected:
    void run() override;

private:
    store::HoldRepository &m_holds;
    const store::Database &m_database;
    const int m_intervalMs;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_freed{0};
};

} // namespace marquee::jobs
