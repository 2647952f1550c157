// SPDX-License-Identifier: AGPL-3.0-or-later
// Money as people read it: by the currency's exponent and the locale, with integer arithmetic only.
#include "core/money.h"

#include <gtest/gtest.h>
#include <limits>

using namespace marquee;

namespace {
const QLocale kUs(QLocale::English, QLocale::UnitedStates);
const QLocale kIndia(QLocale::English, QLocale::India);
const QLocale kGermany(QLocale::German, QLocale::Germany);
const QString kNbsp = QString(QChar(0x00A0));
} // namespace

TEST(MoneyFormat, ExponentsFollowIso4217)
{
    for (const char *code : {"JPY", "KRW", "ISK", "CLP", "VND", "UGX", "XAF"})
        EXPECT_EQ(currencyExponent(QString::fromLatin1(code)), 0) << code;
    for (const char *code : {"BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD"})
        EXPECT_EQ(currencyExponent(QString::fromLatin1(code)), 3) << code;
    for (const char *code : {"EUR", "USD", "INR", "GBP", "CHF", "XYZ"})
        EXPECT_EQ(currencyExponent(QString::fromLatin1(code)), 2) << code;
}

TEST(MoneyFormat, TwoDecimalCurrencies)
{
    EXPECT_EQ(formatMoney(80000, QStringLiteral("INR"), kIndia), QStringLiteral("₹800.00"));
    EXPECT_EQ(formatMoney(1250, QStringLiteral("USD"), kUs), QStringLiteral("$12.50"));
    EXPECT_EQ(formatMoney(5, QStringLiteral("USD"), kUs), QStringLiteral("$0.05"));
    EXPECT_EQ(formatMoney(1250, QStringLiteral("EUR"), kGermany), QStringLiteral("12,50") + kNbsp + QStringLiteral("€"));
    EXPECT_EQ(formatMoney(123456789, QStringLiteral("EUR"), kGermany), QStringLiteral("1.234.567,89") + kNbsp + QStringLiteral("€"));
    EXPECT_EQ(formatMoney(123456789, QStringLiteral("USD"), kUs), QStringLiteral("$1,234,567.89"));
    // A currency the locale does not use keeps a symbol nobody misreads.
    EXPECT_EQ(formatMoney(80000, QStringLiteral("INR"), kGermany), QStringLiteral("800,00") + kNbsp + QStringLiteral("₹"));
    EXPECT_EQ(formatMoney(1250, QStringLiteral("EUR"), kUs), QStringLiteral("€12.50"));
    EXPECT_EQ(formatMoney(1250, QStringLiteral("CHF"), kUs), QStringLiteral("CHF12.50"));
}

TEST(MoneyFormat, IndianGroupingInLakhsAndCrores)
{
    EXPECT_EQ(formatMoney(1234567800, QStringLiteral("INR"), kIndia), QStringLiteral("₹1,23,45,678.00"));
}

TEST(MoneyFormat, ZeroDecimalCurrencies)
{
    EXPECT_EQ(formatMoney(1500, QStringLiteral("JPY"), kUs), QStringLiteral("¥1,500"));
    EXPECT_EQ(formatMoney(1500, QStringLiteral("JPY"), kGermany), QStringLiteral("1.500") + kNbsp + QStringLiteral("¥"));
    EXPECT_EQ(formatMoney(25000, QStringLiteral("KRW"), kUs), QStringLiteral("KRW25,000"));
    EXPECT_EQ(formatMoney(-1500, QStringLiteral("JPY"), kUs), QStringLiteral("-¥1,500"));
}

TEST(MoneyFormat, ThreeDecimalCurrencies)
{
    EXPECT_EQ(formatMoney(1500, QStringLiteral("KWD"), kUs), QStringLiteral("KWD1.500"));
    EXPECT_EQ(formatMoney(1234567, QStringLiteral("BHD"), kGermany), QStringLiteral("1.234,567") + kNbsp + QStringLiteral("BHD"));
    EXPECT_EQ(formatMoney(7, QStringLiteral("OMR"), kIndia), QStringLiteral("OMR0.007"));
    EXPECT_EQ(formatMoney(-7, QStringLiteral("OMR"), kGermany), QStringLiteral("-0,007") + kNbsp + QStringLiteral("OMR"));
}

TEST(MoneyFormat, NegativeAmounts)
{
    EXPECT_EQ(formatMoney(-500, QStringLiteral("INR"), kIndia), QStringLiteral("-₹5.00"));
    EXPECT_EQ(formatMoney(-1250, QStringLiteral("EUR"), kGermany), QStringLiteral("-12,50") + kNbsp + QStringLiteral("€"));
    EXPECT_EQ(formatMoney(-1, QStringLiteral("USD"), kUs), QStringLiteral("-$0.01"));
    EXPECT_EQ(formatMoney(Money{-123456789, QStringLiteral("USD")}, kUs), QStringLiteral("-$1,234,567.89"));
}

TEST(MoneyFormat, ExtremesAreExact)
{
    // Far beyond what a double holds exactly (2^53): every digit must survive.
    EXPECT_EQ(formatMoney(std::numeric_limits<qint64>::max(), QStringLiteral("USD"), kUs), QStringLiteral("$92,233,720,368,547,758.07"));
    EXPECT_EQ(formatMoney(std::numeric_limits<qint64>::min(), QStringLiteral("EUR"), kGermany),
              QStringLiteral("-92.233.720.368.547.758,08") + kNbsp + QStringLiteral("€"));
    EXPECT_EQ(formatMoney(9007199254740993, QStringLiteral("JPY"), kUs), QStringLiteral("¥9,007,199,254,740,993"));
    EXPECT_EQ(formatMoney(0, QStringLiteral("KWD"), kUs), QStringLiteral("KWD0.000"));
}

TEST(MoneyFormat, CLocaleReadsLikeBritishEnglish)
{
    // A machine without LANG: the same text on the kiosk, the till and the desk, symbol first.
    EXPECT_EQ(formatMoney(80000, QStringLiteral("INR"), QLocale::c()), QStringLiteral("₹800.00"));
    EXPECT_EQ(formatMoney(80000, QStringLiteral("INR"), QLocale::c()),
              formatMoney(80000, QStringLiteral("INR"), QLocale(QLocale::English, QLocale::UnitedKingdom)));
}

TEST(MoneyFormat, ParsesWhatPeopleTypeIntoMinorUnits)
{
    EXPECT_EQ(parseAmountInput(QStringLiteral("40")), 4000);
    EXPECT_EQ(parseAmountInput(QStringLiteral("40.5")), 4050);
    EXPECT_EQ(parseAmountInput(QStringLiteral("40,50")), 4050);
    EXPECT_EQ(parseAmountInput(QStringLiteral(" 1 234.05 ")), 123405);
    EXPECT_EQ(parseAmountInput(QStringLiteral("0.07")), 7);
    EXPECT_EQ(parseAmountInput(QStringLiteral("12.")), 1200);
    EXPECT_FALSE(parseAmountInput(QStringLiteral("")));
    EXPECT_FALSE(parseAmountInput(QStringLiteral("-5")));
    EXPECT_FALSE(parseAmountInput(QStringLiteral("4.005")));
    EXPECT_FALSE(parseAmountInput(QStringLiteral("1e3")));
    EXPECT_FALSE(parseAmountInput(QStringLiteral("12.5.0")));
    EXPECT_FALSE(parseAmountInput(QStringLiteral("abc")));
    EXPECT_EQ(parseAmountInput(QStringLiteral("500"), 0), 500);
}

TEST(MoneyFormat, ParsesTypedAmountsByTheCurrencysExponent)
{
    EXPECT_EQ(parseMoneyInput(QStringLiteral("1500"), QStringLiteral("JPY")), 1500);
    EXPECT_FALSE(parseMoneyInput(QStringLiteral("15.5"), QStringLiteral("JPY")));
    EXPECT_EQ(parseMoneyInput(QStringLiteral("1.5"), QStringLiteral("KWD")), 1500);
    EXPECT_EQ(parseMoneyInput(QStringLiteral("1.234"), QStringLiteral("KWD")), 1234);
    EXPECT_FALSE(parseMoneyInput(QStringLiteral("1.2345"), QStringLiteral("KWD")));
    EXPECT_EQ(parseMoneyInput(QStringLiteral("999999999.99"), QStringLiteral("EUR")), 99999999999);
    EXPECT_FALSE(parseMoneyInput(QStringLiteral("1000000000"), QStringLiteral("EUR")));
    EXPECT_FALSE(parseMoneyInput(QStringLiteral("-5"), QStringLiteral("EUR")));
    EXPECT_FALSE(parseMoneyInput(QStringLiteral("1e3"), QStringLiteral("EUR")));
}

TEST(MoneyFormat, InputTextRoundTrips)
{
    for (const auto &[minor, currency] : {std::pair<qint64, const char *>{1250, "EUR"}, {1500, "JPY"}, {1500, "KWD"}, {7, "BHD"}, {0, "INR"}}) {
        const QString code = QString::fromLatin1(currency);
        EXPECT_EQ(parseMoneyInput(moneyInputText(minor, code), code), minor) << currency;
    }
    EXPECT_EQ(moneyInputText(80000, QStringLiteral("INR")), QStringLiteral("800.00"));
    EXPECT_EQ(moneyInputText(1500, QStringLiteral("JPY")), QStringLiteral("1500"));
}
