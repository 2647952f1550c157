// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "batching/keyedbatchqueue.h"
#include "store/holdrepository.h"

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace marquee {

/**
 * @brief Admission and group commit for holds: hold requests that PostgreSQL must decide
 * wait in a per-show queue in this process, and a few batch threads (@c maxInFlight, about the number of cores)
 * take the oldest waiting requests of a show and decide them together, in one transaction and one round trip
 * (HoldRepository::placeHolds, mq_place_holds).
 *
 * Why a queue here and not in PostgreSQL: only @c maxInFlight batches (backends) compete for the seat rows, the
 * CPU and the WAL at a time, whatever the number of clients, and the HTTP worker threads do not wait at all
 * (submit() returns at once; the answer comes back through its callback), so a worker never leaves its other
 * connections unread while one of its requests is decided.
 *
 * While a request waits, the seats it wants may be taken by an earlier batch. Right before its batch goes to
 * PostgreSQL, each request is offered to @c refuseFromMemory (HoldFastPath::refuseQueued): a request whose seats
 * the in-process snapshot proves taken is answered 409 there and never reaches the database. Only a refusal is
 * ever decided from memory; every yes is PostgreSQL's conditional UPDATE.
 *
 * The queue, the threads and the taking of batches are KeyedBatchQueue's (shared with JoinBatcher). No timer: an
 * idle batch thread takes a request as soon as it arrives. Batches of a show that run at once never share a
 * seat (KeyedBatchQueue's claims), so they never wait for each other's row locks; row locks are still taken in
 * canonical order, so a batch and any other writer (a sale, the reaper) queue but never deadlock. Each request stays its own
 * all-or-nothing unit with exactly the answer it would get alone; if a batch fails as a whole, each of its
 * requests is decided alone, so one request can never cost the others their answer. With @c maxInFlight 0
 * there are no batch threads: each request is decided at once, alone, on the caller's thread and connection.
 */
class HoldBatcher
{
public:
    /** @brief A refusal decided from memory for a request that waited (see HoldFastPath::refuseQueued). */
    using RefuseFromMemory = std::function<std::optional<store::HoldDecision>(qint64 showId, const store::HoldRepository::HoldRequest &request)>;

    /**
     * @param maxInFlight batch threads, i.e. batches (of any shows) decided at the same time at most; 0 switches
     * batching and the queue off
     */
    HoldBatcher(store::HoldRepository &holds, int maxInFlight, RefuseFromMemory refuseFromMemory = {}, int maxBatch = kMaxBatch);
    /** @brief Decides what is still queued, then stops the batch threads (KeyedBatchQueue's destructor). */
    ~HoldBatcher() = default;
    HoldBatcher(const HoldBatcher &) = delete;
    HoldBatcher &operator=(const HoldBatcher &) = delete;

    /** @brief Requests decided together at most (the default and the upper bound of @c maxBatch); more wait for the next batch. */
    static constexpr int kMaxBatch = 64;

    /** @brief Where one request's time went (for the Server-Timing header of the hold route). */
    struct Timing {
        qint64 queueNs = 0; ///< from submit() until a batch took the request
        qint64 databaseNs = 0; ///< the batch's transaction (all of it, whoever else was in it); 0 when refused from memory
        int batchSize = 0; ///< requests of its batch that went to PostgreSQL
        bool fromMemory = false; ///< refused from the snapshot after waiting, without the database
    };
    /** @brief Called once per request, on a batch thread (or the caller's, without batching). */
    using Done = std::function<void(store::HoldDecision outcome, const Timing &timing)>;

    /** @brief Whether submit() answers on another thread (false: it decides before it returns). */
    bool asynchronous() const { return m_maxInFlight > 0; }
    /** @brief Queue one hold request; @p done gets PostgreSQL's answer (or a refusal from memory) once committed. */
    void submit(qint64 showId, store::HoldRepository::HoldRequest request, int ttlSeconds, Done done);
    /** @brief As submit(), but waits for the answer. */
    store::HoldDecision place(qint64 showId, const store::HoldRepository::HoldRequest &request, int ttlSeconds, Timing *timing = nullptr);

    /** @brief Batches run and requests they took so far, and those refused from memory after waiting (benchmarks, tests). */
    quint64 batches() const;
    quint64 batchedRequests() const;
    quint64 refusedWhileQueued() const { return m_refusedWhileQueued.load(); }
    /** @brief Times a request was passed over by a batch because a running batch wanted one of its seats. */
    quint64 passedOver() const;

private:
    struct Pending {
        store::HoldRepository::HoldRequest request;
        int ttlSeconds = 0;
        Done done;
        qint64 submittedNs = 0;
    };
    void decide(qint64 showId, std::vector<Pending> &batch);

    store::HoldRepository &m_holds;
    const int m_maxInFlight;
    const RefuseFromMemory m_refuseFromMemory;
    std::atomic<quint64> m_refusedWhileQueued{0};
    KeyedBatchQueue<Pending> m_queue; ///< last: its threads call decide(), which uses everything above
};

} // namespace marquee
