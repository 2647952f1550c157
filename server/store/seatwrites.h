// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/seatstatus.h"

#include <QStringList>
#include <functional>
#include <mutex>

namespace marquee::store {

/**
 * @brief Every seat-status write this process has committed (holds granted, holds released or lapsed, sales,
 * cancellations, orders that end and give their seats back), told to whoever keeps live seat statuses
 * (SeatMapService), so that WebSocket subscribers get them at once instead of from the next read of the whole
 * show. The one path by which a seat write of this process reaches the seat maps: repositories and HoldService call
 * committed() after the commit; without a sink nothing happens. Writes of anyone else arrive from PostgreSQL
 * (store::SeatNotification, SeatMapService::applyNotification) and take the same way into the feed. Thread-safe.
 */
class SeatWrites
{
public:
    /** @brief Told that @p seatIds of @p showId now have status @p status. */
    using Sink = std::function<void(qint64 showId, const QStringList &seatIds, SeatStatus status)>;

    void setSink(Sink sink)
    {
        std::lock_guard lock(m_mutex);
        m_sink = std::move(sink);
    }
    void committed(qint64 showId, const QStringList &seatIds, SeatStatus status) const
    {
        if (seatIds.isEmpty())
            return;
        std::lock_guard lock(m_mutex);
        if (m_sink)
            m_sink(showId, seatIds, status);
    }

private:
    mutable std::mutex m_mutex;
    Sink m_sink;
};

} // namespace marquee::store
