// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"
#include "store/authrepository.h"
#include "store/waitingroomrepository.h"
#include "waitingroom/joinbatcher.h"

#include <QHash>
#include <QMutex>
#include <QReadWriteLock>
#include <QSemaphore>
#include <QThread>
#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <variant>

namespace marquee {

class WaitingRoomService;

/**
 * @brief What a join, a status poll or the manager's switch ends in: the value, or a Refusal (a catalogue code and
 * its data). The queue routes alone turn either into HTTP (server/http/queueroutes.cpp).
 */
template<typename T> using QueueOutcome = std::variant<T, Refusal>;

/** @brief Where a caller's entry stands in a show's waiting room: the decision of a status poll, and its data. */
struct QueueStanding {
    enum class State {
        BeforeOpening, ///< joined before the opening: the place is drawn at the opening
        Queued,        ///< joined after the opening: ranked at the next admission tick
        Waiting,       ///< ranked, behind the admitted so far
        Admitted,      ///< may hold until the admission expires
        Expired,       ///< was admitted; the admission lapsed unused
        SoldOut,       ///< every seat is sold: nobody more is admitted
        Closed,        ///< the room was switched off
    };
    State state = State::Queued;
    std::optional<qint64> position;   ///< places ahead of the caller plus one; none until ranked (0 once admitted)
    std::optional<qint64> etaSeconds; ///< likewise
    qint64 pollAfterMs = 0;           ///< when to ask again, spread so that callers who joined together do not poll together
    std::optional<QDateTime> opensAt; ///< the opening, told while the entry has no rank yet
    QString admissionToken;           ///< Admitted: the token a hold carries (Admission-Token)
    QDateTime admissionExpiresAt;     ///< Admitted: until when it is valid

    /** @brief The standing may still turn into an admission or a sell-out: worth a long poll's wait. */
    bool stillWaiting() const { return state == State::Waiting || state == State::Queued || state == State::BeforeOpening; }
};

/** @brief A join: the queue token that proves the entry to later polls, and the entry's standing (not ranked yet). */
struct QueueJoin {
    QString queueToken;
    QueueStanding standing; ///< BeforeOpening or Queued, with the opening and when to poll
};

/**
 * @brief The admission a hold request on a hot show carries, checked before the hold and settled after it.
 *
 * While a pass is alive its admission's single hold slot is claimed in the database; finish() records the hold
 * (or frees the slot when the hold failed), and a pass dropped without finish() frees the slot.
 */
class AdmissionPass
{
public:
    AdmissionPass() = default;
    AdmissionPass(AdmissionPass &&other) noexcept;
    AdmissionPass &operator=(AdmissionPass &&) = delete;
    ~AdmissionPass();
    /** @brief Why the hold is refused; std::nullopt when it may go ahead. */
    const std::optional<Refusal> &refusal() const { return m_refusal; }
    /** @brief The hold is decided: @p holdId (empty when none was placed) is recorded as the admission's hold. */
    void finish(const QString &holdId);

private:
    friend class WaitingRoomService;
    WaitingRoomService *m_service = nullptr;
    qint64 m_entryId = 0; ///< 0: no admission involved (no room, or refused)
    std::optional<Refusal> m_refusal;
};

/**
 * @brief The virtual waiting room of hot shows, over WaitingRoomRepository.
 *
 * Every instance keeps the rooms (watermark, sold-out flag, signing key) in memory, refreshed by its background
 * thread every tick, so a status poll costs no database round trip once the entry's rank is known (ranks never
 * change, so they are cached too). The same thread runs the admission tick; the database row lock lets only one
 * instance tick a room per interval.
 *
 * Tokens are HMAC-SHA256 signed with the room's secret and bound to the caller (its device or session):
 *  - queue token `q.<show>.<entry>.<owner>.<mac>`: proves which entry a status poll asks about;
 *  - admission token `a.<show>.<entry>.<expires_ms>.<owner>.<mac>`: lets that caller hold on the show until expiry.
 */
class WaitingRoomService
{
public:
    WaitingRoomService(store::WaitingRoomRepository &repository, const store::Database &database, int tickMs, int autoThresholdPerSecond);
    ~WaitingRoomService();

    /**
     * @brief At most @p limit live holds per box-office caller (till device or staff session) on a show whose
     * waiting room is on; 0: no bound. The counter sells to one person at a time, so a handful is plenty; the bound
     * keeps a stolen or runaway staff token from emptying a hot show past the queue.
     */
    void setBoxOfficeHoldLimit(int limit) { m_boxOfficeHoldLimit = limit; }
    /**
     * @brief The longest poll_after_ms a status answer suggests (default 10 s). Users far back are told to poll
     * about every third of their eta, up to this: a larger bound means fewer polls from a huge queue and a later
     * sold-out notice for its far end (it learns at its next poll).
     */
    void setMaxPollMs(int ms) { m_maxPollMs = std::max(ms, 1000); }
    /** @brief Joins inserted so far and the INSERTs (batches) that carried them. */
    quint64 joinBatches() const { return m_joins.batches(); }
    quint64 batchedJoins() const { return m_joins.batchedJoins(); }
    /** @brief Start the background refresh-and-admit thread. */
    void start();
    void stop();

    /** @brief POST /api/v1/queue/{show}/join: the caller's new entry, answered once it is committed. */
    QueueOutcome<QueueJoin> join(qint64 showId, const store::Principal &caller);
    /** @brief GET /api/v1/queue/{show}/status?token=: where the entry of @p queueToken stands (from memory when it can). */
    QueueOutcome<QueueStanding> status(qint64 showId, const store::Principal &caller, const QString &queueToken);
    /** @brief PUT /api/v1/shows/{show}/waiting-room (audited): the room as configured. */
    QueueOutcome<store::WaitingRoomRow> configure(qint64 showId, const store::WaitingRoomSettings &settings, const store::Principal &caller,
                                                  const QString &reason);
    /**
     * @brief Check a hold on @p showId: shows without an active room pass at once (and count towards the demand
     * threshold); tills and staff sessions (the box office) pass at once too; kiosks need a valid admission token
     * of this caller, and get its hold slot claimed.
     */
    AdmissionPass admitHold(qint64 showId, const store::Principal &caller, const QByteArray &admissionToken);

    /**
     * @brief Counts the reloads that changed what a status answer depends on (a room switched, opened, sold out,
     * or ranked or admitted more entries); a parked long poll asks again only when this moved.
     */
    quint64 changes() const { return m_changes.load(); }

    /**
     * @brief A room was switched or reconfigured (by any instance: channel `marquee_shows`): the background thread
     * reloads the rooms now rather than at its next tick. Quick; callable from any thread.
     */
    void reloadSoon() { m_reloadRequested.release(); }
    /** @brief Reload the rooms from the database and run one admission tick of each (what the thread does). */
    void refreshAndTick();

private:
    friend class AdmissionPass;
    struct Room {
        store::WaitingRoomRow row;
        qint64 loadedAtMs = 0;
    };
    struct CachedEntry {
        qint64 rank = 0;
        qint64 admittedAtMs = 0; ///< 0: not yet known to be admitted
    };
    std::optional<Room> room(qint64 showId) const;
    void reload();
    void noteDemand(qint64 showId);
    void loadRanks();
    qint64 pollAfterMs(qint64 ms) const;
    qint64 unrankedPollMs(const store::WaitingRoomRow &row) const;
    static double etaSeconds(const store::WaitingRoomRow &row, qint64 position);
    void finishHold(qint64 entryId, const QString &holdId);

    store::WaitingRoomRepository &m_repository;
    const store::Database &m_database;
    const int m_tickMs;
    const int m_autoThreshold;
    int m_boxOfficeHoldLimit = 0;
    int m_maxPollMs = 10000;
    JoinBatcher m_joins;

    mutable QReadWriteLock m_roomsLock;
    QHash<qint64, Room> m_rooms;

    QMutex m_entriesLock;
    QHash<qint64, CachedEntry> m_entries;
    QHash<qint64, qint64> m_ranksLoaded; ///< per show: ranks 1..n are in m_entries (loaded by the background thread)

    QMutex m_demandLock;
    struct Demand {
        qint64 second = 0;
        int count = 0;
    };
    QHash<qint64, Demand> m_demand;
    QList<qint64> m_autoEnable; ///< shows whose demand passed the threshold, switched on by the thread

    std::unique_ptr<QThread> m_thread;
    std::atomic<bool> m_stop{false};
    QSemaphore m_reloadRequested; ///< released by reloadSoon()
    std::atomic<quint64> m_changes{0};
};

} // namespace marquee
