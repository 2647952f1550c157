// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QMutex>
#include <QSet>
#include <QStringList>
#include <QString>
#include <QThread>
#include <QWaitCondition>

#include <algorithm>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <unordered_map>
#include <vector>

namespace marquee {

/**
 * @brief The batching shared by hold admission (HoldBatcher) and waiting-room joins (JoinBatcher): work items
 * wait in a queue per key (a show), and a fixed set of threads each take the oldest items of one key, up to
 * @c maxBatch, and hand them to @c decide together — one transaction and one WAL flush for the lot.
 *
 * - No timer: an idle thread takes an item as soon as it arrives, so a lone item is not delayed; items pile up
 *   into batches only while the threads are busy, i.e. exactly when batching pays.
 * - Keys take turns, so one show's crowd cannot starve another show.
 * - With @c oneBatchPerKey a key's next batch starts only after its previous one returned (joins: entry ids must
 *   follow arrival order); without it several batches of one key may run at once (holds: PostgreSQL's row locks
 *   order them).
 * - With @c claims (holds: an item's seat ids) the batches of a key that run at once never share a claim, and
 *   items that share a claim are taken in arrival order: an item is passed over while a running batch has one
 *   of its claims, and so is every later item sharing a claim with an item passed over. PostgreSQL then never
 *   makes one batch wait for another's row locks (such a wait held every request of the waiting batch for a
 *   whole other transaction: that was the hold latency tail); the item passed over waits here instead, and
 *   by its turn the running batch's answer is known (the holds' fast path then refuses it from memory).
 * - The destructor lets the threads decide everything still queued, then joins them, so every item pushed gets
 *   its decision.
 * @c decide and @c threadExit run on the queue's threads; @c threadExit once per thread as it ends (to close that
 * thread's database connection).
 */
template<typename Item>
class KeyedBatchQueue
{
public:
    using Decide = std::function<void(qint64 key, std::vector<Item> &batch)>;
    /** @brief What an item claims within its key (empty function: nothing, any batches may run at once). */
    using Claims = std::function<QStringList(const Item &item)>;

    KeyedBatchQueue(const QString &threadName, int threads, int maxBatch, bool oneBatchPerKey, Decide decide,
                    std::function<void()> threadExit = {}, Claims claims = {})
        : m_maxBatch(std::max(1, maxBatch))
        , m_oneBatchPerKey(oneBatchPerKey)
        , m_decide(std::move(decide))
        , m_threadExit(std::move(threadExit))
        , m_claims(std::move(claims))
    {
        for (int i = 0; i < threads; ++i) {
            m_threads.emplace_back(QThread::create([this] { run(); }));
            // Database hands each thread its own connection, named after the thread.
            m_threads.back()->setObjectName(threadName + QLatin1Char('-') + QString::number(i));
            m_threads.back()->start();
        }
    }

    ~KeyedBatchQueue()
    {
        {
            QMutexLocker lock(&m_mutex);
            m_stopping = true;
            m_work.wakeAll();
        }
        for (auto &thread : m_threads)
            thread->wait();
    }

    KeyedBatchQueue(const KeyedBatchQueue &) = delete;
    KeyedBatchQueue &operator=(const KeyedBatchQueue &) = delete;

    /** @brief Whether there are threads at all (with none, push() must not be called). */
    bool hasThreads() const { return !m_threads.empty(); }

    void push(qint64 key, Item item)
    {
        QStringList claims;
        if (m_claims)
            claims = m_claims(item);
        QMutexLocker lock(&m_mutex);
        Key &state = m_keys[key];
        state.waiting.push_back(Waiting{std::move(item), std::move(claims)});
        // A key whose waiting items all conflict with running batches is not ready; a new item may not conflict.
        markReadyLocked(key, state);
    }

    /** @brief Batches decided or being decided, and the items they took (benchmarks, tests). */
    quint64 batches() const
    {
        QMutexLocker lock(&m_mutex);
        return m_batches;
    }
    quint64 batchedItems() const
    {
        QMutexLocker lock(&m_mutex);
        return m_batchedItems;
    }
    /** @brief Times an item was passed over because a running batch (or an earlier item) shared a claim. */
    quint64 passedOver() const
    {
        QMutexLocker lock(&m_mutex);
        return m_passedOver;
    }

private:
    struct Waiting {
        Item item;
        QStringList claims;
    };
    struct Key {
        std::deque<Waiting> waiting; ///< oldest first
        QSet<QString> running; ///< claims of this key's batches being decided
        bool ready = false; ///< in m_readyKeys
        bool busy = false; ///< oneBatchPerKey: a batch of this key is being decided
    };

    void markReadyLocked(qint64 key, Key &state)
    {
        if (state.ready || state.busy || state.waiting.empty())
            return;
        state.ready = true;
        m_readyKeys.push_back(key);
        m_work.wakeOne();
    }

    static bool sharesClaim(const QStringList &claims, const QSet<QString> &set)
    {
        return std::any_of(claims.begin(), claims.end(), [&set](const QString &claim) { return set.contains(claim); });
    }

    /** @brief Moves the oldest items of @p state that may run now into @p batch, and their claims into @p claimed. */
    void takeLocked(Key &state, std::vector<Item> &batch, QStringList &claimed)
    {
        if (!m_claims) {
            const auto take = std::min<size_t>(state.waiting.size(), size_t(m_maxBatch));
            for (size_t i = 0; i < take; ++i)
                batch.push_back(std::move(state.waiting[i].item));
            state.waiting.erase(state.waiting.begin(), state.waiting.begin() + qsizetype(take));
            return;
        }
        QSet<QString> passedOverClaims; // claims of items left waiting: later items sharing one wait behind them
        auto it = state.waiting.begin();
        while (it != state.waiting.end() && int(batch.size()) < m_maxBatch) {
            if (sharesClaim(it->claims, state.running) || sharesClaim(it->claims, passedOverClaims)) {
                for (const QString &claim : it->claims)
                    passedOverClaims.insert(claim);
                ++m_passedOver;
                ++it;
                continue;
            }
            batch.push_back(std::move(it->item));
            claimed += it->claims;
            it = state.waiting.erase(it);
        }
        // Claimed only after the scan: items of one batch may share claims (the batch decides them in order).
        for (const QString &claim : std::as_const(claimed))
            state.running.insert(claim);
    }

    void run()
    {
        QMutexLocker lock(&m_mutex);
        for (;;) {
            while (m_readyKeys.empty() && !m_stopping)
                m_work.wait(&m_mutex);
            if (m_readyKeys.empty())
                break; // stopping, and nothing left to decide
            const qint64 key = m_readyKeys.front();
            m_readyKeys.pop_front();
            Key &state = m_keys[key];
            state.ready = false;
            std::vector<Item> batch;
            batch.reserve(std::min<size_t>(state.waiting.size(), size_t(m_maxBatch)));
            QStringList claimed;
            takeLocked(state, batch, claimed);
            if (batch.empty())
                continue; // every waiting item conflicts with a running batch: ready again when one returns
            if (m_oneBatchPerKey)
                state.busy = true; // ready again when this batch returns
            else
                markReadyLocked(key, state); // the rest go in the next batch, maybe on another thread
            ++m_batches;
            m_batchedItems += batch.size();

            lock.unlock();
            m_decide(key, batch);
            batch.clear(); // the items' destructors run outside the lock too
            lock.relock();

            Key &after = m_keys[key]; // (m_keys may have rehashed meanwhile)
            after.busy = false;
            for (const QString &claim : std::as_const(claimed))
                after.running.remove(claim);
            markReadyLocked(key, after);
            if (after.waiting.empty() && after.running.isEmpty() && !after.ready && !after.busy)
                m_keys.erase(key);
        }
        lock.unlock();
        if (m_threadExit)
            m_threadExit();
    }

    const int m_maxBatch;
    const bool m_oneBatchPerKey;
    const Decide m_decide;
    const std::function<void()> m_threadExit;
    const Claims m_claims;
    mutable QMutex m_mutex;
    QWaitCondition m_work;
    std::unordered_map<qint64, Key> m_keys;
    std::deque<qint64> m_readyKeys; ///< keys with waiting items that may be taken (each once: Key::ready)
    bool m_stopping = false;
    quint64 m_batches = 0;
    quint64 m_batchedItems = 0;
    quint64 m_passedOver = 0;
    std::vector<std::unique_ptr<QThread>> m_threads; ///< last: started once everything above exists
};

} // namespace marquee
