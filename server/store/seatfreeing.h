// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <atomic>

namespace marquee::store {

/**
 * @brief Counts the writes of this process that may free seats (releases, order ends, cancellations).
 *
 * The in-memory seat snapshot may refuse a hold without asking PostgreSQL only if no seat was freed here since
 * its query started: a free that is running (inFlight() > 0) or completed after the query (completed() moved)
 * makes every snapshot of this process unusable for refusals until the next one. Holds never free a seat, so
 * they do not count.
 */
class SeatFreeing
{
public:
    /** @brief Marks one freeing write for its lifetime: construct before its transaction, destroy after commit. */
    class Scope
    {
    public:
        explicit Scope(SeatFreeing &freeing)
            : m_freeing(freeing)
        {
            m_freeing.m_inFlight.fetch_add(1);
        }
        ~Scope()
        {
            // completed first: a reader that sees inFlight drop also sees the new count.
            m_freeing.m_completed.fetch_add(1);
            m_freeing.m_inFlight.fetch_sub(1);
        }
        Scope(const Scope &) = delete;
        Scope &operator=(const Scope &) = delete;

    private:
        SeatFreeing &m_freeing;
    };

    int inFlight() const { return m_inFlight.load(); }
    quint64 completed() const { return m_completed.load(); }
    /** @brief True when nothing was freed since completed() read @p completedBefore and nothing is being freed. */
    bool quietSince(quint64 completedBefore) const { return m_inFlight.load() == 0 && m_completed.load() == completedBefore; }

private:
    std::atomic<int> m_inFlight{0};
    std::atomic<quint64> m_completed{0};
};

} // namespace marquee::store
