// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"
#include "holds/holdbatcher.h"
#include "holds/holdfastpath.h"
#include "holds/holdrequest.h"
#include "store/authrepository.h"
#include "store/holdrepository.h"

#include <QByteArray>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

namespace marquee {

class SeatMapService;
class WaitingRoomService;

/** @brief What became of one hold request. */
struct HoldOutcome {
    /** @brief The waiting room refused the request before anything was decided (its own errors). */
    std::optional<Refusal> admissionRefusal;
    /**
     * @brief Otherwise the decision: PostgreSQL's, or a refusal or replay from memory (HoldDecision::inProcess).
     * Not ok: the database failed or the transaction holding the decision rolled back; nothing was held.
     */
    store::HoldDecision decision;
    /** @brief Where the time went (the hold route's Server-Timing). */
    HoldBatcher::Timing timing;
    /** @brief Answered without a database round trip for the hold (refused or replayed from memory, or by the room). */
    bool early = false;
};

/**
 * @brief The hold use case: a typed request in, a typed outcome out. Owns everything between the route and the
 * repository: the waiting room's admission, refusals and replays from memory (HoldFastPath), group commit
 * (HoldBatcher), idempotent replay and telling the seat maps what was held. Routes only turn HTTP into a
 * HoldRequest and a HoldOutcome into a response (server/holds/holdanswer.h makes the wire of a decision).
 */
class HoldService
{
public:
    struct Settings {
        int ttlSeconds = 480;
        bool fastRefusals = true;
        int fastRefusalMaxAgeMs = 0;
        int batchThreads = 0;
        int batchSize = HoldBatcher::kMaxBatch;
        /** @brief Live held seats one caller may have on one show, by kind of caller (0: no bound); decided by
         *  PostgreSQL with each hold (mq_place_holds), for single holds and sync batches alike. */
        int maxHeldSeatsKiosk = 0;
        int maxHeldSeatsTill = 0;
        int maxHeldSeatsStaff = 0;
    };
    HoldService(const Settings &settings, store::HoldRepository &holds, SeatMapService &seatMaps, WaitingRoomService &waitingRoom);
    ~HoldService();
    HoldService(const HoldService &) = delete;
    HoldService &operator=(const HoldService &) = delete;

    /** @brief The bound on live held seats per show for @p caller (Settings; 0: none). */
    int seatLimit(const store::Principal &caller) const;

    /** @brief A request that passed admission and memory and waits for PostgreSQL (copyable handle). */
    class Pending
    {
    public:
        struct State;
        explicit Pending(std::shared_ptr<State> state)
            : m_state(std::move(state))
        {
        }

    private:
        friend class HoldService;
        std::shared_ptr<State> m_state;
    };
    /**
     * @brief Admission, replay and refusal from memory: the outcome when no round trip to PostgreSQL is needed,
     * else the request as Pending, to submit().
     */
    std::variant<HoldOutcome, Pending> begin(const store::Principal &caller, HoldRequest request);
    using Done = std::function<void(HoldOutcome outcome)>;
    /**
     * @brief Decide @p pending in a batch of its show (HoldBatcher): @p done gets the outcome once committed, on
     * a batch thread (on this one without batching).
     */
    void submit(Pending pending, Done done);
    /**
     * @brief Every request of a sync batch, in order: those that reach PostgreSQL share one transaction on this
     * thread's connection, each behind its own savepoint (one commit for the run).
     */
    std::vector<HoldOutcome> placeTogether(const store::Principal &caller, std::vector<HoldRequest> requests);

    HoldFastPath &fastPath() { return m_fastPath; }
    HoldBatcher &batcher() { return m_batcher; }

private:
    HoldOutcome finish(Pending::State &state, store::HoldDecision decision, bool committed, const HoldBatcher::Timing &timing);

    const Settings m_settings;
    store::HoldRepository &m_holds;
    SeatMapService &m_seatMaps;
    WaitingRoomService &m_waitingRoom;
    HoldFastPath m_fastPath;
    /** @brief Last: destroyed first, still deciding what is queued while everything its answers touch exists. */
    HoldBatcher m_batcher;
};

} // namespace marquee
