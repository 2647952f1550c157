// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QJsonObject>
#include <QStringList>
#include <optional>
#include <vector>

namespace marquee::store {

/** @brief What was decided for one hold request (o_decision of mq_place_holds). */
enum class HoldVerdict {
    Granted,      ///< the seats are held: holdId, showId, seatIds, expiresAt
    SeatsTaken,   ///< some seat is held or sold; none is held for the request: seatIds are those taken
    UnknownSeat,  ///< a seat the show does not have, none, or one named twice: seatIds are the unknown ones
    KeyReused,    ///< the Idempotency-Key was used with another request
    InFlight,     ///< a request with the same Idempotency-Key is being decided right now
    ShowNotFound,
    SalesClosed,
    SalesNotOpen,
    HoldLimitReached, ///< granting would pass the caller's bound on live held seats of the show: seatLimit, seatsHeld
};

/** @brief A hold request's decision and its data: never HTTP (server/holds/holdanswer.h makes the wire of it). */
struct HoldDecision {
    bool ok = false; ///< false on a database error (nothing was changed)
    HoldVerdict verdict = HoldVerdict::Granted;
    /** @brief The decision stored under the request's Idempotency-Key by an earlier request, given again. */
    bool replayed = false;
    /**
     * @brief Decided by this process, not by mq_place_holds: a refusal from the seat snapshot (HoldFastPath) or a
     * stored key compared here. Its body is written compactly, PostgreSQL's decisions as jsonb (the pinned wire).
     */
    bool inProcess = false;
    QString holdId;
    qint64 showId = 0;
    /** @brief Granted: the seats held, canonical order; SeatsTaken: those taken; UnknownSeat: those unknown. */
    QStringList seatIds;
    /** @brief Granted: as PostgreSQL formats it (UTC, milliseconds truncated), so a read-back agrees. */
    QString expiresAt;
    /** @brief HoldLimitReached: the caller's bound, and the live held seats it has on the show. */
    int seatLimit = 0;
    int seatsHeld = 0;

    static HoldDecision refused(HoldVerdict verdict, QStringList seatIds = {})
    {
        HoldDecision decision;
        decision.ok = true;
        decision.verdict = verdict;
        decision.seatIds = std::move(seatIds);
        return decision;
    }
};

/**
 * @brief Seat holds. Every decision is made by PostgreSQL in one round trip (mq_place_holds and mq_place_hold in
 * server/sql/functions/mq_place_holds.sql): all-or-nothing, rows locked in canonical order, the conditional UPDATE
 * as the only arbiter.
 */
class HoldRepository
{
public:
    /** @param asyncCommit placed holds do not wait for their WAL flush (ServerConfig::asyncHoldCommit) */
    explicit HoldRepository(const Database &database, bool asyncCommit = false);
    const Database &database() const { return m_database; }

    /**
     * @brief Try to hold @p seatIds of @p showId for @p owner for @p ttlSeconds.
     * @param idempotencyKey empty for a request without the header (then nothing is deduplicated)
     * @param requestHash digest of the request body, to refuse a reused key with another body
     */
    HoldDecision placeHold(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash, qint64 showId,
                          const QStringList &seatIds, int ttlSeconds, int seatLimit = 0);
    /** @brief One hold request of a batch (the arguments of placeHold without show and TTL). */
    struct HoldRequest {
        QString owner;
        QString idempotencyKey;
        QByteArray requestHash;
        QStringList seatIds;
        /** @brief Not used by the database: whether the HoldBatcher may refuse it from memory (HoldFastPath::rememberKey). */
        bool keyFresh = false;
        /** @brief The owner's bound on live held seats of the show, decided with the hold (0: none). */
        int seatLimit = 0;
    };
    /**
     * @brief Decide @p requests for @p showId in one transaction and one round trip (mq_place_holds): each
     * request all-or-nothing and decided exactly as placeHold would decide it alone, in order. Empty on a
     * database error (then nothing of the batch was changed).
     */
    std::vector<HoldDecision> placeHolds(qint64 showId, const std::vector<HoldRequest> &requests, int ttlSeconds);
    /** @brief Outcome of a release. */
    struct Release {
        bool ok = false;    ///< false on a database error
        bool found = false; ///< false when the hold is unknown or not the owner's
        qint64 showId = 0;
        QStringList freedSeats; ///< the seats this call freed, ascending (none when already released or lapsed)
        QString liveOrderId;    ///< the hold's unsettled order (CREATED, PENDING_PAYMENT, PAID): then nothing changed
    };
    /**
     * @brief Release at once; releasing a released or expired hold again succeeds and changes nothing. The seats it
     * freed are told to SeatWrites (the live seat feed) once committed. A hold frozen by an unsettled order is not
     * released: liveOrderId names the order (OrderService::abandonOrder ends it first).
     */
    Release releaseHold(const QString &owner, const QString &holdId);
    /**
     * @brief The hold as its owner sees it: {hold_id, show_id, seat_ids, expires_at, state}, where state is
     * active, expired, released or converted. std::nullopt when unknown or not the owner's (or on error, see @p ok).
     */
    std::optional<QJsonObject> hold(const QString &owner, const QString &holdId, bool *ok);
    /**
     * @brief The live decision stored under @p owner's @p key, as mq_place_holds would give it to a request with
     * @p requestHash (replayed, KeyReused for another request); std::nullopt when nothing is stored, or on a
     * database error (then @p ok is false).
     */
    std::optional<HoldDecision> storedDecision(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash, bool *ok);
    /** @brief A decision to remember under an Idempotency-Key without placing a hold (a refusal made from memory). */
    struct StoredAnswer {
        QString owner;
        QString idempotencyKey;
        QByteArray requestHash;
        HoldDecision decision;
    };
    /**
     * @brief Store @p answers as idempotency records in one transaction (group commit: one WAL flush for the
     * batch). A key that is already stored keeps its record. False on a database error (nothing stored).
     */
    bool storeAnswers(const std::vector<StoredAnswer> &answers);
    /** @brief A row of mq_place_hold(s): (o_decision, o_data as text, o_replayed); not ok for a decision it does not know. */
    static HoldDecision decisionFromRow(const QString &decision, const QByteArray &data, bool replayed);
    /**
     * @brief Free the seats of expired holds, at most @p batch holds; the number of seats freed, -1 on error. The
     * freed seats of each show are told to SeatWrites (the live seat feed) once committed.
     */
    int reapExpired(int batch);

private:
    const Database &m_database;
    const QString m_placeHoldSql;
    const QString m_placeHoldsSql;
};

} // namespace marquee::store
