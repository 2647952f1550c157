// SPDX-License-Identifier: AGPL-3.0-or-later
// The manager's sales and occupancy reports against generated sales (issue 7 §4, §5): every grouping is compared
// with totals the test keeps itself while selling through the real API.
#include "tilltesthelpers.h"

#include "core/isotime.h"

#include <QMap>
#include <QRandomGenerator>
#include <QTimeZone>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {
struct Totals {
    qint64 revenue = 0;
    qint64 tickets = 0;
    qint64 bookings = 0;
    qint64 refunds = 0;
    qint64 refunded = 0;
    bool operator==(const Totals &) const = default;
};

void PrintTo(const Totals &t, std::ostream *os)
{
    *os << "{revenue " << t.revenue << ", tickets " << t.tickets << ", bookings " << t.bookings << ", refunds " << t.refunds << ", refunded "
        << t.refunded << "}";
}

// The report's rows as key → totals (every row must be in EUR, the only currency sold here).
QMap<QString, Totals> reportRows(HttpClient &manager, const QByteArray &query)
{
    QMap<QString, Totals> rows;
    const HttpResult result = manager.get("/api/v1/reports/sales?" + query);
    EXPECT_EQ(result.status, 200) << result.body.toStdString();
    for (const QJsonValue &value : result.json().value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = value.toObject();
        EXPECT_EQ(row.value(QStringLiteral("currency")).toString(), QStringLiteral("EUR"));
        EXPECT_EQ(row.value(QStringLiteral("net_minor")).toInteger(),
                  row.value(QStringLiteral("revenue_minor")).toInteger() - row.value(QStringLiteral("refunds_minor")).toInteger());
        const QJsonValue key = row.value(QStringLiteral("key"));
        rows.insert(key.isString() ? key.toString() : key.isNull() ? QStringLiteral("none") : QString::number(key.toInteger()),
                    Totals{row.value(QStringLiteral("revenue_minor")).toInteger(), row.value(QStringLiteral("tickets")).toInteger(),
                           row.value(QStringLiteral("bookings")).toInteger(), row.value(QStringLiteral("refunds")).toInteger(),
                           row.value(QStringLiteral("refunds_minor")).toInteger()});
    }
    return rows;
}
} // namespace

TEST(Reports, SalesReportMatchesGeneratedSalesInEveryGrouping)
{
    Till till;
    const qint64 secondShow = till.server.createShow(4, 6);
    const qint64 firstMovie = till.server.scalar(QStringLiteral("SELECT movie_id FROM shows WHERE show_id = %1").arg(till.showId)).toLongLong();
    const qint64 secondMovie = till.server.lastMovieId();
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    auto tillDevice = till.server.client(till.server.deviceToken(QStringLiteral("till")));
    const qint64 kioskId = till.server.scalar(QStringLiteral("SELECT device_id FROM devices WHERE role = 'kiosk'")).toLongLong();
    const qint64 tillId = till.server.scalar(QStringLiteral("SELECT device_id FROM devices WHERE role = 'till'")).toLongLong();
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    ASSERT_EQ(cashier->post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), 0}, {QStringLiteral("currency"), QStringLiteral("EUR")},
                                                          {QStringLiteral("device_id"), tillId}}).status, 201);
    auto manager = till.server.client(till.server.elevatedStaffToken(QStringLiteral("manager")));

    // Sell every seat of both shows in 1..3-seat bookings, each through a random seller, dated a random day of
    // the last five; then refund every fifth booking today.
    struct Seller {
        HttpClient *client;
        QString channel;
        QString device; ///< the device key of the report ("none": no device)
        bool card;
    };
    const std::vector<Seller> sellers = {{kiosk.get(), QStringLiteral("kiosk"), QString::number(kioskId), true},
                                         {tillDevice.get(), QStringLiteral("till"), QString::number(tillId), false},
                                         {cashier.get(), QStringLiteral("till"), QString::number(tillId), false},
                                         {manager.get(), QStringLiteral("api"), QStringLiteral("none"), false}};
    QRandomGenerator random(7);
    QMap<QString, Totals> byDay, byShow, byMovie, byChannel, byDevice;
    const QDate today = QDateTime::currentDateTimeUtc().date();
    int sold = 0;
    for (const qint64 show : {till.showId, secondShow}) {
        QStringList seats;
        for (const char row : {'A', 'B', 'C', 'D'})
            for (int n = 1; n <= 6; ++n)
                seats << QStringLiteral("%1%2").arg(QLatin1Char(row)).arg(n);
        while (!seats.isEmpty()) {
            const int size = qMin<int>(seats.size(), 1 + random.bounded(3));
            const QStringList chosen = seats.mid(0, size);
            seats = seats.mid(size);
            const Seller &seller = sellers[random.bounded(int(sellers.size()))];
            qint64 amount = 0;
            for (const QString &seat : chosen)
                amount += seat.startsWith(QLatin1Char('C')) || seat.startsWith(QLatin1Char('D')) ? kPremium : kStandard;
            QJsonObject booking;
            if (seller.card) {
                const HttpResult created = till.order(*seller.client, till.hold(*seller.client, chosen, show), {});
                ASSERT_EQ(created.status, 201) << created.body.toStdString();
                ASSERT_EQ(till.sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
                const HttpResult confirmed = till.confirm(*seller.client, created.json());
                ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
                booking = confirmed.json();
            } else {
                booking = till.sellCash(*seller.client, chosen, amount, show);
            }
            const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
            ASSERT_FALSE(bookingId.isEmpty());
            const QDate day = today.addDays(-random.bounded(5));
            till.server.scalar(QStringLiteral("UPDATE bookings SET created_at = '%1T12:00:00Z' WHERE booking_id = '%2' RETURNING 1")
                                   .arg(day.toString(Qt::ISODate), bookingId));
            const Totals sale{amount, size, 1, 0, 0};
            const QString movieKey = QString::number(show == till.showId ? firstMovie : secondMovie);
            for (auto [map, key] : {std::pair{&byDay, day.toString(Qt::ISODate)}, std::pair{&byShow, QString::number(show)},
                                    std::pair{&byMovie, movieKey}, std::pair{&byChannel, seller.channel}, std::pair{&byDevice, seller.device}}) {
                Totals &t = (*map)[key];
                t.revenue += sale.revenue;
                t.tickets += sale.tickets;
                t.bookings += 1;
            }
            if (++sold % 5 == 0) {
                const HttpResult cancelled = manager->post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel", QJsonObject{});
                ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
                // Refunds count on the day they were asked for, and with their booking's show, movie, channel, device.
                for (auto [map, key] : {std::pair{&byDay, today.toString(Qt::ISODate)}, std::pair{&byShow, QString::number(show)},
                                        std::pair{&byMovie, movieKey}, std::pair{&byChannel, seller.channel}, std::pair{&byDevice, seller.device}}) {
                    (*map)[key].refunds += 1;
                    (*map)[key].refunded += amount;
                }
            }
        }
    }
    ASSERT_GT(sold, 16);
    const QByteArray range = "from=" + today.addDays(-10).toString(Qt::ISODate).toUtf8() + "&to=" + today.toString(Qt::ISODate).toUtf8();
    EXPECT_EQ(reportRows(*manager, range + "&group_by=day"), byDay);
    EXPECT_EQ(reportRows(*manager, range + "&group_by=show"), byShow);
    EXPECT_EQ(reportRows(*manager, range + "&group_by=movie"), byMovie);
    EXPECT_EQ(reportRows(*manager, range + "&group_by=channel"), byChannel);
    EXPECT_EQ(reportRows(*manager, range + "&group_by=device"), byDevice);

    // A narrower range keeps only its days (and today's refunds only when today is inside it).
    const QDate yesterday = today.addDays(-1);
    const QMap<QString, Totals> oneDay = reportRows(*manager, "from=" + yesterday.toString(Qt::ISODate).toUtf8() + "&to=" + yesterday.toString(Qt::ISODate).toUtf8());
    if (byDay.contains(yesterday.toString(Qt::ISODate)))
        EXPECT_EQ(oneDay, (QMap<QString, Totals>{{yesterday.toString(Qt::ISODate), byDay.value(yesterday.toString(Qt::ISODate))}}));
    else
        EXPECT_TRUE(oneDay.isEmpty());
    // Labels name things.
    const QJsonArray movies = manager->get("/api/v1/reports/sales?" + range + "&group_by=movie").json().value(QStringLiteral("rows")).toArray();
    ASSERT_FALSE(movies.isEmpty());
    EXPECT_TRUE(movies.first()[QStringLiteral("label")].toString().startsWith(QStringLiteral("Test Movie")));
}

TEST(Reports, BadReportParametersAreRefused)
{
    TestServer server;
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    EXPECT_EQ(manager->get("/api/v1/reports/sales").status, 200); // the last 30 days by day
    for (const QByteArray &query : {QByteArrayLiteral("group_by=week"), QByteArrayLiteral("group_by="), QByteArrayLiteral("from=yesterday"),
                                    QByteArrayLiteral("from=2026-02-30"), QByteArrayLiteral("to=2026-01-01junk"), QByteArrayLiteral("from=2026-05-02&to=2026-05-01"),
                                    QByteArrayLiteral("from=2020-01-01&to=2026-01-01"), QByteArrayLiteral("from=2026-01-01T10:00:00")}) {
        const HttpResult result = manager->get("/api/v1/reports/sales?" + query);
        EXPECT_API_ERROR(result, 400, "invalid_query");
    }
    EXPECT_API_ERROR(manager->get("/api/v1/reports/occupancy"), 400, "invalid_query");
    EXPECT_API_ERROR(manager->get("/api/v1/reports/occupancy?show_id=-3"), 400, "invalid_query");
    EXPECT_API_ERROR(manager->get("/api/v1/reports/occupancy?show_id=abc"), 400, "invalid_query");
    EXPECT_API_ERROR(manager->get("/api/v1/reports/occupancy?show_id=987654"), 404, "show_not_found");
    EXPECT_API_ERROR(manager->get("/api/v1/reports/shifts?limit=0"), 400, "invalid_query");
    EXPECT_API_ERROR(server.client(server.staffToken())->get("/api/v1/reports/sales"), 403, "forbidden");
}

TEST(Reports, OccupancyCountsTiersAndTheOrderSeatsSold)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    auto manager = till.server.client(till.server.staffToken(QStringLiteral("manager")));
    till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    till.sellCash(*cashier, {QStringLiteral("A1")}, kStandard);
    till.sellCash(*cashier, {QStringLiteral("D6")}, kPremium);
    till.hold(*cashier, {QStringLiteral("B2"), QStringLiteral("B3")});
    ASSERT_EQ(manager->post("/api/v1/shows/" + QByteArray::number(till.showId) + "/house-holds",
                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("D1")}}, {QStringLiteral("reason"), QStringLiteral("critic")}}).status, 200);

    const HttpResult result = manager->get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(till.showId));
    ASSERT_EQ(result.status, 200) << result.body.toStdString();
    const QJsonObject report = result.json();
    EXPECT_EQ(field(report, "capacity"), 24);
    EXPECT_EQ(field(report, "sold"), 4);
    EXPECT_EQ(field(report, "held"), 2);
    EXPECT_EQ(field(report, "house_held"), 1);
    EXPECT_EQ(field(report, "free"), 24 - 4 - 2 - 1);
    QMap<QString, QJsonObject> tiers;
    for (const QJsonValue &tier : report.value(QStringLiteral("tiers")).toArray())
        tiers.insert(tier[QStringLiteral("tier")].toString(), tier.toObject());
    ASSERT_EQ(tiers.size(), 2);
    EXPECT_EQ(field(tiers.value(QStringLiteral("premium")), "capacity"), 12);
    EXPECT_EQ(field(tiers.value(QStringLiteral("premium")), "sold"), 3);
    EXPECT_EQ(field(tiers.value(QStringLiteral("premium")), "house_held"), 1);
    EXPECT_EQ(field(tiers.value(QStringLiteral("standard")), "sold"), 1);
    EXPECT_EQ(field(tiers.value(QStringLiteral("standard")), "held"), 2);

    QMap<QString, QJsonObject> seats;
    for (const QJsonValue &seat : report.value(QStringLiteral("seats")).toArray())
        seats.insert(seat[QStringLiteral("seat_id")].toString(), seat.toObject());
    ASSERT_EQ(seats.size(), 24);
    EXPECT_EQ(field(seats.value(QStringLiteral("C3")), "sell_order"), 1);
    EXPECT_EQ(field(seats.value(QStringLiteral("C4")), "sell_order"), 1);
    EXPECT_EQ(field(seats.value(QStringLiteral("A1")), "sell_order"), 2);
    EXPECT_EQ(field(seats.value(QStringLiteral("D6")), "sell_order"), 3);
    EXPECT_LT(fromIso(seats.value(QStringLiteral("C3")).value(QStringLiteral("sold_at")).toString()),
              fromIso(seats.value(QStringLiteral("D6")).value(QStringLiteral("sold_at")).toString()));
    EXPECT_EQ(seats.value(QStringLiteral("B2")).value(QStringLiteral("state")).toString(), QStringLiteral("held"));
    EXPECT_EQ(seats.value(QStringLiteral("D1")).value(QStringLiteral("state")).toString(), QStringLiteral("house"));
    EXPECT_EQ(seats.value(QStringLiteral("A2")).value(QStringLiteral("state")).toString(), QStringLiteral("free"));
    EXPECT_TRUE(seats.value(QStringLiteral("A2")).value(QStringLiteral("sell_order")).isNull());
}
