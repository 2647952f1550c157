// SPDX-License-Identifier: AGPL-3.0-or-later
#include "holds/holdservice.h"

#include "seating/seatmapservice.h"
#include "waitingroom/waitingroomservice.h"

#include <chrono>

namespace marquee {

namespace {
qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

struct HoldService::Pending::State {
    store::Principal caller; ///< a copy: a batched request outlives the HTTP request that made it
    HoldRequest request;
    AdmissionPass admission;
    /** @brief Its Idempotency-Key was new to this process (HoldFastPath::enter): a queued refusal may answer it. */
    bool keyFresh = false;
    bool finished = false;
};

HoldService::HoldService(const Settings &settings, store::HoldRepository &holds, SeatMapService &seatMaps, WaitingRoomService &waitingRoom)
    : m_settings(settings)
    , m_holds(holds)
    , m_seatMaps(seatMaps)
    , m_waitingRoom(waitingRoom)
    , m_fastPath(seatMaps, holds, settings.fastRefusals, settings.fastRefusalMaxAgeMs)
    , m_batcher(holds, settings.batchThreads,
                [this](qint64 showId, const store::HoldRepository::HoldRequest &request) {
                    // Seats an earlier batch took while this request waited: refused from memory, never granted.
                    return m_fastPath.refuseQueued(showId, request.owner, request.idempotencyKey, request.requestHash, request.seatIds,
                                                   request.keyFresh);
                },
                settings.batchSize)
{
}

HoldService::~HoldService() = default;

int HoldService::seatLimit(const store::Principal &caller) const
{
    if (caller.kind == store::Principal::Kind::Session)
        return m_settings.maxHeldSeatsStaff;
    if (caller.kind == store::Principal::Kind::Device)
        return caller.role == Role::Till ? m_settings.maxHeldSeatsTill : m_settings.maxHeldSeatsKiosk;
    return 0;
}

std::variant<HoldOutcome, HoldService::Pending> HoldService::begin(const store::Principal &caller, HoldRequest request)
{
    const qint64 startedNs = steadyNs();
    const QString owner = caller.owner();
    const QString &key = request.idempotencyKey;
    HoldOutcome early;
    early.early = true;
    AdmissionPass admission = m_waitingRoom.admitHold(request.showId, caller, request.admissionToken);
    // A hot show sells only to callers the waiting room admitted (one live hold per admission).
    if (admission.refusal()) {
        // A retry of the very request that placed the admission's live hold gets that request's answer, as
        // every retried write does (rule 3), not a refusal for the hold it made itself.
        if (admission.refusal()->code == ErrorCode::AdmissionHoldActive && !key.isEmpty()) {
            bool ok = false;
            std::optional<store::HoldDecision> stored = m_holds.storedDecision(owner, key, request.fingerprint, &ok);
            if (!ok || stored) {
                early.decision = stored.value_or(store::HoldDecision{});
                return early;
            }
        }
        early.admissionRefusal = *admission.refusal();
        return early;
    }
    // Obvious losers are refused (and their keys replayed) from memory; everything else, and every yes, is
    // PostgreSQL's decision.
    HoldFastPath::Entry entry = m_fastPath.enter(request.showId, owner, key, request.fingerprint, request.seatIds);
    if (entry.answer) {
        admission.finish({});
        early.decision = std::move(*entry.answer);
        early.timing.fromMemory = true;
        early.timing.queueNs = steadyNs() - startedNs;
        return early;
    }
    auto state = std::make_shared<Pending::State>(Pending::State{caller, std::move(request), std::move(admission), entry.keyFresh, false});
    return Pending(std::move(state));
}

void HoldService::submit(Pending pending, Done done)
{
    Pending::State &state = *pending.m_state;
    m_batcher.submit(state.request.showId,
                     {state.caller.owner(), state.request.idempotencyKey, state.request.fingerprint, state.request.seatIds, state.keyFresh,
                      seatLimit(state.caller)},
                     m_settings.ttlSeconds,
                     [this, pending, done = std::move(done)](store::HoldDecision decision, const HoldBatcher::Timing &timing) {
                         done(finish(*pending.m_state, std::move(decision), true, timing));
                     });
}

std::vector<HoldOutcome> HoldService::placeTogether(const store::Principal &caller, std::vector<HoldRequest> requests)
{
    std::vector<std::variant<HoldOutcome, Pending>> started;
    started.reserve(requests.size());
    std::vector<size_t> toPlace; // the requests that reach the database, in batch order
    for (HoldRequest &request : requests) {
        started.push_back(begin(caller, std::move(request)));
        if (std::holds_alternative<Pending>(started.back()))
            toPlace.push_back(started.size() - 1);
    }
    std::vector<store::HoldDecision> decisions(started.size());
    const qint64 startedNs = steadyNs();
    // Holds next to each other in a batch share one transaction, so they share one commit (one WAL flush) instead
    // of paying one each, which is what limits a replay. Each runs behind its own savepoint: mq_place_hold decides
    // refusals without failing, and a statement that does fail (a deadlock with another kiosk's batch) is rolled
    // back alone. Only a broken transaction fails the others, and then none of them was applied: every one is a
    // store failure, sent again under the same key.
    const bool committed = m_holds.database().commitEachBehindSavepoint(toPlace.size(), [&](size_t step) {
        const size_t i = toPlace[step];
        const Pending::State &state = *std::get<Pending>(started[i]).m_state;
        decisions[i] = m_holds.placeHold(state.caller.owner(), state.request.idempotencyKey, state.request.fingerprint, state.request.showId,
                                         state.request.seatIds, m_settings.ttlSeconds, seatLimit(state.caller));
        return decisions[i].ok;
    });
    const HoldBatcher::Timing timing{0, steadyNs() - startedNs, int(toPlace.size()), false};
    std::vector<HoldOutcome> outcomes;
    outcomes.reserve(started.size());
    for (size_t i = 0; i < started.size(); ++i) {
        if (auto *outcome = std::get_if<HoldOutcome>(&started[i]))
            outcomes.push_back(std::move(*outcome));
        else
            outcomes.push_back(finish(*std::get<Pending>(started[i]).m_state, std::move(decisions[i]), committed, timing));
    }
    return outcomes;
}

HoldOutcome HoldService::finish(Pending::State &state, store::HoldDecision decision, bool committed, const HoldBatcher::Timing &timing)
{
    m_fastPath.keyDone(state.caller.owner(), state.request.idempotencyKey);
    const qint64 showId = state.request.showId;
    HoldOutcome outcome;
    outcome.timing = timing;
    const bool granted = decision.ok && decision.verdict == store::HoldVerdict::Granted;
    if (!decision.ok || !committed) {
        state.admission.finish({});
        // The seat map may already show seats of a hold its transaction then lost: read the show again.
        if (granted)
            m_seatMaps.markChanged(showId);
        return outcome; // decision not ok: nothing was held
    }
    state.admission.finish(decision.holdId);
    if (granted && !decision.replayed)
        m_holds.database().seatWrites().committed(showId, decision.seatIds, SeatStatus::Held);
    else if (decision.replayed && !decision.holdId.isEmpty())
        m_seatMaps.markChanged(showId); // a stored grant replayed: its seats may have moved since
    outcome.decision = std::move(decision);
    return outcome;
}

} // namespace marquee
