// SPDX-License-Identifier: AGPL-3.0-or-later
// KeyedBatchQueue with claims (the hold batcher's seats): batches of one key that run at once never share a
// claim, items sharing a claim are decided in arrival order, and an item that conflicts with nothing is not held
// up by one that does.
#include "batching/keyedbatchqueue.h"

#include <gtest/gtest.h>

#include <QMutex>
#include <QSet>
#include <QThread>
#include <QWaitCondition>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <thread>

using marquee::KeyedBatchQueue;

namespace {

struct Item {
    int id = 0;
    QStringList claims;
};

/** @brief A one-shot gate a decide() can wait at. */
class Gate
{
public:
    void open()
    {
        QMutexLocker lock(&m_mutex);
        m_open = true;
        m_changed.wakeAll();
    }
    /** @brief False if not opened within @p timeoutMs (a hang, not a timing claim). */
    bool wait(int timeoutMs = 20000)
    {
        QMutexLocker lock(&m_mutex);
        while (!m_open)
            if (!m_changed.wait(&m_mutex, timeoutMs))
                return m_open;
        return true;
    }

private:
    QMutex m_mutex;
    QWaitCondition m_changed;
    bool m_open = false;
};

} // namespace

TEST(KeyedBatchQueue, RunningBatchesNeverShareAClaimAndSharedClaimsKeepArrivalOrder)
{
    constexpr int kProducers = 6;
    constexpr int kItemsPerProducer = 400;
    constexpr int kKeys = 3;
    constexpr int kClaimPool = 24; // few claims per key: most items conflict with something running

    QMutex checkMutex;
    std::map<qint64, QSet<QString>> running; // claims of the batches being decided, per key
    std::map<std::pair<qint64, QString>, std::vector<int>> decidedPerClaim;
    std::map<int, int> decidedCount;
    int overlaps = 0;
    std::atomic<int> maxConcurrent{0};
    std::atomic<int> concurrent{0};

    QMutex pushMutex; // arrival order = the order of push() calls, recorded under the same lock
    std::map<std::pair<qint64, QString>, std::vector<int>> arrivedPerClaim;
    std::map<int, qint64> keyOf;

    {
        KeyedBatchQueue<Item> queue(
            QStringLiteral("test-batch"), 4, 8, false,
            [&](qint64 key, std::vector<Item> &batch) {
                const int now = ++concurrent;
                int seen = maxConcurrent.load();
                while (now > seen && !maxConcurrent.compare_exchange_weak(seen, now)) {
                }
                QSet<QString> mine;
                for (const Item &item : batch)
                    for (const QString &claim : item.claims)
                        mine.insert(claim);
                {
                    QMutexLocker lock(&checkMutex);
                    if (running[key].intersects(mine))
                        ++overlaps;
                    running[key].unite(mine);
                    // Decided in batch order: the order within one batch is the order PostgreSQL decides in.
                    for (const Item &item : batch) {
                        ++decidedCount[item.id];
                        for (const QString &claim : item.claims)
                            decidedPerClaim[{key, claim}].push_back(item.id);
                    }
                }
                std::this_thread::sleep_for(std::chrono::microseconds(200 + (batch.front().id % 7) * 150));
                {
                    QMutexLocker lock(&checkMutex);
                    running[key].subtract(mine);
                }
                --concurrent;
            },
            {}, [](const Item &item) { return item.claims; });

        std::vector<std::thread> producers;
        for (int p = 0; p < kProducers; ++p) {
            producers.emplace_back([&, p] {
                std::mt19937 random(1234u + unsigned(p));
                for (int i = 0; i < kItemsPerProducer; ++i) {
                    Item item;
                    item.id = p * kItemsPerProducer + i;
                    const qint64 key = qint64(random() % kKeys);
                    const int count = 1 + int(random() % 3);
                    for (int c = 0; c < count; ++c) {
                        const QString claim = QStringLiteral("S%1").arg(random() % kClaimPool);
                        if (!item.claims.contains(claim))
                            item.claims << claim;
                    }
                    QMutexLocker lock(&pushMutex);
                    keyOf[item.id] = key;
                    for (const QString &claim : item.claims)
                        arrivedPerClaim[{key, claim}].push_back(item.id);
                    queue.push(key, item);
                    lock.unlock();
                    if (i % 16 == 0)
                        std::this_thread::sleep_for(std::chrono::microseconds(300));
                }
            });
        }
        for (std::thread &producer : producers)
            producer.join();
        // The destructor decides what is still waiting, then joins the threads.
    }

    EXPECT_EQ(overlaps, 0) << "two running batches of one key shared a claim";
    ASSERT_EQ(decidedCount.size(), size_t(kProducers * kItemsPerProducer)) << "every item is decided";
    for (const auto &[id, count] : decidedCount)
        ASSERT_EQ(count, 1) << "item " << id << " decided " << count << " times";
    ASSERT_EQ(decidedPerClaim.size(), arrivedPerClaim.size());
    for (const auto &[claim, arrived] : arrivedPerClaim)
        EXPECT_EQ(decidedPerClaim[claim], arrived) << "items sharing claim " << claim.second.toStdString() << " of key " << claim.first
                                                   << " were decided out of arrival order";
    // The run really had batches at once (else the first check proves nothing).
    EXPECT_GE(maxConcurrent.load(), 2);
}

TEST(KeyedBatchQueue, AnItemWaitsForTheRunningBatchOfItsClaimButOthersGoAhead)
{
    Gate firstMayFinish;
    Gate thirdDecided;
    QMutex orderMutex;
    std::vector<int> order; // ids in the order their decide() began

    KeyedBatchQueue<Item> queue(
        QStringLiteral("test-gate"), 2, 8, false,
        [&](qint64, std::vector<Item> &batch) {
            {
                QMutexLocker lock(&orderMutex);
                for (const Item &item : batch)
                    order.push_back(item.id);
            }
            for (const Item &item : batch) {
                if (item.id == 1)
                    ASSERT_TRUE(firstMayFinish.wait()) << "the test never opened the gate";
                if (item.id == 3)
                    thirdDecided.open();
            }
        },
        {}, [](const Item &item) { return item.claims; });

    queue.push(7, Item{1, {QStringLiteral("A1"), QStringLiteral("A2")}});
    // Wait until item 1 is being decided, so items 2 and 3 cannot join its batch.
    for (int spins = 0; spins < 2000; ++spins) {
        {
            QMutexLocker lock(&orderMutex);
            if (!order.empty())
                break;
        }
        QThread::msleep(5);
    }
    queue.push(7, Item{2, {QStringLiteral("A2"), QStringLiteral("A3")}}); // shares A2 with the running batch
    queue.push(7, Item{3, {QStringLiteral("B1")}}); // shares nothing
    ASSERT_TRUE(thirdDecided.wait()) << "an item with no shared claim waited for an unrelated running batch";
    {
        QMutexLocker lock(&orderMutex);
        EXPECT_EQ(order, (std::vector<int>{1, 3})) << "item 2 must wait until item 1's batch has returned";
    }
    firstMayFinish.open();
    for (int spins = 0; spins < 4000; ++spins) {
        {
            QMutexLocker lock(&orderMutex);
            if (order.size() == 3)
                break;
        }
        QThread::msleep(5);
    }
    QMutexLocker lock(&orderMutex);
    EXPECT_EQ(order, (std::vector<int>{1, 3, 2}));
    EXPECT_GE(queue.passedOver(), 1u);
}
