// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/waitingroomrepository.h"

#include <QMutex>
#include <QWaitCondition>
#include <unordered_map>
#include <vector>

namespace marquee {

/**
 * @brief Group commit for waiting-room joins (issue 6 §4, §6): joins of one show that arrive while an INSERT of
 * that show is in flight go together in the next one (WaitingRoomRepository::join, one statement and one WAL flush
 * for up to kMaxBatch joins) instead of one transaction each.
 *
 * Same shape as HoldBatcher: no timer and no thread of its own; the caller that finds no batch of its show in
 * flight runs one at once, on its own database connection, with whatever waits. A join is still answered only
 * after its row is committed, so an answered join survives a crash or restart exactly as before; a failed batch
 * fails each of its joins (none of them got an answer, none of them is in the queue).
 */
class JoinBatcher
{
public:
    explicit JoinBatcher(store::WaitingRoomRepository &repository);

    /** @brief Joins inserted together at most; more wait for the next batch. */
    static constexpr int kMaxBatch = 512;

    /** @brief Join @p owner to @p showId's queue (blocks until committed): the entry id, 0 when the room is
     *  closed, -1 on a database error. */
    qint64 join(qint64 showId, const QString &owner);

    /** @brief Batches run and joins they carried so far (for benchmarks and tests). */
    quint64 batches() const;
    quint64 batchedJoins() const;

private:
    struct Pending {
        QString owner;
        qint64 entryId = -1;
        bool taken = false;
        bool done = false;
    };
    struct ShowQueue {
        std::vector<Pending *> waiting;
        bool inFlight = false;
    };

    store::WaitingRoomRepository &m_repository;
    mutable QMutex m_mutex;
    QWaitCondition m_batchDone;
    std::unordered_map<qint64, ShowQueue> m_shows; // node-based: a ShowQueue& stays valid while others are added
    quint64 m_batches = 0;
    quint64 m_batchedJoins = 0;
};

} // namespace marquee
