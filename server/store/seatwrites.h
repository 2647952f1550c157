// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QStringList>
#include <functional>
#include <mutex>

namespace marquee::store {

/**
 * @brief Seat-status writes this process has committed outside the hold route (sales, cancellations, orders that
 * end and give their seats back), told to whoever keeps live seat statuses (SeatMapService), so that WebSocket
 * subscribers get them at once instead of from the next read of the whole show. Repositories call committed()
 * after their commit; without a sink nothing happens. Thread-safe.
 */
class SeatWrites
{
public:
    /** @brief Told that @p seatIds of @p showId now have status @p code ('b' booked, 'a' available). */
    using Sink = std::function<void(qint64 showId, const QStringList &seatIds, char code)>;

    void setSink(Sink sink)
    {
        std::lock_guard lock(m_mutex);
        m_sink = std::move(sink);
    }
    void committed(qint64 showId, const QStringList &seatIds, char code) const
    {
        if (seatIds.isEmpty())
            return;
        std::lock_guard lock(m_mutex);
        if (m_sink)
            m_sink(showId, seatIds, code);
    }

private:
    mutable std::mutex m_mutex;
    Sink m_sink;
};

} // namespace marquee::store
