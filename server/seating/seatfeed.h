// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/seatstatus.h"
#include "store/catalogrepository.h"
#include "store/seatfreeing.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QMutex>
#include <QStringList>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace marquee {

/**
 * @brief The live seat statuses of each show this process follows: the source of the WebSocket delta stream
 * (`/api/v1/shows/{id}/live`, docs/api.md) and of hold refusals that need no database round trip.
 *
 * Every refresh of a show's statuses (one query, SeatMapService) is published here; the feed compares it with the
 * previous one and turns the difference into one delta message with the next version. Versions are per process
 * and per show, tagged with an epoch that changes when the process restarts, so a client can resume from the
 * version it last saw. Thread-safe.
 */
class SeatFeed
{
public:
    /** @brief Deltas kept per show for clients that resume; older versions get a fresh snapshot. */
    static constexpr int kKeptDeltas = 1024;

    explicit SeatFeed(const store::SeatFreeing &freeing);

    /** @brief Where a refresh's query began: taken just before the query runs. */
    struct QueryStart {
        quint64 sequence = 0;      ///< orders refreshes; an older one finishing last is dropped
        qint64 localMs = 0;        ///< this process's clock
        quint64 freesCompleted = 0; ///< SeatFreeing::completed() at that moment
    };
    QueryStart beginQuery();
    /**
     * @brief Publish the statuses of @p showId read by the query begun at @p start; @p seatIds are the show's seats
     * in canonical order (the order of SeatStatuses::codes). Listeners interested in the show get the delta.
     */
    void publish(qint64 showId, const QueryStart &start, const store::SeatStatuses &statuses, const QStringList &seatIds);
    /**
     * @brief This process has just committed a write that set @p seatIds of @p showId to @p status: send it to
     * subscribers now as one delta, without waiting for the next read of the whole show. A read that began before this call does not undo it (its answer for these seats may predate the
     * write); the next read after it confirms or corrects it. Ignored while the feed does not know the show yet.
     * @return true when some seat's status changed (a delta was sent, or is pending when batching)
     */
    bool applyLocalWrite(qint64 showId, const QStringList &seatIds, SeatStatus status);
    /**
     * @brief A committed write told by the database (channel `marquee_seats`: another instance, marquee-admin, plain
     * SQL — or this process itself, heard back) set @p seatIds of @p showId to @p status: applied as a local write,
     * except to a seat that this process wrote itself within the last @p localGuardMs. Notifications arrive in commit
     * order, but a local write reaches the feed before the notifications of commits that preceded it, so for such a
     * seat the notification may be older than what the feed has: it is left alone and counted in @p contested (when
     * @p countContested; the caller then re-reads the show). Ignored while the feed does not know the show.
     * @return true when some seat's status changed
     */
    bool applyNotifiedWrite(qint64 showId, const QStringList &seatIds, SeatStatus status, qint64 localGuardMs, bool countContested,
                            int *contested);
    /**
     * @brief Whether the feed's statuses of @p showId may be served to a new subscriber as they are: known, and read
     * after the last trustReadsFromNow() and while trusted (see distrust()).
     */
    bool isCurrent(qint64 showId) const;
    /**
     * @brief Notifications may have been missed (the listening connection was lost, or is not up yet): until the
     * next trustReadsFromNow(), isCurrent() is false for every show, so a new subscriber gets a fresh read.
     */
    void distrust();
    /** @brief Listening again: statuses read from now on are current (older ones are not; re-read them). */
    void trustReadsFromNow();
    /** @brief Asked to call flushPending(@p showId) in @p delayMs milliseconds; see setBatching(). */
    using BatchWake = std::function<void(qint64 showId, int delayMs)>;
    /**
     * @brief Batch changes into fewer deltas: at most one delta per show every @p windowMs, except that a change
     * arriving when the show's last delta is older than that goes out at once (a lone change waits for nothing;
     * a burst of holds becomes one frame per subscriber per window). Changes inside the window accumulate until
     * flushPending(), which @p wake is asked to schedule for the window's end; @p wake is called with the feed's
     * lock held when a show gets its first pending change, and must only schedule (not block, not call back into
     * the feed). Without @p wake (the default) every change is its own delta at once; switching it off sends what
     * is pending.
     */
    void setBatching(int windowMs, BatchWake wake);
    /** @brief Send the pending changes of @p showId as one delta now. @return true when a delta was sent. */
    bool flushPending(qint64 showId);
    /** @brief True when the feed has statuses of @p showId (a refresh has been published). */
    bool knows(qint64 showId) const;
    /** @brief Milliseconds since the query of the last published statuses began; -1 when none. */
    qint64 ageMs(qint64 showId) const;

    /**
     * @brief The seats of @p seatIds that are certainly not available now, from memory — or nothing when memory
     * cannot tell (then PostgreSQL must decide). Never refuses on stale data beyond what the snapshot proves:
     * it answers only when the snapshot is younger than @p maxAgeMs, no seat-freeing write of this process ran
     * since its query began, sales are open, every seat id is known, and (for held seats) no hold can have
     * lapsed since. Another instance's release may still be missed for up to @p maxAgeMs.
     */
    std::optional<QStringList> certainlyTaken(qint64 showId, const QStringList &seatIds, qint64 maxAgeMs) const;

    /** @brief How a subscription starts: the messages to send first, in order. */
    struct Start {
        enum class Kind { Snapshot, Resumed, Unknown, FutureVersion } kind = Kind::Unknown;
        std::vector<QByteArray> messages;
        qint64 version = 0; ///< the version the subscriber is at after these messages
    };
    /**
     * @brief Begin following @p showId for listener @p listener (registers interest under the same lock, so no
     * delta falls between the first messages and the stream). With @p sinceVersion ≥ 0 and @p epoch equal to the
     * current one, only the missed deltas are sent (a fresh snapshot when they are no longer kept). Pending
     * (batched) changes are sent as a delta first, so the first messages end exactly at a delta's version.
     */
    Start subscribe(int listener, qint64 showId, qint64 sinceVersion, const QByteArray &epoch);
    void unsubscribe(int listener, qint64 showId);

    /** @brief Called on the publishing thread, with the feed's lock held, with (show, version, message); must not
     *  block nor call back into the feed (queue it to its own thread). */
    using Listener = std::function<void(qint64 showId, qint64 version, const QByteArray &message)>;
    int addListener(Listener listener);
    void removeListener(int listener);
    /** @brief Shows with at least one subscriber, so the refresher keeps them fresh. */
    QList<qint64> followedShows() const;
    /** @brief Total subscribers, over every show. */
    int subscriberCount() const;

    QByteArray epoch() const { return m_epoch; }

private:
    struct Show {
        QByteArray codes;
        QStringList seatIds;
        QHash<QString, int> indexOf;
        std::vector<QByteArray> seatIdJson; ///< per seat: its id as a JSON string, quoted and escaped once
        std::vector<quint64> localWriteSequence; ///< per seat: the sequence of the last write applied (local or notified)
        std::vector<qint64> localWriteAtMs; ///< per seat: m_clock time of this process's last own write (applyLocalWrite)
        qint64 version = 0;
        std::deque<std::pair<qint64, QByteArray>> recent; ///< (version, delta message), ascending
        quint64 sequence = 0;
        qint64 fetchedAtMs = 0;
        quint64 freesCompleted = 0;
        qint64 heldStableUntilMs = 0; ///< local time before which no held seat lapses
        qint64 salesOpenUntilMs = 0;  ///< local time until which sales are open (0: closed)
        QHash<int, int> subscribers;  ///< listener → number of its subscriptions to this show
        std::vector<int> pending;     ///< seats changed since the last delta (batching only), unordered
        std::vector<bool> isPending;  ///< per seat: listed in `pending`
        qint64 lastDeltaMs = std::numeric_limits<qint64>::min() / 2; ///< monotonic time of the last delta
    };
    QByteArray snapshotMessage(qint64 showId, const Show &show) const;
    /** @brief @p changes (seat indexes, codes already updated) happened: the next delta at once, or pending when
     *  batching. Lock held. */
    void recordChangesLocked(qint64 showId, Show &show, const std::vector<int> &changes);
    /** @brief Turn @p changes (ascending seat indexes, codes already updated) into the next delta of @p show and
     *  hand it to the show's listeners, in version order. Lock held. */
    void commitDeltaLocked(qint64 showId, Show &show, const std::vector<int> &changes);
    /** @brief Set @p seatIds of @p show to @p code as one write (see applyLocalWrite(), applyNotifiedWrite()). Lock held. */
    bool applyWriteLocked(qint64 showId, Show &show, const QStringList &seatIds, char code, bool local, qint64 localGuardMs, int *contested);
    /** @brief The pending changes of @p show as one delta, if any. Lock held. */
    bool flushPendingLocked(qint64 showId, Show &show);

    const store::SeatFreeing &m_freeing;
    const QByteArray m_epoch;
    mutable QMutex m_mutex;
    QHash<qint64, Show> m_shows;
    QHash<int, Listener> m_listeners;
    BatchWake m_batchWake;
    int m_batchWindowMs = 0;
    QElapsedTimer m_clock; ///< monotonic, for the batching window
    int m_nextListener = 1;
    quint64 m_sequence = 0;
    quint64 m_trustedAfter = 0; ///< reads with a sequence above this are current (see isCurrent())
};

} // namespace marquee
