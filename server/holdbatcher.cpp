// SPDX-License-Identifier: AGPL-3.0-or-later
#include "holdbatcher.h"

#include <QLoggingCategory>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace marquee {

HoldBatcher::HoldBatcher(store::HoldRepository &holds, int maxInFlight)
    : m_holds(holds)
    , m_maxInFlight(maxInFlight)
{
}

store::HoldOutcome HoldBatcher::place(qint64 showId, const store::HoldRepository::HoldRequest &request, int ttlSeconds)
{
    if (m_maxInFlight <= 0)
        return m_holds.placeHold(request.owner, request.idempotencyKey, request.requestHash, showId, request.seatIds, ttlSeconds);

    Pending pending{&request, ttlSeconds, {}, false, false};
    QMutexLocker lock(&m_mutex);
    ShowQueue &queue = m_shows[showId];
    queue.waiting.push_back(&pending);
    while (!pending.done) {
        // Only a request still waiting may lead: one already in someone's batch just waits for its answer.
        if (pending.taken || queue.inFlight >= m_maxInFlight) {
            m_batchDone.wait(&m_mutex);
            continue;
        }
        // Lead: take the oldest waiting requests (this one among them unless more than kMaxBatch came first).
        const auto take = std::min<qsizetype>(queue.waiting.size(), kMaxBatch);
        std::vector<Pending *> batch(queue.waiting.begin(), queue.waiting.begin() + take);
        queue.waiting.erase(queue.waiting.begin(), queue.waiting.begin() + take);
        for (Pending *member : batch)
            member->taken = true;
        ++queue.inFlight;
        lock.unlock();
        decide(showId, batch);
        lock.relock();
        for (Pending *member : batch)
            member->done = true;
        --queue.inFlight;
        ++m_batches;
        m_batchedRequests += batch.size();
        // Wakes the members of this batch and whoever waits to lead the next one.
        m_batchDone.wakeAll();
    }
    // Looked up again: once this request is done, another thread may have erased the queue it was in.
    if (const auto it = m_shows.find(showId); it != m_shows.end() && it->second.waiting.empty() && it->second.inFlight == 0)
        m_shows.erase(it);
    return pending.outcome;
}

void HoldBatcher::decide(qint64 showId, const std::vector<Pending *> &batch)
{
    const int ttlSeconds = batch.front()->ttlSeconds;
    const bool oneTtl = std::all_of(batch.begin(), batch.end(), [&](const Pending *member) { return member->ttlSeconds == ttlSeconds; });
    if (batch.size() > 1 && oneTtl) {
        std::vector<store::HoldRepository::HoldRequest> requests;
        requests.reserve(batch.size());
        for (const Pending *member : batch)
            requests.push_back(*member->request);
        std::vector<store::HoldOutcome> outcomes = m_holds.placeHolds(showId, requests, ttlSeconds);
        if (outcomes.size() == batch.size()) {
            for (size_t i = 0; i < batch.size(); ++i)
                batch[i]->outcome = std::move(outcomes[i]);
            return;
        }
        qCWarning(lcStore) << "a batch of" << batch.size() << "holds for show" << showId << "failed; deciding each alone";
    }
    for (Pending *member : batch)
        member->outcome = m_holds.placeHold(member->request->owner, member->request->idempotencyKey, member->request->requestHash, showId,
                                            member->request->seatIds, member->ttlSeconds);
}

quint64 HoldBatcher::batches() const
{
    QMutexLocker lock(&m_mutex);
    return m_batches;
}

quint64 HoldBatcher::batchedRequests() const
{
    QMutexLocker lock(&m_mutex);
    return m_batchedRequests;
}

} // namespace marquee
