// SPDX-License-Identifier: AGPL-3.0-or-later
#include "holds/holdbatcher.h"
#include "logging.h"

#include <QLoggingCategory>

#include <algorithm>
#include <chrono>
#include <future>


namespace marquee {

namespace {
qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

HoldBatcher::HoldBatcher(store::HoldRepository &holds, int maxInFlight, RefuseFromMemory refuseFromMemory, int maxBatch)
    : m_holds(holds)
    , m_maxInFlight(maxInFlight)
    , m_refuseFromMemory(std::move(refuseFromMemory))
    // Several batches of one show may run at once, but never two that want the same seat (the claims): a
    // request for a seat a running batch wants waits here for that batch's answer rather than in PostgreSQL
    // for its row lock, with its whole batch behind it.
    , m_queue(QStringLiteral("hold-batch"), std::max(0, maxInFlight), std::clamp(maxBatch, 1, kMaxBatch), false,
              [this](qint64 showId, std::vector<Pending> &batch) { decide(showId, batch); },
              [&holds] { holds.database().closeThreadConnection(); },
              [](const Pending &pending) { return pending.request.seatIds; })
{
}

void HoldBatcher::submit(qint64 showId, store::HoldRepository::HoldRequest request, int ttlSeconds, Done done)
{
    const qint64 submittedNs = steadyNs();
    if (m_maxInFlight <= 0) {
        store::HoldDecision outcome
            = m_holds.placeHold(request.owner, request.idempotencyKey, request.requestHash, showId, request.seatIds, ttlSeconds, request.seatLimit);
        done(std::move(outcome), Timing{0, steadyNs() - submittedNs, 1, false});
        return;
    }
    m_queue.push(showId, Pending{std::move(request), ttlSeconds, std::move(done), submittedNs});
}

store::HoldDecision HoldBatcher::place(qint64 showId, const store::HoldRepository::HoldRequest &request, int ttlSeconds, Timing *timing)
{
    std::promise<std::pair<store::HoldDecision, Timing>> answer;
    auto future = answer.get_future();
    submit(showId, request, ttlSeconds,
           [&answer](store::HoldDecision outcome, const Timing &spent) { answer.set_value({std::move(outcome), spent}); });
    auto [outcome, spent] = future.get();
    if (timing)
        *timing = spent;
    return outcome;
}

void HoldBatcher::decide(qint64 showId, std::vector<Pending> &batch)
{
    const qint64 takenNs = steadyNs();
    // Refused from memory: seats that an earlier batch took while these requests waited. Answered now, before
    // the round trip of the others.
    std::vector<Pending *> toDatabase;
    toDatabase.reserve(batch.size());
    for (Pending &member : batch) {
        if (m_refuseFromMemory) {
            if (std::optional<store::HoldDecision> refusal = m_refuseFromMemory(showId, member.request)) {
                m_refusedWhileQueued.fetch_add(1, std::memory_order_relaxed);
                member.done(std::move(*refusal), Timing{takenNs - member.submittedNs, 0, 0, true});
                continue;
            }
        }
        toDatabase.push_back(&member);
    }
    if (toDatabase.empty())
        return;

    const qint64 startedNs = steadyNs();
    std::vector<store::HoldDecision> outcomes;
    const int ttlSeconds = toDatabase.front()->ttlSeconds;
    const bool oneTtl = std::all_of(toDatabase.begin(), toDatabase.end(), [&](const Pending *member) { return member->ttlSeconds == ttlSeconds; });
    if (toDatabase.size() > 1 && oneTtl) {
        std::vector<store::HoldRepository::HoldRequest> requests;
        requests.reserve(toDatabase.size());
        for (const Pending *member : toDatabase)
            requests.push_back(member->request);
        outcomes = m_holds.placeHolds(showId, requests, ttlSeconds);
        if (outcomes.size() != toDatabase.size()) {
            qCWarning(lcStore) << "a batch of" << toDatabase.size() << "holds for show" << showId << "failed; deciding each alone";
            outcomes.clear();
        }
    }
    if (outcomes.empty()) {
        for (const Pending *member : toDatabase)
            outcomes.push_back(m_holds.placeHold(member->request.owner, member->request.idempotencyKey, member->request.requestHash, showId,
                                                 member->request.seatIds, member->ttlSeconds, member->request.seatLimit));
    }
    const qint64 databaseNs = steadyNs() - startedNs;
    for (size_t i = 0; i < toDatabase.size(); ++i)
        toDatabase[i]->done(std::move(outcomes[i]), Timing{takenNs - toDatabase[i]->submittedNs, databaseNs, int(toDatabase.size()), false});
}

quint64 HoldBatcher::batches() const
{
    return m_queue.batches();
}

quint64 HoldBatcher::batchedRequests() const
{
    return m_queue.batchedItems();
}

quint64 HoldBatcher::passedOver() const
{
    return m_queue.passedOver();
}

} // namespace marquee
