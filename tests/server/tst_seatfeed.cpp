// SPDX-License-Identifier: AGPL-3.0-or-later
// SeatFeed merges two sources of seat statuses: reads of the whole show (which also see lapses and other
// instances' writes) and this process's own committed holds (sent at once, without a read). These tests drive
// the feed directly and check the deltas its listeners get: a read that began before a local write never undoes
// it, a later read confirms or corrects it, and every listener sees the versions of a show in order.
#include "seating/seatfeed.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>
#include <QMap>
#include <QSet>
#include <mutex>
#include <thread>

using namespace marquee;

namespace {

struct Delta {
    qint64 version = 0;
    QMap<QString, QString> changes; ///< seat → status
};

class SeatFeedTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        seats = {QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A\"3"), QStringLiteral("B1")};
        listener = feed.addListener([this](qint64 show, qint64 version, const QByteArray &message) {
            std::lock_guard lock(mutex);
            const QJsonObject object = QJsonDocument::fromJson(message).object();
            EXPECT_EQ(object.value(QStringLiteral("type")).toString(), QStringLiteral("delta"));
            EXPECT_EQ(object.value(QStringLiteral("show_id")).toInteger(), show);
            EXPECT_EQ(object.value(QStringLiteral("version")).toInteger(), version);
            Delta delta{version, {}};
            for (const QJsonValue &change : object.value(QStringLiteral("changes")).toArray())
                delta.changes.insert(change[QStringLiteral("seat_id")].toString(), change[QStringLiteral("status")].toString());
            deltas.push_back(delta);
        });
    }
    /** @brief A read of the whole show that began at @p start and saw @p codes. */
    void publishRead(const SeatFeed::QueryStart &start, const QByteArray &codes)
    {
        store::SeatStatuses statuses;
        statuses.codes = codes;
        statuses.salesOpenForMs = 3600 * 1000;
        feed.publish(kShow, start, statuses, seats);
    }
    std::vector<Delta> taken()
    {
        std::lock_guard lock(mutex);
        return std::exchange(deltas, {});
    }

    static constexpr qint64 kShow = 7;
    store::SeatFreeing freeing;
    SeatFeed feed{freeing};
    QStringList seats;
    int listener = 0;
    std::mutex mutex;
    std::vector<Delta> deltas;
};

} // namespace

TEST_F(SeatFeedTest, LocalHoldIsSentAtOnceAndAnOlderReadDoesNotUndoIt)
{
    publishRead(feed.beginQuery(), "aaaa");
    const SeatFeed::Start start = feed.subscribe(listener, kShow, -1, {});
    ASSERT_EQ(start.kind, SeatFeed::Start::Kind::Snapshot);

    // A read begins, then a hold commits here, then the read (which may predate the hold) is published.
    const SeatFeed::QueryStart olderRead = feed.beginQuery();
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A2"), QStringLiteral("A\"3")}, SeatStatus::Held));
    std::vector<Delta> sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].version, start.version + 1);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("A2"), QStringLiteral("held")}, {QStringLiteral("A\"3"), QStringLiteral("held")}}));

    publishRead(olderRead, "aaab"); // did not see the hold yet, but saw B1 sold by another instance
    sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("B1"), QStringLiteral("booked")}})) << "the read must not undo the hold";

    // A read that began after the hold confirms it: nothing to send.
    publishRead(feed.beginQuery(), "ahhb");
    EXPECT_TRUE(taken().empty());
    // Applying the same write again changes nothing and sends nothing.
    EXPECT_FALSE(feed.applyLocalWrite(kShow, {QStringLiteral("A2")}, SeatStatus::Held));
    EXPECT_TRUE(taken().empty());

    // A later read corrects the feed: A2's hold lapsed.
    publishRead(feed.beginQuery(), "aahb");
    sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("A2"), QStringLiteral("available")}}));

    // Refusals from memory see the local hold too (the snapshot is fresh and nothing was freed).
    const auto refused = feed.certainlyTaken(kShow, {QStringLiteral("A\"3"), QStringLiteral("A1")}, 1000);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(*refused, QStringList{QStringLiteral("A\"3")});
}

TEST_F(SeatFeedTest, UnknownShowsAndSeatsAreLeftToTheNextRead)
{
    EXPECT_FALSE(feed.applyLocalWrite(kShow, {QStringLiteral("A1")}, SeatStatus::Held)); // the feed does not follow the show yet
    publishRead(feed.beginQuery(), "aaaa");
    EXPECT_EQ(feed.subscribe(listener, kShow, -1, {}).version, 1);
    EXPECT_FALSE(feed.applyLocalWrite(kShow, {QStringLiteral("Z9")}, SeatStatus::Held));
    EXPECT_TRUE(taken().empty());
}

TEST_F(SeatFeedTest, ConcurrentWritersProduceConsecutiveVersionsInOrder)
{
    QStringList names;
    for (int i = 0; i < 400; ++i)
        names << QStringLiteral("S%1").arg(i, 3, 10, QLatin1Char('0'));
    // const: the writer threads only read it. A non-const QStringList's operator[] detaches when the data is
    // shared (with `seats` here), and four threads detaching at once corrupted the seat ids (a CI failure).
    const QStringList many = names;
    seats = many;
    publishRead(feed.beginQuery(), QByteArray(400, 'a'));
    const qint64 first = feed.subscribe(listener, kShow, -1, {}).version;
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
        writers.emplace_back([&, t] {
            for (int i = t; i < 400; i += 4)
                feed.applyLocalWrite(kShow, {many.at(i)}, SeatStatus::Held);
        });
    }
    for (std::thread &writer : writers)
        writer.join();
    const std::vector<Delta> sent = taken();
    ASSERT_EQ(sent.size(), 400u);
    QSet<QString> held;
    for (size_t i = 0; i < sent.size(); ++i) {
        EXPECT_EQ(sent[i].version, first + 1 + qint64(i)) << "listeners must see the versions in order";
        for (auto it = sent[i].changes.cbegin(); it != sent[i].changes.cend(); ++it)
            held.insert(it.key());
    }
    EXPECT_EQ(held.size(), 400);
}

TEST_F(SeatFeedTest, BatchingTurnsABurstIntoOneDeltaAndASubscriberStartsAfterIt)
{
    publishRead(feed.beginQuery(), "aaaa");
    const SeatFeed::Start first = feed.subscribe(listener, kShow, -1, {});
    std::vector<qint64> wakes;
    std::vector<int> delays;
    // A window far longer than this test runs: every change after the first counts as "close behind" it.
    constexpr int kWindowMs = 600000;
    feed.setBatching(kWindowMs, [&](qint64 show, int delayMs) {
        wakes.push_back(show);
        delays.push_back(delayMs);
    });

    // After a quiet spell the first change goes out at once, without a flush being asked for.
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A\"3")}, SeatStatus::Held));
    std::vector<Delta> sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].version, first.version + 1);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("A\"3"), QStringLiteral("held")}}));
    EXPECT_TRUE(wakes.empty());

    // Three writes close behind it, one of them undone: nothing is sent yet, the flush is asked for once, for the
    // end of the window the first delta opened.
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A1")}, SeatStatus::Held));
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("B1"), QStringLiteral("A2")}, SeatStatus::Held));
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A2")}, SeatStatus::Available));
    EXPECT_TRUE(taken().empty());
    EXPECT_EQ(wakes, std::vector<qint64>{kShow});
    ASSERT_EQ(delays.size(), 1u);
    EXPECT_GT(delays[0], kWindowMs - 60000);
    EXPECT_LE(delays[0], kWindowMs);
    // Memory already knows them (refusals do not wait for the batch).
    EXPECT_EQ(feed.certainlyTaken(kShow, {QStringLiteral("B1")}, 1000), QStringList{QStringLiteral("B1")});

    EXPECT_TRUE(feed.flushPending(kShow));
    sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].version, first.version + 2);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("A1"), QStringLiteral("held")},
                                                       {QStringLiteral("A2"), QStringLiteral("available")},
                                                       {QStringLiteral("B1"), QStringLiteral("held")}}));
    EXPECT_FALSE(feed.flushPending(kShow)); // nothing left

    // A subscriber arriving while a change is pending gets it as a delta first, then a snapshot at that version:
    // what it is shown and the version it resumes from agree.
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A\"3")}, SeatStatus::Booked));
    EXPECT_EQ(wakes.size(), 2u);
    const SeatFeed::Start late = feed.subscribe(listener, kShow, -1, {});
    sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].version, first.version + 3);
    EXPECT_EQ(late.version, first.version + 3);
    ASSERT_EQ(late.messages.size(), 1u);
    EXPECT_TRUE(late.messages[0].contains("\"statuses\":\"habh\"")) << late.messages[0].constData();

    // Switching batching off sends what is still pending.
    EXPECT_TRUE(feed.applyLocalWrite(kShow, {QStringLiteral("A1")}, SeatStatus::Available));
    EXPECT_TRUE(taken().empty());
    feed.setBatching(0, nullptr);
    sent = taken();
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].changes, (QMap<QString, QString>{{QStringLiteral("A1"), QStringLiteral("available")}}));
}
