// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/bestavailable.h"

#include <gtest/gtest.h>

using namespace marquee;

namespace {
// A room of rows × seats, pitch 10, rows 14 apart; `taken` lists seat ids that are not free.
QList<BestAvailableSeat> room(int rows, int seats, const QStringList &taken = {}, const QStringList &premiumRows = {})
{
    QList<BestAvailableSeat> list;
    for (int r = 0; r < rows; ++r) {
        const QString row(QChar(u'A' + r));
        for (int n = 1; n <= seats; ++n) {
            const QString id = row + QString::number(n);
            const Seat seat{id, row, n, double(n * 10), double(r * 14),
                            premiumRows.contains(row) ? QStringLiteral("premium") : QStringLiteral("standard"), {}};
            list.append({seat, !taken.contains(id)});
        }
    }
    return list;
}
QStringList pick(const QList<BestAvailableSeat> &seats, int count, QStringList tiers = {}, bool wheelchair = false)
{
    BestAvailableRequest request;
    request.count = count;
    request.tierOrder = tiers;
    request.wheelchair = wheelchair;
    return bestAvailable(seats, request);
}
} // namespace

TEST(BestAvailable, PicksAdjacentSeatsInTheCentreOfTheRoom)
{
    const QStringList best = pick(room(5, 10), 2);
    // Centre of a 10-seat row is between 5 and 6; the middle row is C.
    EXPECT_EQ(best, (QStringList{QStringLiteral("C5"), QStringLiteral("C6")}));
}

TEST(BestAvailable, PrefersTheBestTierThenFallsBack)
{
    const auto seats = room(5, 10, {}, {QStringLiteral("E")});
    EXPECT_EQ(pick(seats, 3, {QStringLiteral("premium"), QStringLiteral("standard")}).first().left(1), QStringLiteral("E"));
    QStringList allPremium;
    for (int n = 1; n <= 10; ++n)
        allPremium << QStringLiteral("E%1").arg(n);
    const auto full = room(5, 10, allPremium, {QStringLiteral("E")});
    const QStringList fallback = pick(full, 3, {QStringLiteral("premium"), QStringLiteral("standard")});
    ASSERT_EQ(fallback.size(), 3);
    EXPECT_NE(fallback.first().left(1), QStringLiteral("E"));
}

TEST(BestAvailable, NeverLeavesASingleOrphanSeat)
{
    // Row A: 1..6 with 1 taken, only row. Taking 2 seats at 2-3 would leave... 4,5,6 (fine); at 3-4 would orphan 2.
    const auto seats = room(1, 6, {QStringLiteral("A1")});
    const QStringList best = pick(seats, 2);
    ASSERT_EQ(best.size(), 2);
    // Any answer must leave no single free seat: check it.
    QList<int> freeSeats{2, 3, 4, 5, 6};
    for (const QString &id : best)
        freeSeats.removeOne(id.mid(1).toInt());
    for (int n : freeSeats) {
        const bool left = freeSeats.contains(n - 1), right = freeSeats.contains(n + 1);
        EXPECT_TRUE(left || right) << "seat A" << n << " left alone by " << best.join(QLatin1Char(',')).toStdString();
    }
    // Two free seats side by side: taking one of them would strand the other.
    EXPECT_TRUE(pick(room(1, 3, {QStringLiteral("A1")}), 1).isEmpty());
    // A2, A3, A4 free, one wanted: A3 would strand both neighbours; A2 (nearer the centre than A4) leaves a pair.
    EXPECT_EQ(pick(room(1, 4, {QStringLiteral("A1")}), 1), QStringList{QStringLiteral("A2")});
    EXPECT_TRUE(pick(room(1, 4, {QStringLiteral("A1")}), 2).isEmpty()) << "taking A2-A3 or A3-A4 strands a single seat";
}

TEST(BestAvailable, NeverSplitsAcrossRowsOrAisles)
{
    // Only A9, A10 and B1 free: three seats are not together anywhere.
    QStringList taken;
    for (int n = 1; n <= 8; ++n)
        taken << QStringLiteral("A%1").arg(n);
    for (int n = 2; n <= 10; ++n)
        taken << QStringLiteral("B%1").arg(n);
    EXPECT_TRUE(pick(room(2, 10, taken), 3).isEmpty());

    // An aisle (a wide gap) between seats 5 and 6 breaks adjacency.
    auto seats = room(1, 10);
    for (auto &s : seats)
        if (s.seat.number > 5)
            s.seat.x += 25;
    for (auto &s : seats)
        s.available = s.seat.number == 4 || s.seat.number == 5 || s.seat.number == 6 || s.seat.number == 7;
    const QStringList four = pick(seats, 4);
    EXPECT_TRUE(four.isEmpty()) << four.join(QLatin1Char(',')).toStdString();
}

TEST(BestAvailable, WheelchairSpacesOnlyWhenAsked)
{
    auto seats = room(1, 6);
    for (auto &s : seats)
        if (s.seat.number == 3 || s.seat.number == 4) // the central seats are wheelchair spaces
            s.seat.attributes = QStringList{QStringLiteral("wheelchair")};
    const QStringList normal = pick(seats, 2);
    ASSERT_EQ(normal.size(), 2);
    for (const QString &id : normal)
        EXPECT_FALSE(id == QStringLiteral("A3") || id == QStringLiteral("A4")) << id.toStdString();
    const QStringList accessible = pick(seats, 2, {}, true);
    ASSERT_EQ(accessible.size(), 2);
    EXPECT_TRUE(accessible.contains(QStringLiteral("A3")) || accessible.contains(QStringLiteral("A4")));
}

TEST(BestAvailable, NearAPointAndExcluding)
{
    BestAvailableRequest request;
    request.count = 2;
    request.near = QPointF(80, 0); // near A8 of row A
    request.exclude = {QStringLiteral("A8")};
    const QStringList best = bestAvailable(room(3, 10), request);
    ASSERT_EQ(best.size(), 2);
    EXPECT_FALSE(best.contains(QStringLiteral("A8")));
    // Sideways distance counts most: B7-B8 (right behind) beats A9-A10 or A6-A7 (two seats to the side).
    EXPECT_EQ(best, (QStringList{QStringLiteral("B7"), QStringLiteral("B8")}));
}

TEST(BestAvailable, RefusesNonsense)
{
    EXPECT_TRUE(pick(room(2, 4), 0).isEmpty());
    EXPECT_TRUE(pick(room(2, 4), 5).isEmpty());
    EXPECT_TRUE(pick({}, 2).isEmpty());
}
