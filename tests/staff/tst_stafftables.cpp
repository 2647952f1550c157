// SPDX-License-Identifier: AGPL-3.0-or-later
// The till's and desk's pure parts: JsonTableModel (sort, filter, CSV), cash suggestions, the drawer pulse, the show form's validation and the print data of a booking.
#include "deskcontroller.h"
#include "jsontablemodel.h"
#include "tillsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTimeZone>
#include <gtest/gtest.h>

using namespace marquee::app;
using Kind = JsonTableModel::Kind;

namespace {
JsonTableModel *salesTable(QObject *parent)
{
    auto *model = new JsonTableModel(parent);
    model->setColumns({{QStringLiteral("label"), QStringLiteral("Show"), Kind::Text, 100},
                       {QStringLiteral("tickets"), QStringLiteral("Tickets"), Kind::Integer, 80},
                       {QStringLiteral("revenue_minor"), QStringLiteral("Revenue"), Kind::Money, 80}});
    model->setRows(QJsonArray{QJsonObject{{"label", "Dune, 19:30"}, {"tickets", 9}, {"revenue_minor", 11250}, {"currency", "EUR"}},
                              QJsonObject{{"label", "Alien \"Romulus\""}, {"tickets", 12}, {"revenue_minor", 900}, {"currency", "EUR"}},
                              QJsonObject{{"label", "Wicked"}, {"tickets", 3}, {"revenue_minor", 100000}, {"currency", "EUR"}}});
    return model;
}

QStringList column(const JsonTableModel &model, int column)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out.append(model.cellText(row, column));
    return out;
}
} // namespace

TEST(JsonTable, SortsMoneyAsIntegersNotText)
{
    QObject owner;
    JsonTableModel *model = salesTable(&owner);
    model->sortBy(2);
    EXPECT_EQ(model->rowAt(0).value("label").toString(), QStringLiteral("Alien \"Romulus\""));
    EXPECT_EQ(model->rowAt(2).value("label").toString(), QStringLiteral("Wicked"));
    model->sortBy(2); // again: descending
    EXPECT_FALSE(model->sortAscending());
    EXPECT_EQ(model->rowAt(0).value("label").toString(), QStringLiteral("Wicked"));
    model->sortBy(1);
    EXPECT_EQ(column(*model, 1), (QStringList{"3", "9", "12"}));
}

TEST(JsonTable, FilterMatchesShownTextCaseInsensitively)
{
    QObject owner;
    JsonTableModel *model = salesTable(&owner);
    model->setFilterText(QStringLiteral("dune"));
    ASSERT_EQ(model->count(), 1);
    EXPECT_EQ(model->totalCount(), 3);
    EXPECT_EQ(model->rowAt(0).value("tickets").toInt(), 9);
    model->setFilterText(QStringLiteral("zzz"));
    EXPECT_EQ(model->count(), 0);
    model->setFilterText({});
    EXPECT_EQ(model->count(), 3);
}

TEST(JsonTable, CsvQuotesFieldsAndKeepsRawMinorUnits)
{
    QObject owner;
    JsonTableModel *model = salesTable(&owner);
    const QString csv = model->csv();
    EXPECT_EQ(csv, QStringLiteral("label,tickets,revenue_minor\r\n"
                                  "\"Dune, 19:30\",9,11250\r\n"
                                  "\"Alien \"\"Romulus\"\"\",12,900\r\n"
                                  "Wicked,3,100000\r\n"));
    // The export is what is shown: filtered rows only.
    model->setFilterText(QStringLiteral("wicked"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sales.csv"));
    ASSERT_TRUE(model->exportCsv(path));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), QByteArray("label,tickets,revenue_minor\r\nWicked,3,100000\r\n"));
    EXPECT_FALSE(model->exportCsv(dir.filePath(QStringLiteral("missing/dir/x.csv"))));
    EXPECT_FALSE(model->errorString().isEmpty());
}

TEST(JsonTable, ExposesColumnsAsRolesForListViews)
{
    QObject owner;
    JsonTableModel *model = salesTable(&owner);
    const QHash<int, QByteArray> roles = model->roleNames();
    const int ticketsRole = roles.key("tickets", -1);
    ASSERT_GE(ticketsRole, 0);
    EXPECT_EQ(model->data(model->index(2, 0), ticketsRole).toInt(), 3);
    EXPECT_EQ(model->values(QStringLiteral("tickets")), (QVariantList{9, 12, 3}));
}

TEST(TillAmounts, CashSuggestionsAreTheNextRoundSumsAboveTheTotalByTheCurrencysExponent)
{
    // 23.50 in a two-decimal currency: 25, 30, 40, 50 (100 is the fifth and is left out).
    EXPECT_EQ(cashSuggestionsMinor(2350), (QList<qint64>{2500, 3000, 4000, 5000}));
    // 20.00 exactly: fives, tens and twenties make the exact amount (the "exact" button), so 50 and 100 remain.
    EXPECT_EQ(cashSuggestionsMinor(2000), (QList<qint64>{5000, 10000}));
    // 803 yen (no minor digits) and 1.250 dinar (three).
    EXPECT_EQ(cashSuggestionsMinor(803, 0), (QList<qint64>{805, 810, 820, 850}));
    EXPECT_EQ(cashSuggestionsMinor(1250, 3), (QList<qint64>{5000, 10000, 20000, 50000}));
    EXPECT_TRUE(cashSuggestionsMinor(0).isEmpty());
}

TEST(TillPrinting, DrawerKickIsEscPosPulseOnPinTwo)
{
    EXPECT_EQ(drawerKickCommand(), QByteArray::fromHex("1b7000" "19fa"));
}

TEST(TillPrinting, BookingPrintSplitsSeatIdsAndSharesTheTotalWithoutAMap)
{
    const QJsonObject show{{"show_id", 4}, {"title", "Dune"}, {"starts_at", "2026-12-01T19:30:00.000Z"}, {"currency", "EUR"},
                           {"venue", QJsonObject{{"name", "Centrum"}}}, {"screen", QJsonObject{{"name", "Screen 1"}}}};
    const QJsonObject booking{{"booking_ref", "ABC123"}, {"amount_minor", 2500}, {"currency", "EUR"},
                              {"tickets", QJsonArray{QJsonObject{{"ticket_id", "t1"}, {"seat_id", "F7"}, {"qr", "MQ1.a.b"}},
                                                     QJsonObject{{"ticket_id", "t2"}, {"seat_id", "F8"}, {"qr", "MQ1.c.d"}}}}};
    const BookingPrint print = bookingPrintFor(show, booking, nullptr, QStringLiteral("Cash"));
    EXPECT_EQ(print.title, QStringLiteral("Dune"));
    EXPECT_EQ(print.screen, QStringLiteral("Screen 1"));
    EXPECT_EQ(print.bookingRef, QStringLiteral("ABC123"));
    ASSERT_EQ(print.tickets.size(), 2);
    EXPECT_EQ(print.tickets[0].row, QStringLiteral("F"));
    EXPECT_EQ(print.tickets[0].number, 7);
    EXPECT_EQ(print.tickets[0].priceMinor + print.tickets[1].priceMinor, 2500);
    EXPECT_EQ(print.tickets[1].qr, QStringLiteral("MQ1.c.d"));
}

TEST(DeskShowForm, BuildsTheApiBodyAndRefusesBadFields)
{
    QString error;
    const DeskController::ShowForm create{true, QTimeZone("Asia/Kolkata"), QStringLiteral("INR")};
    const DeskController::ShowForm edit{false, QTimeZone("Asia/Kolkata"), QStringLiteral("INR")};
    const auto body = DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"}, {"currency", "eur"},
                                                {"price_tiers", QVariantMap{{"standard", "12.50"}, {"premium", "18"}}}},
                                               create, &error);
    ASSERT_TRUE(body) << qPrintable(error);
    EXPECT_EQ(body->value("movie_id").toInteger(), 3);
    EXPECT_EQ(body->value("currency").toString(), QStringLiteral("EUR"));
    EXPECT_EQ(body->value("price_tiers").toObject().value("standard").toInteger(), 1250);
    EXPECT_EQ(body->value("price_tiers").toObject().value("premium").toInteger(), 1800);
    // The time typed is the venue's wall-clock time, whatever this machine's zone: 19:30 in Pune is 14:00 UTC.
    EXPECT_EQ(body->value("starts_at").toString(), QStringLiteral("2026-12-05T14:00:00.000Z"));

    EXPECT_FALSE(DeskController::showBody({{"movie_id", 3}, {"starts_at", "2026-12-05 19:30"}, {"currency", "EUR"}}, create, &error));
    EXPECT_FALSE(DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "tomorrow"}, {"currency", "EUR"},
                                           {"price_tiers", QVariantMap{{"standard", "12"}}}},
                                          create, &error));
    EXPECT_FALSE(DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"}, {"currency", "EURO"},
                                           {"price_tiers", QVariantMap{{"standard", "12"}}}},
                                          create, &error));
    EXPECT_FALSE(DeskController::showBody({{"price_tiers", QVariantMap{{"standard", "twelve"}}}}, edit, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("twelve")));
    // An edit sends only what changes.
    const auto changes = DeskController::showBody({{"waiting_room", true}, {"reason", "busy premiere"}}, edit, &error);
    ASSERT_TRUE(changes);
    EXPECT_EQ(changes->keys(), (QStringList{"reason", "waiting_room"}));
}

TEST(DeskShowForm, NewShowsTakeTheVenuesCurrencyAndItsDecimals)
{
    QString error;
    // No currency typed: the venue's default goes in the body, and prices are read by its exponent.
    const auto rupees = DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"}, {"currency", ""},
                                                  {"price_tiers", QVariantMap{{"standard", "250"}}}},
                                                 {true, QTimeZone("Asia/Kolkata"), QStringLiteral("INR")}, &error);
    ASSERT_TRUE(rupees) << qPrintable(error);
    EXPECT_EQ(rupees->value("currency").toString(), QStringLiteral("INR"));
    EXPECT_EQ(rupees->value("price_tiers").toObject().value("standard").toInteger(), 25000);
    const auto yen = DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"},
                                               {"price_tiers", QVariantMap{{"standard", "1800"}}}},
                                              {true, QTimeZone("Asia/Tokyo"), QStringLiteral("JPY")}, &error);
    ASSERT_TRUE(yen) << qPrintable(error);
    EXPECT_EQ(yen->value("price_tiers").toObject().value("standard").toInteger(), 1800);
    EXPECT_EQ(yen->value("starts_at").toString(), QStringLiteral("2026-12-05T10:30:00.000Z"));
    EXPECT_FALSE(DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"},
                                           {"price_tiers", QVariantMap{{"standard", "18.50"}}}},
                                          {true, QTimeZone("Asia/Tokyo"), QStringLiteral("JPY")}, &error));
    // Nothing known and nothing typed: no currency in the body, the server takes the venue's.
    const auto unknown = DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", "2026-12-05 19:30"},
                                                   {"price_tiers", QVariantMap{{"standard", "12"}}}},
                                                  {true, QTimeZone("Asia/Kolkata"), QString()}, &error);
    ASSERT_TRUE(unknown) << qPrintable(error);
    EXPECT_FALSE(unknown->contains("currency"));
}

TEST(DeskShowForm, StartsAreReadInTheVenuesZoneAcrossDaylightSaving)
{
    QString error;
    const DeskController::ShowForm berlin{true, QTimeZone("Europe/Berlin"), QStringLiteral("EUR")};
    auto starts = [&](const char *typed) {
        const auto body = DeskController::showBody({{"movie_id", 3}, {"screen_id", 2}, {"starts_at", QString::fromLatin1(typed)},
                                                    {"price_tiers", QVariantMap{{"standard", "12"}}}},
                                                   berlin, &error);
        return body ? body->value("starts_at").toString() : QString();
    };
    EXPECT_EQ(starts("2026-03-28 20:00"), QStringLiteral("2026-03-28T19:00:00.000Z")); // CET
    EXPECT_EQ(starts("2026-03-29 20:00"), QStringLiteral("2026-03-29T18:00:00.000Z")); // CEST
    // The hour the clocks skip is refused, saying why.
    EXPECT_TRUE(starts("2026-03-29 02:30").isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("clocks go forward"))) << qPrintable(error);
    // The hour that happens twice is its first occurrence (CEST).
    EXPECT_EQ(starts("2026-10-25 02:30"), QStringLiteral("2026-10-25T00:30:00.000Z"));
}
