// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/money.h"
#include "core/seatstatus.h"
#include "core/role.h"

#include <gtest/gtest.h>
#include <limits>

using namespace marquee;

TEST(Money, AddsOnlySameCurrency)
{
    const Money a{1250, QStringLiteral("EUR")};
    const Money b{75, QStringLiteral("EUR")};
    EXPECT_EQ(a.plus(b), (Money{1325, QStringLiteral("EUR")}));
    EXPECT_FALSE(a.plus(Money{1, QStringLiteral("USD")}).has_value());
}

TEST(Money, RefusesOverflow)
{
    const Money big{std::numeric_limits<qint64>::max(), QStringLiteral("EUR")};
    EXPECT_FALSE(big.plus(Money{1, QStringLiteral("EUR")}).has_value());
    EXPECT_FALSE(big.times(2).has_value());
    EXPECT_EQ((Money{250, QStringLiteral("INR")}).times(4)->minor, 1000);
}

TEST(Money, DecimalTextFollowsCurrencyExponent)
{
    EXPECT_EQ((Money{1250, QStringLiteral("EUR")}).toDecimalString(), QStringLiteral("12.50"));
    EXPECT_EQ((Money{5, QStringLiteral("EUR")}).toDecimalString(), QStringLiteral("0.05"));
    EXPECT_EQ((Money{-105, QStringLiteral("USD")}).toDecimalString(), QStringLiteral("-1.05"));
    EXPECT_EQ((Money{1500, QStringLiteral("JPY")}).toDecimalString(), QStringLiteral("1500"));
    EXPECT_EQ((Money{1500, QStringLiteral("KWD")}).toDecimalString(), QStringLiteral("1.500"));
    EXPECT_EQ((Money{std::numeric_limits<qint64>::min(), QStringLiteral("EUR")}).toDecimalString(),
              QStringLiteral("-92233720368547758.08"));
}

TEST(Money, CurrencyCodes)
{
    EXPECT_TRUE(isCurrencyCode(QStringLiteral("INR")));
    EXPECT_FALSE(isCurrencyCode(QStringLiteral("inr")));
    EXPECT_FALSE(isCurrencyCode(QStringLiteral("EURO")));
    EXPECT_FALSE(isCurrencyCode(QString()));
}

TEST(SeatStatus, RoundTrips)
{
    for (SeatStatus status : {SeatStatus::Available, SeatStatus::Held, SeatStatus::Booked}) {
        EXPECT_EQ(seatStatusFromString(toString(status)), status);
        EXPECT_EQ(seatStatusFromCode(seatStatusCode(status)), status);
    }
    EXPECT_FALSE(seatStatusFromString(QStringLiteral("sold")).has_value());
    EXPECT_FALSE(seatStatusFromCode('x').has_value());
}

TEST(Role, RoundTripsAndMasks)
{
    for (Role role : {Role::Kiosk, Role::Till, Role::Cashier, Role::Manager, Role::Admin})
        EXPECT_EQ(roleFromString(toString(role)), role);
    EXPECT_FALSE(roleFromString(QStringLiteral("root")).has_value());
    EXPECT_TRUE(kManagerRoles & roleBit(Role::Admin));
    EXPECT_FALSE(kManagerRoles & roleBit(Role::Cashier));
    EXPECT_FALSE(kStaffRoles & roleBit(Role::Kiosk));
}
