// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "batching/keyedbatchqueue.h"
#include "store/waitingroomrepository.h"

#include <QString>
#include <future>

namespace marquee {

/**
 * @brief Group commit for waiting-room joins: joins of one show that arrive while an INSERT of
 * that show is in flight go together in the next one (WaitingRoomRepository::join, one statement and one WAL flush
 * for up to kMaxBatch joins) instead of one transaction each.
 *
 * The queue and its threads are KeyedBatchQueue's (shared with HoldBatcher), with one batch per show at a time so
 * that entry ids follow arrival order. A join is still answered only after its row is committed, so an answered
 * join survives a crash or restart exactly as before; a failed batch fails each of its joins (none of them got an
 * answer, none of them is in the queue).
 */
class JoinBatcher
{
public:
    explicit JoinBatcher(store::WaitingRoomRepository &repository);

    /** @brief Joins inserted together at most; more wait for the next batch. */
    static constexpr int kMaxBatch = 512;
    /** @brief Threads inserting batches (of different shows) at the same time. */
    static constexpr int kThreads = 2;

    /** @brief Join @p owner to @p showId's queue (blocks until committed): the entry id, 0 when the room is
     *  closed, -1 on a database error. */
    qint64 join(qint64 showId, const QString &owner);

    /** @brief Batches run and joins they carried so far (for benchmarks and tests). */
    quint64 batches() const { return m_queue.batches(); }
    quint64 batchedJoins() const { return m_queue.batchedItems(); }

private:
    struct Pending {
        QString owner;
        std::promise<qint64> entryId;
    };
    void insert(qint64 showId, std::vector<Pending> &batch);

    store::WaitingRoomRepository &m_repository;
    KeyedBatchQueue<Pending> m_queue; ///< last: its threads call insert(), which uses the repository
};

} // namespace marquee
