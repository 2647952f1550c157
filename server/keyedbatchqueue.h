// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QMutex>
#include <QString>
#include <QThread>
#include <QWaitCondition>

#include <algorithm>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <unordered_map>
#include <unordered_set>
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

    KeyedBatchQueue(const QString &threadName, int threads, int maxBatch, bool oneBatchPerKey, Decide decide,
                    std::function<void()> threadExit = {})
        : m_maxBatch(std::max(1, maxBatch))
        , m_oneBatchPerKey(oneBatchPerKey)
        , m_decide(std::move(decide))
        , m_threadExit(std::move(threadExit))
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
        QMutexLocker lock(&m_mutex);
        std::deque<Item> &waiting = m_waiting[key];
        if (waiting.empty() && !m_busyKeys.count(key))
            m_readyKeys.push_back(key);
        waiting.push_back(std::move(item));
        m_work.wakeOne();
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

private:
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
            std::deque<Item> &waiting = m_waiting[key];
            const auto take = std::min<size_t>(waiting.size(), size_t(m_maxBatch));
            std::vector<Item> batch;
            batch.reserve(take);
            std::move(waiting.begin(), waiting.begin() + qsizetype(take), std::back_inserter(batch));
            waiting.erase(waiting.begin(), waiting.begin() + qsizetype(take));
            if (m_oneBatchPerKey)
                m_busyKeys.insert(key); // requeued when this batch returns
            else if (!waiting.empty())
                m_readyKeys.push_back(key); // the rest go in the next batch, maybe on another thread
            if (waiting.empty())
                m_waiting.erase(key);
            ++m_batches;
            m_batchedItems += batch.size();

            lock.unlock();
            m_decide(key, batch);
            lock.relock();

            if (m_oneBatchPerKey) {
                m_busyKeys.erase(key);
                if (m_waiting.count(key)) {
                    m_readyKeys.push_back(key);
                    m_work.wakeOne();
                }
            }
        }
        lock.unlock();
        if (m_threadExit)
            m_threadExit();
    }

    const int m_maxBatch;
    const bool m_oneBatchPerKey;
    const Decide m_decide;
    const std::function<void()> m_threadExit;
    mutable QMutex m_mutex;
    QWaitCondition m_work;
    std::unordered_map<qint64, std::deque<Item>> m_waiting; ///< per key, oldest first
    std::deque<qint64> m_readyKeys; ///< keys with waiting items that no thread may be deciding (each once)
    std::unordered_set<qint64> m_busyKeys; ///< oneBatchPerKey: keys whose batch is being decided
    bool m_stopping = false;
    quint64 m_batches = 0;
    quint64 m_batchedItems = 0;
    std::vector<std::unique_ptr<QThread>> m_threads; ///< last: started once everything above exists
};

} // namespace marquee
