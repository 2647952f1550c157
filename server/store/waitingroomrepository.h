// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/authrepository.h"
#include "store/database.h"
#include "store/staffrepository.h"

#include <QDateTime>
#include <optional>
#include <vector>

namespace marquee::store {

/** @brief A show's waiting room as the database has it (one row of waiting_rooms). */
struct WaitingRoomRow {
    qint64 showId = 0;
    bool enabled = false;
    bool automatic = false;
    bool opened = false;
    bool soldOut = false;
    QDateTime opensAt;
    QByteArray secret;
    int admissionTtlSeconds = 600;
    double minAdmitPerSecond = 20;
    int maxInFlight = 2000;
    qint64 rankedUpto = 0;
    qint64 admittedUpto = 0;
    double admitRatePerSecond = 0;
    QDateTime soldOutAt;
};

/** @brief What a manager sets on a room (PUT /api/v1/shows/{id}/waiting-room). */
struct WaitingRoomSettings {
    bool enabled = true;
    QDateTime opensAt; ///< invalid: now
    int admissionTtlSeconds = 600;
    double minAdmitPerSecond = 20;
    int maxInFlight = 2000;
};

/** @brief One queue entry: who joined, its rank once assigned and when it was admitted. */
struct WaitingRoomEntry {
    qint64 entryId = 0;
    qint64 showId = 0;
    QString owner;
    std::optional<qint64> rank;
    QDateTime admittedAt; ///< invalid until admitted
};

/**
 * @brief The virtual waiting room in PostgreSQL (008_waiting_room.sql): rooms, entries, the admission tick and the
 * one-hold-at-a-time claim of an admission. Shared by every server instance on the database and kept across restarts.
 */
class WaitingRoomRepository
{
public:
    explicit WaitingRoomRepository(const Database &database);
    /** @brief The database this repository reads and writes (a batch thread closes its connection through it). */
    const Database &database() const { return m_database; }

    /** @brief Every room that is on or sold out; std::nullopt on a database error. */
    std::optional<std::vector<WaitingRoomRow>> rooms();
    enum class Configured { Ok, ShowNotFound, Error };
    /**
     * @brief Create or change a show's room, set shows.waiting_room and append @p audit, in one transaction.
     * A new room gets @p newSecret; an opened room keeps its opening time.
     */
    Configured configure(qint64 showId, const WaitingRoomSettings &settings, const QByteArray &newSecret, const Principal &actor,
                         const AuditEntry &audit, WaitingRoomRow *result);
    /** @brief Switch a room on for a show whose demand passed the threshold (no-op when it has one); false on error. */
    bool enableAutomatically(qint64 showId, const QByteArray &newSecret);
    /**
     * @brief New entries for @p owners, in that order, in one INSERT (one commit): their entry ids, ascending in
     * the order of @p owners (the identity column is arrival order). Empty when the room is off, sold out or
     * missing; std::nullopt on a database error (then none of them joined).
     */
    std::optional<std::vector<qint64>> join(qint64 showId, const QStringList &owners);
    /** @brief Ranks assigned in (@p afterRank, @p uptoRank] of a room: pairs of entry id and rank; std::nullopt on error. */
    std::optional<std::vector<std::pair<qint64, qint64>>> ranks(qint64 showId, qint64 afterRank, qint64 uptoRank);
    /** @brief One entry by id; std::nullopt when unknown; @p ok false on a database error. */
    std::optional<WaitingRoomEntry> entry(qint64 entryId, bool *ok);
    /** @brief Run one admission step of the room (mq_waiting_room_tick); empty on error. */
    QString tick(qint64 showId, int minIntervalMs);

    enum class Claim { Claimed, HoldActive, InProgress, NotFound, Error };
    /**
     * @brief Reserve the admission's single hold slot before a hold: refused while its previous hold is live or
     * another hold request with it is in flight (a claim older than 30 s is considered abandoned).
     * @p activeHold receives the live hold's id when refused with HoldActive.
     */
    Claim claimHold(qint64 entryId, QString *activeHold);
    /** @brief After the hold: record @p holdId (empty: the hold failed, free the slot). */
    bool finishHold(qint64 entryId, const QString &holdId);
    /** @brief Live holds (not released, not expired; an order keeps its hold alive) of @p owner on @p showId;
     *  std::nullopt on a database error. */
    std::optional<int> liveHolds(const QString &owner, qint64 showId);

private:
    const Database &m_database;
};

} // namespace marquee::store
