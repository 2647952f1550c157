// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/holdrepository.h"

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QSet>
#include <QStringList>
#include <QThread>
#include <QWaitCondition>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace marquee {

class SeatMapService;

/**
 * @brief Refuses obvious losers of a hold race from memory, before PostgreSQL is asked.
 *
 * Only a refusal is ever decided here; a yes always comes from mq_place_hold's conditional UPDATE. A refusal
 * needs the SeatFeed to prove the seats taken (see SeatFeed::certainlyTaken for the staleness bounds).
 *
 * Idempotency-Key semantics stay those of mq_place_hold: a refusal under a key is that key's answer. It is kept
 * in memory (a retry gets it again, a reuse with another request gets 422) and written to idempotency_keys by a
 * background thread in batches, one transaction per batch (group commit) — the request does not wait for it.
 * A request whose key already went to the database is never answered here: its stored answer wins.
 */
class HoldFastPath
{
public:
    HoldFastPath(SeatMapService &seatMaps, store::HoldRepository &holds, bool enabled, int maxSnapshotAgeMs);
    ~HoldFastPath();

    /** @brief A decision made without the database (always a refusal, or a replay of one). */
    using Answer = store::HoldDecision;
    /**
     * @brief The answer when the hold can be refused (or its key replayed) without the database; nothing when
     * PostgreSQL must decide. Also keeps the show's statuses fresh while it sees traffic.
     */
    std::optional<Answer> decide(qint64 showId, const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash,
                                 const QStringList &seatIds);
    /** @brief What enter() found: an answer from memory, or the request goes on to PostgreSQL. */
    struct Entry {
        /** @brief The answer without the database (nothing to do after it). */
        std::optional<Answer> answer;
        /** @brief Without an answer: the key was new to this process (see Remembered::fresh). keyDone() once decided. */
        bool keyFresh = false;
    };
    /** @brief decide(), and without an answer rememberKey(): the one way in for a hold request (HoldService). */
    Entry enter(qint64 showId, const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash, const QStringList &seatIds);
    /** @brief What rememberKey() found. */
    struct Remembered {
        /** @brief The key is new to this process (not seen, not in flight): only then may refuseQueued() answer it. */
        bool fresh = false;
        /** @brief Since decide(), the key got an answer from memory (a concurrent request): this is its answer. */
        std::optional<Answer> answer;
    };
    /**
     * @brief A request with this key is about to reach the database (its retries must too); until keyDone() it
     * counts as in flight — unless Remembered::answer is set, in which case it answers with that instead.
     */
    Remembered rememberKey(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash);
    /** @brief The request remembered with rememberKey() has its answer. */
    void keyDone(const QString &owner, const QString &idempotencyKey);
    /**
     * @brief For a request that passed decide() and then waited in the HoldBatcher's queue: the 409 when the
     * snapshot now proves its seats taken (SeatFeed::certainlyTaken, same staleness bounds as decide()); nothing
     * when PostgreSQL must decide. A keyed request is refused only if its key was new (@p keyFresh) and no other
     * request with that key is in flight; the refusal then becomes the key's answer, exactly as in decide().
     */
    std::optional<Answer> refuseQueued(qint64 showId, const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash,
                                       const QStringList &seatIds, bool keyFresh);

    bool enabled() const { return m_enabled; }
    /** @brief Holds refused from memory so far (for benchmarks and logs). */
    quint64 refusals() const { return m_refusals.load(); }
    /** @brief Block until every refusal answered so far is stored (tests). False after @p timeoutMs. */
    bool flush(int timeoutMs = 10000);

    /** @brief Keys remembered per generation; two generations are kept, so at least this many recent keys. */
    static constexpr int kKeysPerGeneration = 200000;
    /** @brief Refusals waiting to be stored at most; beyond, keyed requests go to the database again. */
    static constexpr int kMaxUnstored = 50000;
    static constexpr int kBatchMs = 5;

private:
    bool keySeenLocked(const QByteArray &digest) const;
    /** @brief The answer given from memory under @p digest's key, replayed (422 for another request); locked. */
    std::optional<Answer> replayLocked(const QByteArray &digest, const QByteArray &requestHash) const;
    /** @brief The seats_taken refusal naming @p taken, decided from memory. */
    static Answer refusal(const QStringList &taken);
    /** @brief Make @p answer the answer of @p digest's key (kept until the journal stored it); locked. */
    void keepAnswerLocked(const QByteArray &digest, const store::HoldRepository::StoredAnswer &answer);
    void rememberLocked(const QByteArray &digest);
    static QByteArray keyDigest(const QString &owner, const QString &idempotencyKey);
    void journalLoop();

    SeatMapService &m_seatMaps;
    store::HoldRepository &m_holds;
    const bool m_enabled;
    const int m_maxSnapshotAgeMs;
    mutable QMutex m_mutex;
    QWaitCondition m_wake;
    QWaitCondition m_stored;
    QSet<QByteArray> m_keys;
    QSet<QByteArray> m_olderKeys;
    /** @brief Refusals answered under a key, by key digest, until stored. */
    QHash<QByteArray, store::HoldRepository::StoredAnswer> m_unstored;
    /** @brief Keyed requests of one key on their way to the database (rememberKey() until keyDone()). */
    struct InFlight {
        int requests = 0;
        /** @brief rememberKey() calls since the first of these requests: a request that went to the database and
         * is done no longer counts in @c requests, but its answer may be stored there. */
        int remembered = 0;
    };
    /** @brief By key digest; erased when the last of its requests is done. */
    QHash<QByteArray, InFlight> m_inFlight;
    std::vector<QByteArray> m_queue; ///< digests of m_unstored in answer order
    bool m_stopping = false;
    bool m_writing = false;
    std::atomic<quint64> m_refusals{0};
    std::unique_ptr<QThread> m_journal;
};

} // namespace marquee
