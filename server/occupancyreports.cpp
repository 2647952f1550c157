// SPDX-License-Identifier: AGPL-3.0-or-later
#include "occupancyreports.h"

namespace marquee {

OccupancyReports::OccupancyReports(const store::Database &database, qsizetype maxKeptBytes)
    : m_database(database)
    , m_maxKeptBytes(maxKeptBytes)
{
}

quint64 OccupancyReports::computed() const
{
    QMutexLocker lock(&m_mutex);
    return m_computed;
}

OccupancyReports::Outcome OccupancyReports::report(qint64 showId, QByteArray *json)
{
    store::ReportRepository reports(m_database);
    const std::optional<store::OccupancyStamp> stamp = reports.occupancyStamp(showId);
    if (!stamp)
        return Outcome::Error;
    {
        QMutexLocker lock(&m_mutex);
        const auto it = m_kept.find(showId);
        if (it != m_kept.end() && it->stamp == *stamp) {
            it->lastUse = ++m_uses;
            *json = it->json;
            return Outcome::Ok;
        }
    }
    // Computed outside the lock: readers of other shows do not wait. Two readers that miss at once both compute;
    // whichever stores last wins, and a stale entry can only be stored with its own (older) stamp, which no later
    // stamp equals.
    const std::optional<store::OccupancyDocument> document = reports.occupancy(showId);
    if (!document)
        return Outcome::Error;
    QMutexLocker lock(&m_mutex);
    ++m_computed;
    if (document->json.isEmpty()) {
        m_keptBytes -= m_kept.value(showId).json.size();
        m_kept.remove(showId);
        return Outcome::NotFound;
    }
    *json = document->json;
    if (document->json.size() > m_maxKeptBytes)
        return Outcome::Ok;
    Kept &kept = m_kept[showId];
    m_keptBytes += document->json.size() - kept.json.size();
    kept = Kept{document->stamp, document->json, ++m_uses};
    // Over the bound: forget the least recently used other shows.
    while (m_keptBytes > m_maxKeptBytes && m_kept.size() > 1) {
        auto oldest = m_kept.end();
        for (auto it = m_kept.begin(); it != m_kept.end(); ++it)
            if (it.key() != showId && (oldest == m_kept.end() || it->lastUse < oldest->lastUse))
                oldest = it;
        m_keptBytes -= oldest->json.size();
        m_kept.erase(oldest);
    }
    return Outcome::Ok;
}

} // namespace marquee
