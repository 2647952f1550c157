// SPDX-License-Identifier: AGPL-3.0-or-later
#include "joinbatcher.h"

#include <algorithm>

namespace marquee {

JoinBatcher::JoinBatcher(store::WaitingRoomRepository &repository)
    : m_repository(repository)
{
}

qint64 JoinBatcher::join(qint64 showId, const QString &owner)
{
    Pending pending{owner};
    QMutexLocker lock(&m_mutex);
    ShowQueue &queue = m_shows[showId];
    queue.waiting.push_back(&pending);
    while (!pending.done) {
        // Only a join still waiting may lead; one batch of a show at a time keeps entry ids in arrival order.
        if (pending.taken || queue.inFlight) {
            m_batchDone.wait(&m_mutex);
            continue;
        }
        const auto take = std::min<qsizetype>(queue.waiting.size(), kMaxBatch);
        std::vector<Pending *> batch(queue.waiting.begin(), queue.waiting.begin() + take);
        queue.waiting.erase(queue.waiting.begin(), queue.waiting.begin() + take);
        QStringList owners;
        owners.reserve(take);
        for (Pending *member : batch) {
            member->taken = true;
            owners.push_back(member->owner);
        }
        queue.inFlight = true;
        lock.unlock();
        const std::optional<std::vector<qint64>> entryIds = m_repository.join(showId, owners);
        lock.relock();
        for (size_t i = 0; i < batch.size(); ++i) {
            batch[i]->entryId = !entryIds ? -1 : entryIds->empty() ? 0 : (*entryIds)[i];
            batch[i]->done = true;
        }
        queue.inFlight = false;
        ++m_batches;
        m_batchedJoins += batch.size();
        // Wakes the members of this batch and whoever waits to lead the next one.
        m_batchDone.wakeAll();
    }
    // Looked up again: once this join is done, another thread may have erased the queue it was in.
    if (const auto it = m_shows.find(showId); it != m_shows.end() && it->second.waiting.empty() && !it->second.inFlight)
        m_shows.erase(it);
    return pending.entryId;
}

quint64 JoinBatcher::batches() const
{
    QMutexLocker lock(&m_mutex);
    return m_batches;
}

quint64 JoinBatcher::batchedJoins() const
{
    QMutexLocker lock(&m_mutex);
    return m_batchedJoins;
}

} // namespace marquee
