// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/holdrepository.h"

#include <QMutex>
#include <QWaitCondition>
#include <unordered_map>
#include <vector>

namespace marquee {

/**
 * @brief Group commit for holds (issue 6 §2): concurrent hold requests for the same show are decided together,
 * in one transaction and one round trip (HoldRepository::placeHolds, mq_place_holds), instead of each worker
 * thread's own transaction queueing for the same seat rows, CPU and WAL.
 *
 * No timer: a request that finds fewer than @c maxInFlight batches of its show in flight runs one at once (with
 * whatever else is waiting); requests that arrive while that many are in flight wait and then go together in the
 * next one. More than one batch in flight keeps both cores busy (a batch is decided by one backend, serially);
 * their row locks are taken in canonical order, so concurrent batches queue on shared seats but never deadlock.
 * The thread that runs a batch (the leader) is one of the callers, on its own database connection, so nothing
 * here owns a thread or a connection. Each request stays its own all-or-nothing unit with exactly the answer it
 * would get alone; PostgreSQL decides every one. If a batch fails as a whole, each of its requests is decided
 * alone, so that one request can never cost the others their answer.
 */
class HoldBatcher
{
public:
    /** @param maxInFlight batches of one show decided at the same time at most; 0 switches batching off */
    HoldBatcher(store::HoldRepository &holds, int maxInFlight);

    /** @brief Requests decided together at most; more wait for the next batch. */
    static constexpr int kMaxBatch = 64;

    /** @brief Decide one hold request (blocks until PostgreSQL answered it); see HoldRepository::placeHold. */
    store::HoldOutcome place(qint64 showId, const store::HoldRepository::HoldRequest &request, int ttlSeconds);

    /** @brief Batches run and requests they decided so far (for benchmarks and tests). */
    quint64 batches() const;
    quint64 batchedRequests() const;

private:
    struct Pending {
        const store::HoldRepository::HoldRequest *request = nullptr;
        int ttlSeconds = 0;
        store::HoldOutcome outcome;
        bool taken = false; ///< in a batch (in flight or done)
        bool done = false;
    };
    struct ShowQueue {
        std::vector<Pending *> waiting;
        int inFlight = 0;
    };
    void decide(qint64 showId, const std::vector<Pending *> &batch);

    store::HoldRepository &m_holds;
    const int m_maxInFlight;
    mutable QMutex m_mutex;
    QWaitCondition m_batchDone;
    std::unordered_map<qint64, ShowQueue> m_shows; // node-based: a ShowQueue& stays valid while others are added
    quint64 m_batches = 0;
    quint64 m_batchedRequests = 0;
};

} // namespace marquee
