// SPDX-License-Identifier: AGPL-3.0-or-later
// The manager's sales and occupancy reports against generated sales: every grouping is compared
// with totals the test keeps itself while selling through the real API.
#include "tilltesthelpers.h"

#include "core/isotime.h"
#include "startup/marqueeserver.h"
#include "store/database.h"
#include "store/showrepository.h"

#include <QElapsedTimer>
#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlQuery>
#include <QThread>
#include <QTimeZone>
#include <QUrl>
#include <atomic>
#include <gtest/gtest.h>
#include <iostream>
#include <thread>

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

namespace {
// The occupancy report as the API sends it and as a fresh computation in PostgreSQL gives it now, byte for byte
// (OccupancyReports sends a kept document while the show's stamp is unchanged). Also how many reports the server
// computed instead of sending one from memory, before and after the request.
struct OccupancyReads {
    QByteArray served;
    QByteArray fresh;
    quint64 computedBefore = 0;
    quint64 computedAfter = 0;
};

OccupancyReads readOccupancy(TestServer &server, HttpClient &manager, qint64 showId)
{
    // A hold written in SQL lapses by the clock alone, so one may lapse during the read (on a loaded machine the
    // read takes long enough for that to happen now and then): the served report must be the fresh one of the
    // moment before the read or of the moment after it.
    store::ReportRepository reports(server.context().database);
    const auto freshBefore = reports.occupancy(showId);
    OccupancyReads reads;
    reads.computedBefore = server.context().occupancyReports.computed();
    const HttpResult result = manager.get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(showId));
    EXPECT_EQ(result.status, 200) << result.body.toStdString();
    reads.served = result.body;
    reads.computedAfter = server.context().occupancyReports.computed();
    const auto freshAfter = reports.occupancy(showId);
    EXPECT_TRUE(freshBefore.has_value() && freshAfter.has_value());
    if (freshBefore && freshAfter)
        reads.fresh = reads.served == freshBefore->json ? freshBefore->json : freshAfter->json;
    return reads;
}

QString seatState(const QByteArray &report, const QString &seatId)
{
    for (const QJsonValue &seat : QJsonDocument::fromJson(report).object().value(QStringLiteral("seats")).toArray())
        if (seat[QStringLiteral("seat_id")].toString() == seatId)
            return seat[QStringLiteral("state")].toString();
    return {};
}
} // namespace

TEST(Reports, OccupancySentFromMemoryIsNeverStaleAfterHoldsSalesHouseHoldsRefundsAndReleases)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    auto manager = till.server.client(till.server.elevatedStaffToken(QStringLiteral("manager")));
    const qint64 otherShow = till.server.createShow(2, 3);

    // Each step changes one seat; the next read must show it (computed again) and equal a fresh computation; a
    // second read with nothing changed in between comes from memory and is the same bytes.
    const auto expectCurrent = [&](const char *step, const QString &seatId, const QString &state) {
        SCOPED_TRACE(step);
        const OccupancyReads changed = readOccupancy(till.server, *manager, till.showId);
        EXPECT_EQ(changed.computedAfter, changed.computedBefore + 1);
        EXPECT_EQ(changed.served, changed.fresh);
        EXPECT_EQ(seatState(changed.served, seatId), state);
        const OccupancyReads again = readOccupancy(till.server, *manager, till.showId);
        EXPECT_EQ(again.computedAfter, again.computedBefore);
        EXPECT_EQ(again.served, again.fresh);
        EXPECT_EQ(again.served, changed.served);
    };
    expectCurrent("first read", QStringLiteral("A1"), QStringLiteral("free"));
    const QString holdId = till.hold(*cashier, {QStringLiteral("A1"), QStringLiteral("A2")});
    expectCurrent("after a hold", QStringLiteral("A1"), QStringLiteral("held"));
    ASSERT_EQ(cashier->del("/api/v1/holds/" + holdId.toUtf8()).status, 200);
    expectCurrent("after its release", QStringLiteral("A1"), QStringLiteral("free"));
    const QJsonObject booking = till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    expectCurrent("after a sale", QStringLiteral("C3"), QStringLiteral("sold"));
    // Another show's sale leaves this show's report in memory.
    till.sellCash(*cashier, {QStringLiteral("A1")}, 100000, otherShow); // tendered: more than any price, change given
    const OccupancyReads untouched = readOccupancy(till.server, *manager, till.showId);
    EXPECT_EQ(untouched.computedAfter, untouched.computedBefore);
    EXPECT_EQ(untouched.served, untouched.fresh);
    ASSERT_EQ(manager->post("/api/v1/shows/" + QByteArray::number(till.showId) + "/house-holds",
                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("D1")}}, {QStringLiteral("reason"), QStringLiteral("critic")}}).status, 200);
    expectCurrent("after a house hold", QStringLiteral("D1"), QStringLiteral("house"));
    const HttpResult cancelled = manager->post("/api/v1/bookings/" + booking.value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel", QJsonObject{});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
    expectCurrent("after the refund", QStringLiteral("C3"), QStringLiteral("free"));
    till.sellCash(*cashier, {QStringLiteral("C3")}, kPremium);
    expectCurrent("after selling the refunded seat again", QStringLiteral("C3"), QStringLiteral("sold"));
    // A write by anything else (another server instance, the reaper) counts too: it bumps the seat's version.
    till.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'held', held_by = gen_random_uuid(), hold_expires_at = now() + interval '1 hour', "
                                      "version = version + 1 WHERE show_id = %1 AND seat_id = 'B6' RETURNING 1").arg(till.showId));
    expectCurrent("after another instance's hold", QStringLiteral("B6"), QStringLiteral("held"));
}

TEST(Reports, OccupancySentFromMemoryFollowsAHoldThatLapsesWithoutAnyWrite)
{
    TestServer::Options options;
    options.holdTtlSeconds = 2;
    options.reaperIntervalMs = 600000; // the lapse must show before anything writes the seat free
    TestServer server(options);
    const qint64 showId = server.createShow(2, 3);
    auto kiosk = server.client(server.deviceToken());
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")})).status, 200);
    const OccupancyReads held = readOccupancy(server, *manager, showId);
    EXPECT_EQ(held.served, held.fresh);
    ASSERT_EQ(seatState(held.served, QStringLiteral("A1")), QStringLiteral("held"));
    const OccupancyReads stillHeld = readOccupancy(server, *manager, showId);
    EXPECT_EQ(stillHeld.computedAfter, stillHeld.computedBefore);

    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    ASSERT_EQ(server.scalar(QStringLiteral("SELECT status::text FROM show_seats WHERE show_id = %1 AND seat_id = 'A1'").arg(showId)).toString(),
              QStringLiteral("held")); // not reaped: only the clock moved
    const OccupancyReads lapsed = readOccupancy(server, *manager, showId);
    EXPECT_EQ(lapsed.computedAfter, lapsed.computedBefore + 1);
    EXPECT_EQ(lapsed.served, lapsed.fresh);
    EXPECT_EQ(seatState(lapsed.served, QStringLiteral("A1")), QStringLiteral("free"));
}

// The report kept in memory is brought up to date from the seats that changed (not computed from scratch) through a
// long random mix of holds, releases, sales, refunds, resales, house holds and their release, and writes made in
// SQL as another server instance would make them (holds, some lapsing a second later without any write, and
// their release) — several changes between two reads, or none. After every read the served bytes equal a fresh
// ReportRepository::occupancy(), and only the first read loaded the show from scratch. One write stays
// uncommitted in another transaction across a read (its transaction is older than sales committed before that
// read) and must show in the first read after its commit.
TEST(Reports, OccupancyKeptInMemoryFollowsARandomMixOfChangesSeatBySeat)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    auto manager = till.server.client(till.server.elevatedStaffToken(QStringLiteral("manager")));
    const qint64 showId = till.server.createShow(6, 8); // 48 seats: rows A-D standard, E-F premium
    const quint32 seed = qEnvironmentVariableIsSet("MARQUEE_TEST_SEED") ? qEnvironmentVariableIntValue("MARQUEE_TEST_SEED") : 20261130u;
    SCOPED_TRACE(testing::Message() << "seed " << seed << " (MARQUEE_TEST_SEED)");
    QRandomGenerator random(seed);

    const auto freeSeats = [&] {
        return till.server.scalar(QStringLiteral("SELECT coalesce(string_agg(seat_id, ',' ORDER BY seat_id), '') FROM show_seats "
                                                 "WHERE show_id = %1 AND status = 'available'").arg(showId))
            .toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
    };
    // The server's hold path may refuse a seat that an SQL write freed behind its back until its seat snapshot
    // hears of it (fail closed), so the API's holds and sales take seats that SQL never wrote.
    QSet<QString> writtenInSql;
    const auto pickSeats = [&](int most, bool forApi = true) {
        QStringList free = freeSeats();
        if (forApi)
            free.removeIf([&](const QString &seat) { return writtenInSql.contains(seat); });
        QStringList picked;
        const int n = std::min<int>(free.size(), 1 + random.bounded(most));
        for (int i = 0; i < n; ++i)
            picked.append(free.takeAt(random.bounded(free.size())));
        return picked;
    };
    const auto takeAny = [&](QStringList &ids) { return ids.takeAt(random.bounded(ids.size())); };
    const quint64 scratchBefore = till.server.context().occupancyReports.loadedFromScratch();
    int reads = 0;
    int changedReads = 0;
    const auto read = [&](const std::string &after) {
        SCOPED_TRACE("read after " + after);
        const OccupancyReads r = readOccupancy(till.server, *manager, showId);
        ++reads;
        changedReads += r.computedAfter > r.computedBefore ? 1 : 0;
        EXPECT_EQ(r.served, r.fresh);
        return r;
    };

    read("nothing");
    QStringList holds, bookings, houseHolds, sqlHeld;
    int steps[8] = {};
    std::string since;
    for (int step = 0; step < 90; ++step) {
        const int kind = random.bounded(8);
        switch (kind) {
        case 0: { // a hold through the API
            const QStringList seats = pickSeats(3);
            if (seats.isEmpty())
                continue;
            holds.append(till.hold(*cashier, seats, showId));
            break;
        }
        case 1: // its release
            if (holds.isEmpty())
                continue;
            ASSERT_EQ(cashier->del("/api/v1/holds/" + takeAny(holds).toUtf8()).status, 200);
            break;
        case 2: { // a cash sale
            const QStringList seats = pickSeats(3);
            if (seats.isEmpty())
                continue;
            bookings.append(till.sellCash(*cashier, seats, 100000, showId).value(QStringLiteral("booking_id")).toString());
            break;
        }
        case 3: { // a refund: its seats are free again and every later sale moves up one place in the sell order
            if (bookings.isEmpty())
                continue;
            const HttpResult cancelled = manager->post("/api/v1/bookings/" + takeAny(bookings).toUtf8() + "/cancel", QJsonObject{});
            ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
            break;
        }
        case 4: { // a house hold
            const QStringList seats = pickSeats(2);
            if (seats.isEmpty())
                continue;
            const HttpResult placed = manager->post("/api/v1/shows/" + QByteArray::number(showId) + "/house-holds",
                                                    QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)},
                                                                {QStringLiteral("reason"), QStringLiteral("press")}});
            ASSERT_EQ(placed.status, 200) << placed.body.toStdString();
            houseHolds.append(placed.json().value(QStringLiteral("hold_id")).toString());
            break;
        }
        case 5: // its release
            if (houseHolds.isEmpty())
                continue;
            ASSERT_EQ(manager->del("/api/v1/house-holds/" + takeAny(houseHolds).toUtf8()).status, 204);
            break;
        case 6: { // another instance's hold, written in SQL; every other one lapses a second later with no write
            const QStringList seats = pickSeats(1, false);
            if (seats.isEmpty())
                continue;
            writtenInSql.insert(seats.first());
            const char *lapse = random.bounded(2) ? "1 second" : "1 hour";
            ASSERT_EQ(till.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'held', held_by = gen_random_uuid(), "
                                                         "hold_expires_at = now() + interval '%1', version = version + 1 "
                                                         "WHERE show_id = %2 AND seat_id = '%3' AND status = 'available' RETURNING 1")
                                              .arg(QLatin1String(lapse)).arg(showId).arg(seats.first())).toInt(), 1);
            sqlHeld.append(seats.first());
            break;
        }
        case 7: // another instance's release, in SQL
            if (sqlHeld.isEmpty())
                continue;
            till.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'available', held_by = NULL, hold_expires_at = NULL, "
                                              "version = version + 1 WHERE show_id = %1 AND seat_id = '%2' AND status = 'held' RETURNING 1")
                                   .arg(showId).arg(takeAny(sqlHeld)));
            break;
        }
        ++steps[kind];
        since += "0123456789"[kind];
        if (random.bounded(3) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(400)); // lets some SQL holds lapse between reads
        if (random.bounded(2) == 0) {
            read(since);
            since += '|';
        }
        if (step == 45) {
            // A write in an open transaction that began before the sale below committed: not in the next read,
            // and in the first read after its commit although its transaction id is older than the sale's.
            const QStringList seat = pickSeats(1, false);
            ASSERT_EQ(seat.size(), 1);
            writtenInSql.insert(seat.first());
            const store::Database other(till.server.databaseConfig());
            {
                store::Transaction open(other.connection());
                ASSERT_TRUE(open.isActive());
                QSqlQuery write(other.connection());
                ASSERT_TRUE(write.exec(QStringLiteral("UPDATE show_seats SET status = 'held', held_by = gen_random_uuid(), "
                                                      "hold_expires_at = now() + interval '1 hour', version = version + 1 "
                                                      "WHERE show_id = %1 AND seat_id = '%2'").arg(showId).arg(seat.first())));
                const QStringList sold = pickSeats(1);
                ASSERT_EQ(sold.size(), 1);
                bookings.append(till.sellCash(*cashier, sold, 100000, showId).value(QStringLiteral("booking_id")).toString());
                const OccupancyReads before = read("a sale beside an open transaction");
                EXPECT_EQ(seatState(before.served, seat.first()), QStringLiteral("free"));
                EXPECT_EQ(seatState(before.served, sold.first()), QStringLiteral("sold"));
                ASSERT_TRUE(open.commit());
            }
            other.closeThreadConnection();
            const OccupancyReads after = read("its commit");
            EXPECT_EQ(seatState(after.served, seat.first()), QStringLiteral("held"));
            sqlHeld.append(seat.first());
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // every SQL hold of a second has lapsed
    const OccupancyReads last = read("the end");
    EXPECT_EQ(last.served, last.fresh);

    // Every kind of change happened, most reads had something to apply, and only the first read loaded the show
    // from scratch: the rest applied the changed seats to what was kept.
    for (int kind = 0; kind < 8; ++kind)
        EXPECT_GE(steps[kind], 3) << "kind " << kind;
    EXPECT_GE(changedReads, 30);
    EXPECT_EQ(till.server.context().occupancyReports.loadedFromScratch(), scratchBefore + 1);
    std::cout << "[          ] " << reads << " reads, " << changedReads << " with changes; steps by kind:";
    for (int count : steps)
        std::cout << ' ' << count;
    std::cout << std::endl;
}

// The sales rollup (011_report_rollups.sql) checked against a from-scratch sum of bookings and refunds.
namespace {
// Every booking and every refund of a booking as one fact with the groupings the report uses (the sales facts on
// the booking row, the seat count from its seats).
const char *kFacts =
    "facts AS ("
    "  SELECT b.created_at AS at, b.show_id, b.movie_id, b.channel, b.device_id, b.currency, b.amount_minor AS revenue, "
    "         cardinality(b.seat_ids)::bigint AS tickets, 1::bigint AS bookings, 0::bigint AS refunds, 0::bigint AS refunded "
    "    FROM bookings b "
    "  UNION ALL "
    "  SELECT r.created_at, b.show_id, b.movie_id, b.channel, b.device_id, r.currency, 0, 0, 0, 1, r.amount_minor "
    "    FROM refunds r JOIN bookings b ON b.booking_id = r.booking_id)";

// The rollup as it must be, written out grouping by grouping.
const QString kScratchRollup = QLatin1String(kFacts) + QStringLiteral(
    ", periods AS (SELECT f.*, g.grain, date_trunc(g.grain, f.at AT TIME ZONE 'UTC')::date AS period_start "
    "                FROM facts f, (VALUES ('day'), ('month')) g(grain)), "
    "scratch AS ("
    "  SELECT 'show' AS dimension, grain, period_start, show_id AS key_id, '' AS key_text, currency, sum(revenue) AS revenue_minor, "
    "         sum(tickets) AS tickets, sum(bookings) AS bookings, sum(refunds) AS refunds, sum(refunded) AS refunds_minor "
    "    FROM periods GROUP BY grain, period_start, show_id, currency "
    "  UNION ALL "
    "  SELECT 'movie', grain, period_start, movie_id, '', currency, sum(revenue), sum(tickets), sum(bookings), sum(refunds), sum(refunded) "
    "    FROM periods GROUP BY grain, period_start, movie_id, currency "
    "  UNION ALL "
    "  SELECT 'channel', grain, period_start, 0, channel, currency, sum(revenue), sum(tickets), sum(bookings), sum(refunds), sum(refunded) "
    "    FROM periods GROUP BY grain, period_start, channel, currency "
    "  UNION ALL "
    "  SELECT 'device', grain, period_start, coalesce(device_id, 0), '', currency, sum(revenue), sum(tickets), sum(bookings), sum(refunds), "
    "         sum(refunded) "
    "    FROM periods GROUP BY grain, period_start, coalesce(device_id, 0), currency), "
    "kept AS ("
    "  SELECT dimension, grain, period_start, key_id, key_text, currency, revenue_minor::numeric, tickets::numeric, bookings::numeric, "
    "         refunds::numeric, refunds_minor::numeric "
    "    FROM sales_rollup_totals WHERE bookings <> 0 OR refunds <> 0) ");

// Rows of the rollup that are not in the from-scratch sum, plus the other way round.
const QString kRollupDifferences = QStringLiteral("WITH ") + kScratchRollup +
    QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM scratch) a) "
                   "     + (SELECT count(*) FROM (SELECT * FROM scratch EXCEPT ALL SELECT * FROM kept) b)");

// The report of [from, to) grouped by @p keySql (an expression over the facts), from scratch.
QMap<QString, Totals> scratchReport(TestServer &server, const QString &keySql, const QDateTime &from, const QDateTime &to)
{
    const QString text = server.scalar(
        QStringLiteral("WITH ") + QLatin1String(kFacts) + QStringLiteral(
            " SELECT coalesce(string_agg(k || ',' || revenue || ',' || tickets || ',' || bookings || ',' || refunds || ',' || refunded, ';'), '') "
            "  FROM (SELECT %1 AS k, sum(revenue) AS revenue, sum(tickets) AS tickets, sum(bookings) AS bookings, sum(refunds) AS refunds, "
            "               sum(refunded) AS refunded "
            "          FROM facts WHERE at >= '%2' AND at < '%3' GROUP BY 1) g")
            .arg(keySql, toIsoUtc(from), toIsoUtc(to))).toString();
    QMap<QString, Totals> rows;
    for (const QString &row : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QStringList f = row.split(QLatin1Char(','));
        rows.insert(f[0], Totals{f[1].toLongLong(), f[2].toLongLong(), f[3].toLongLong(), f[4].toLongLong(), f[5].toLongLong()});
    }
    return rows;
}
} // namespace

namespace {
// A show on sale whose row labels and seat ids need escaping in JSON (a quote, a backslash, a tab): the report's
// seat heads are written from the database's own escaping, and the seats are matched by their unescaped ids.
qint64 createShowWithOddNames(TestServer &server)
{
    store::ShowRepository shows(server.context().database);
    const qint64 venue = *shows.addVenue(server.lastCityId(), QStringLiteral("Odd venue"), QStringLiteral(""));
    store::NewLayout layout;
    layout.name = QStringLiteral("Odd layout");
    layout.width = 100;
    layout.height = 100;
    layout.stage = QJsonObject{{QStringLiteral("label"), QStringLiteral("SCREEN")}};
    const QStringList rows = {QStringLiteral("Q\"\\"), QStringLiteral("T\tab"), QStringLiteral("é")};
    for (int r = 0; r < rows.size(); ++r) {
        layout.rows.push_back({rows[r], 0, 30 + r * 10});
        for (int s = 1; s <= 3; ++s)
            layout.seats.push_back({rows[r] + QString::number(s), rows[r], s, 10 + s * 10, 30 + r * 10,
                                    r == 0 ? QStringLiteral("box \"A\"") : QStringLiteral("standard"), {}});
    }
    store::NewShow show;
    show.movieId = server.lastMovieId();
    show.screenId = *shows.addScreen(venue, QStringLiteral("Odd screen"), *shows.addLayout(layout));
    show.startsAt = QDateTime::currentDateTimeUtc().addDays(2);
    show.salesOpenAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    show.currency = QStringLiteral("EUR");
    show.prices = {{QStringLiteral("standard"), 1250}, {QStringLiteral("box \"A\""), 1800}};
    QString error;
    const auto showId = shows.addShow(show, &error);
    EXPECT_TRUE(showId.has_value()) << error.toStdString();
    return showId.value_or(0);
}
} // namespace

namespace {
// Another server on @p server's database (as after a restart), warming up to @p warmShows shows.
ServerConfig secondServerConfig(TestServer &server, int warmShows)
{
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.threads = 2;
    config.databaseUrl = server.databaseUrl();
    config.dataDirectory = server.dataDirectory();
    config.reconcilerIntervalMs = 0;
    config.occupancyWarmShows = warmShows;
    return config;
}
} // namespace

// A server started with --occupancy-warm-shows loads the reports of the shows on sale in the background: their
// first request is sent from memory (nothing computed) and equals, byte for byte, a fresh computation; a show not
// on sale is not loaded, and its first request loads it (also equal); a change after the warm load is applied to
// it like any other. The shows hold sales, a hold, a house hold and names that need escaping.
TEST(Reports, OccupancyWarmedAtStartEqualsAFreshComputation)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    const QString managerToken = till.server.elevatedStaffToken(QStringLiteral("manager"));
    till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    till.sellCash(*cashier, {QStringLiteral("A1")}, kStandard);
    till.hold(*cashier, {QStringLiteral("B2")});
    auto manager = till.server.client(managerToken);
    ASSERT_EQ(manager->post("/api/v1/shows/" + QByteArray::number(till.showId) + "/house-holds",
                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("D1")}}, {QStringLiteral("reason"), QStringLiteral("critic")}}).status, 200);
    const qint64 oddShow = createShowWithOddNames(till.server);
    ASSERT_GT(oddShow, 0);
    // Held as another instance would write it (seat ids with a tab may never come through the API).
    till.server.scalar(QStringLiteral("UPDATE show_seats SET status = 'held', held_by = gen_random_uuid(), hold_expires_at = now() + interval '1 hour', "
                                      "version = version + 1 WHERE show_id = %1 AND seat_id = E'T\\tab2' RETURNING 1").arg(oddShow));
    const qint64 notOnSale = till.server.createShow(2, 2, QDateTime::currentDateTimeUtc().addDays(3), QDateTime::currentDateTimeUtc().addDays(1));
    EXPECT_EQ(till.server.context().occupancyReports.computed(), 0u); // the till's own server loaded nothing

    MarqueeServer warmed(secondServerConfig(till.server, 10));
    ASSERT_TRUE(warmed.start()) << warmed.errorString().toStdString();
    OccupancyReports &reports = warmed.context().occupancyReports;
    QElapsedTimer waited;
    waited.start();
    while (!reports.warmingDone() && waited.elapsed() < 30000)
        QThread::msleep(20);
    ASSERT_TRUE(reports.warmingDone());
    EXPECT_EQ(reports.warmedShows(), 2);
    EXPECT_EQ(reports.loadedFromScratch(), 2u);

    HttpClient client(QStringLiteral("127.0.0.1"), warmed.port());
    client.setToken(managerToken);
    store::ReportRepository fresh(till.server.context().database);
    const auto expectRead = [&](qint64 showId, quint64 computedMore, const char *what) -> QByteArray {
        SCOPED_TRACE(what);
        const quint64 before = reports.computed();
        const HttpResult result = client.get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(showId));
        EXPECT_EQ(result.status, 200) << result.body.toStdString();
        EXPECT_EQ(reports.computed(), before + computedMore);
        const auto reference = fresh.occupancy(showId);
        EXPECT_TRUE(reference.has_value());
        EXPECT_EQ(result.body, reference ? reference->json : QByteArray());
        return result.body;
    };
    expectRead(till.showId, 0, "warmed show");
    const QByteArray odd = expectRead(oddShow, 0, "warmed show with escaped names");
    EXPECT_EQ(seatState(odd, QStringLiteral("T\tab2")), QStringLiteral("held"));
    EXPECT_TRUE(odd.contains("\"seat_id\" : \"Q\\\"\\\\1\"")) << odd.toStdString();
    expectRead(notOnSale, 1, "show not on sale: loaded by its first request");
    EXPECT_EQ(reports.loadedFromScratch(), 3u);
    till.sellCash(*cashier, {QStringLiteral("D6")}, kPremium);
    expectRead(till.showId, 1, "after a sale");
    EXPECT_EQ(reports.loadedFromScratch(), 3u) << "the change is applied to the warmed show, not loaded again";
}

namespace {
// Another show on the screen of @p showId (so on its layout), on sale, with TestServer::createShow's prices.
qint64 addShowOnTheScreenOf(TestServer &server, qint64 showId, int daysLater)
{
    store::ShowRepository shows(server.context().database);
    store::NewShow show;
    show.movieId = server.scalar(QStringLiteral("SELECT movie_id FROM shows WHERE show_id = %1").arg(showId)).toLongLong();
    show.screenId = server.scalar(QStringLiteral("SELECT screen_id FROM shows WHERE show_id = %1").arg(showId)).toLongLong();
    show.startsAt = QDateTime::currentDateTimeUtc().addDays(daysLater);
    show.salesOpenAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    show.currency = QStringLiteral("EUR");
    show.prices = {{QStringLiteral("standard"), kStandard}, {QStringLiteral("premium"), kPremium}};
    QString error;
    const auto added = shows.addShow(show, &error);
    EXPECT_TRUE(added.has_value()) << error.toStdString();
    return added.value_or(0);
}

// The report of @p showId from @p reports (in this process, no HTTP), and the fresh statement's.
std::pair<QByteArray, QByteArray> reportAndReference(OccupancyReports &reports, const store::Database &database, qint64 showId)
{
    QByteArray json;
    EXPECT_EQ(reports.report(showId, &json), OccupancyReports::Outcome::Ok);
    store::ReportRepository fresh(database);
    const auto reference = fresh.occupancy(showId);
    EXPECT_TRUE(reference.has_value());
    return {json, reference ? reference->json : QByteArray()};
}
} // namespace

// The layout part of the report (seats in order, rows, numbers, tiers) is read once per layout and shared by the
// shows on one screen; each show's states are its own. A show's first report (a cold load: its held and booked
// seats joined with the kept layout) equals, byte for byte, the report kept and brought up to date in memory (a
// warm one) and the fresh statement, including a seat sold after the layout was kept.
TEST(Reports, OccupancyLayoutIsSharedByTheShowsOfAScreenAndAColdLoadEqualsAWarmOne)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    auto manager = till.server.client(till.server.elevatedStaffToken(QStringLiteral("manager")));
    const store::Database &database = till.server.context().database;
    OccupancyReports &served = till.server.context().occupancyReports;
    const qint64 second = addShowOnTheScreenOf(till.server, till.showId, 2);
    const qint64 third = addShowOnTheScreenOf(till.server, till.showId, 3);
    ASSERT_GT(second, 0);
    ASSERT_GT(third, 0);

    // Different states on the two shows: sales and a hold on the first, a house hold on the second.
    till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    till.sellCash(*cashier, {QStringLiteral("A1")}, kStandard);
    till.hold(*cashier, {QStringLiteral("B2")});
    ASSERT_EQ(manager->post("/api/v1/shows/" + QByteArray::number(second) + "/house-holds",
                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("D1")}}, {QStringLiteral("reason"), QStringLiteral("critic")}}).status, 200);

    const quint64 layoutsBefore = served.layoutsLoaded();
    const quint64 scratchBefore = served.loadedFromScratch();
    const OccupancyReads first = readOccupancy(till.server, *manager, till.showId);
    EXPECT_EQ(first.served, first.fresh);
    EXPECT_EQ(served.layoutsLoaded(), layoutsBefore + 1);
    const OccupancyReads other = readOccupancy(till.server, *manager, second);
    EXPECT_EQ(other.served, other.fresh);
    EXPECT_EQ(served.loadedFromScratch(), scratchBefore + 2);
    EXPECT_EQ(served.layoutsLoaded(), layoutsBefore + 1) << "the second show on the screen reads no layout";
    EXPECT_EQ(seatState(first.served, QStringLiteral("C3")), QStringLiteral("sold"));
    EXPECT_EQ(seatState(other.served, QStringLiteral("C3")), QStringLiteral("free"));
    EXPECT_EQ(seatState(first.served, QStringLiteral("B2")), QStringLiteral("held"));
    EXPECT_EQ(seatState(other.served, QStringLiteral("D1")), QStringLiteral("house"));
    EXPECT_EQ(seatState(first.served, QStringLiteral("D1")), QStringLiteral("free"));

    // Sold after the layout was kept: on a show already kept (applied as a change) and on one never read (a cold load
    // on the kept layout). Neither touches the other shows' states.
    till.sellCash(*cashier, {QStringLiteral("A2")}, kStandard, second);
    till.sellCash(*cashier, {QStringLiteral("D6"), QStringLiteral("D5")}, 2 * kPremium, third);
    const OccupancyReads otherAfterSale = readOccupancy(till.server, *manager, second);
    EXPECT_EQ(otherAfterSale.served, otherAfterSale.fresh);
    EXPECT_EQ(seatState(otherAfterSale.served, QStringLiteral("A2")), QStringLiteral("sold"));
    const OccupancyReads thirdCold = readOccupancy(till.server, *manager, third);
    EXPECT_EQ(thirdCold.served, thirdCold.fresh);
    EXPECT_EQ(seatState(thirdCold.served, QStringLiteral("D6")), QStringLiteral("sold"));
    EXPECT_EQ(seatState(thirdCold.served, QStringLiteral("D1")), QStringLiteral("free"));
    EXPECT_EQ(served.loadedFromScratch(), scratchBefore + 3);
    EXPECT_EQ(served.layoutsLoaded(), layoutsBefore + 1);
    const OccupancyReads firstAgain = readOccupancy(till.server, *manager, till.showId);
    EXPECT_EQ(firstAgain.computedAfter, firstAgain.computedBefore) << "other shows' sales leave the first show as it was";
    EXPECT_EQ(firstAgain.served, first.served);
    EXPECT_EQ(seatState(firstAgain.served, QStringLiteral("A2")), QStringLiteral("free"));

    // Cold loads in a new OccupancyReports (nothing kept: layout and states read) equal the warm reports served.
    OccupancyReports cold(database);
    for (const qint64 show : {till.showId, second, third}) {
        SCOPED_TRACE(show);
        const QByteArray warm = readOccupancy(till.server, *manager, show).served;
        const auto [coldJson, reference] = reportAndReference(cold, database, show);
        EXPECT_EQ(coldJson, warm);
        EXPECT_EQ(coldJson, reference);
    }
    EXPECT_EQ(cold.layoutsLoaded(), 1u);
    EXPECT_EQ(cold.loadedFromScratch(), 3u);
}

// First reads of several shows of one screen at once, on a server whose layout reader reads a layout while the
// request reads the show's states: the layout is read once (whichever thread gets to it first, the others wait for
// it), and every report equals the fresh statement.
TEST(Reports, FirstReadsOfTheShowsOfAScreenAtOnceReadTheirLayoutOnce)
{
    Till till;
    const QString managerToken = till.server.elevatedStaffToken(QStringLiteral("manager"));
    OccupancyReports &served = till.server.context().occupancyReports;
    QList<qint64> shows{till.showId};
    for (int day = 2; day <= 6; ++day)
        shows << addShowOnTheScreenOf(till.server, till.showId, day);
    auto cashier = till.server.client(till.server.staffToken());
    till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    const quint64 layoutsBefore = served.layoutsLoaded();

    std::vector<std::thread> readers;
    std::vector<HttpResult> results(size_t(shows.size()));
    for (qsizetype i = 0; i < shows.size(); ++i) {
        readers.emplace_back([&, i] {
            auto client = till.server.client(managerToken);
            results[size_t(i)] = client->get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(shows[i]));
        });
    }
    for (std::thread &reader : readers)
        reader.join();
    EXPECT_EQ(served.layoutsLoaded(), layoutsBefore + 1);
    store::ReportRepository fresh(till.server.context().database);
    for (qsizetype i = 0; i < shows.size(); ++i) {
        SCOPED_TRACE(shows[i]);
        ASSERT_EQ(results[size_t(i)].status, 200) << results[size_t(i)].body.constData();
        const auto reference = fresh.occupancy(shows[i]);
        ASSERT_TRUE(reference.has_value());
        EXPECT_EQ(results[size_t(i)].body, reference->json);
    }
    EXPECT_EQ(seatState(results[0].body, QStringLiteral("C3")), QStringLiteral("sold"));
    EXPECT_EQ(seatState(results[1].body, QStringLiteral("C3")), QStringLiteral("free"));
}

// The 64 MB bound counts a layout once however many shows use it, and stays honest when full: with room for the
// layout and one show only, the least recently used show is forgotten (read again from its states on the kept
// layout) and what is counted never exceeds the bound.
TEST(Reports, OccupancyBoundCountsALayoutOnceAndForgetsShowsBeforeTheLayoutTheyShare)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    const store::Database &database = till.server.context().database;
    const qint64 second = addShowOnTheScreenOf(till.server, till.showId, 2);
    ASSERT_GT(second, 0);
    till.sellCash(*cashier, {QStringLiteral("C3")}, kPremium);
    till.sellCash(*cashier, {QStringLiteral("C3")}, kPremium, second);

    OccupancyReports unbounded(database);
    reportAndReference(unbounded, database, till.showId);
    const qsizetype layoutAndShow = unbounded.keptBytes();
    reportAndReference(unbounded, database, second);
    const qsizetype secondShow = unbounded.keptBytes() - layoutAndShow;
    OccupancyReports secondAlone(database);
    reportAndReference(secondAlone, database, second);
    EXPECT_GT(secondShow, 0);
    EXPECT_GT(secondAlone.keptBytes() - secondShow, 0) << "kept beside the first show, the second adds its states, not the layout again";

    const qsizetype bound = layoutAndShow + secondShow / 2;
    OccupancyReports bounded(database, bound);
    const auto [firstJson, firstReference] = reportAndReference(bounded, database, till.showId);
    EXPECT_EQ(firstJson, firstReference);
    EXPECT_LE(bounded.keptBytes(), bound);
    const auto [secondJson, secondReference] = reportAndReference(bounded, database, second);
    EXPECT_EQ(secondJson, secondReference);
    EXPECT_LE(bounded.keptBytes(), bound);
    EXPECT_EQ(bounded.loadedFromScratch(), 2u);
    const auto [againJson, againReference] = reportAndReference(bounded, database, till.showId);
    EXPECT_EQ(againJson, againReference);
    EXPECT_EQ(againJson, firstJson);
    EXPECT_LE(bounded.keptBytes(), bound);
    EXPECT_EQ(bounded.loadedFromScratch(), 3u) << "the first show was forgotten to make room for the second";
    EXPECT_EQ(bounded.layoutsLoaded(), 1u) << "their layout stayed";
}

// A show whose seats are not its layout's (show_seats edited by hand: one seat gone, a stray one added, same count)
// is not joined with the shared layout: its report is that of its own seats, equal to the fresh statement's.
TEST(Reports, OccupancyOfAShowWhoseSeatsAreNotItsLayoutsEqualsTheFreshStatement)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    const store::Database &database = till.server.context().database;
    const qint64 edited = addShowOnTheScreenOf(till.server, till.showId, 2);
    ASSERT_GT(edited, 0);
    till.sellCash(*cashier, {QStringLiteral("C3")}, kPremium, edited);
    ASSERT_EQ(till.server.scalar(QStringLiteral("WITH gone AS (DELETE FROM show_seats WHERE show_id = %1 AND seat_id = 'A6' RETURNING 1) "
                                                "INSERT INTO show_seats (show_id, seat_id) SELECT %1, 'Z9' FROM gone RETURNING 1").arg(edited)).toInt(), 1);

    OccupancyReports reports(database);
    reportAndReference(reports, database, till.showId); // the layout kept, from the show that is as it was created
    const auto [json, reference] = reportAndReference(reports, database, edited);
    EXPECT_EQ(json, reference);
    EXPECT_EQ(seatState(json, QStringLiteral("C3")), QStringLiteral("sold"));
    EXPECT_EQ(seatState(json, QStringLiteral("A6")), QString());
    EXPECT_EQ(seatState(json, QStringLiteral("Z9")), QString());
    EXPECT_EQ(QJsonDocument::fromJson(json).object().value(QStringLiteral("capacity")).toInt(), 23);
}

// After a restart with warming off (nothing in memory), a show's first report reads its layout from the layout's
// stored copy (one row, 024_layout_report_copy.sql) on a connection the worker thread prepared at start, and is the
// same bytes as the report the running server kept and as the fresh statement — also for names that need escaping.
TEST(Reports, OccupancyAfterARestartWithWarmingOffReadsTheLayoutCopyAndEqualsTheKeptReport)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    const QString managerToken = till.server.elevatedStaffToken(QStringLiteral("manager"));
    auto manager = till.server.client(managerToken);
    till.sellCash(*cashier, {QStringLiteral("C3"), QStringLiteral("C4")}, 2 * kPremium);
    till.sellCash(*cashier, {QStringLiteral("A1")}, kStandard);
    till.hold(*cashier, {QStringLiteral("B2")});
    ASSERT_EQ(manager->post("/api/v1/shows/" + QByteArray::number(till.showId) + "/house-holds",
                            QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("D1")}}, {QStringLiteral("reason"), QStringLiteral("critic")}}).status, 200);
    const qint64 oddShow = createShowWithOddNames(till.server);
    ASSERT_GT(oddShow, 0);
    EXPECT_EQ(till.server.scalar(QStringLiteral("SELECT count(*) FROM layout_report_seats l JOIN screens sc ON sc.layout_id = l.layout_id "
                                                "JOIN shows s ON s.screen_id = sc.screen_id WHERE s.show_id IN (%1, %2)").arg(till.showId).arg(oddShow)).toInt(), 2)
        << "the copies are written with the layouts";
    const QByteArray kept = readOccupancy(till.server, *manager, till.showId).served;
    const QByteArray keptOdd = readOccupancy(till.server, *manager, oddShow).served;

    MarqueeServer restarted(secondServerConfig(till.server, 0));
    ASSERT_TRUE(restarted.start()) << restarted.errorString().toStdString();
    OccupancyReports &reports = restarted.context().occupancyReports;
    HttpClient client(QStringLiteral("127.0.0.1"), restarted.port());
    client.setToken(managerToken);
    store::ReportRepository fresh(till.server.context().database);
    for (const auto &[showId, keptJson] : {std::pair{till.showId, kept}, std::pair{oddShow, keptOdd}}) {
        SCOPED_TRACE(showId);
        const HttpResult first = client.get("/api/v1/reports/occupancy?show_id=" + QByteArray::number(showId));
        EXPECT_EQ(first.status, 200) << first.body.toStdString();
        EXPECT_EQ(first.body, keptJson);
        const auto reference = fresh.occupancy(showId);
        ASSERT_TRUE(reference.has_value());
        EXPECT_EQ(first.body, reference->json);
    }
    EXPECT_EQ(reports.loadedFromScratch(), 2u);
    EXPECT_EQ(reports.layoutsLoaded(), 2u);
    EXPECT_EQ(reports.layoutsFromCopy(), 2u);
    EXPECT_TRUE(store::ReportRepository(till.server.context().database).prepareOccupancy());
}

// A layout's stored copy follows every write of layout_seats (triggers in the same transaction), and a copy that
// disagrees with layout_seats — layout_seats written with the triggers off — is not used: the layout is read from
// layout_seats (and a warning logged), so the report still equals the fresh statement.
TEST(Reports, OccupancyLayoutCopyFollowsLayoutSeatsAndOneThatDisagreesIsNotUsed)
{
    Till till;
    auto cashier = till.server.client(till.server.staffToken());
    const store::Database &database = till.server.context().database;
    till.sellCash(*cashier, {QStringLiteral("A2"), QStringLiteral("A3")}, 2 * kStandard);
    const qint64 layoutId = till.server.scalar(QStringLiteral("SELECT sc.layout_id FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id "
                                                              "WHERE s.show_id = %1").arg(till.showId)).toLongLong();
    ASSERT_GT(layoutId, 0);
    store::ReportRepository repository(database);
    const auto fromCopy = repository.occupancyLayout(layoutId);
    ASSERT_TRUE(fromCopy.has_value());
    EXPECT_EQ(fromCopy->source, store::OccupancyLayout::Source::Copy);
    EXPECT_EQ(fromCopy->seatIds.size(), 24);
    const auto position = [](const QByteArray &json, const char *seat) { return json.indexOf(QByteArray("\"seat_id\" : \"") + seat + '"'); };
    // The show's report from nothing kept (its layout read once), checked against the fresh statement.
    const auto coldReport = [&](quint64 layoutsFromCopy) {
        OccupancyReports cold(database);
        const auto [json, reference] = reportAndReference(cold, database, till.showId);
        EXPECT_EQ(json, reference);
        EXPECT_EQ(cold.layoutsLoaded(), 1u);
        EXPECT_EQ(cold.layoutsFromCopy(), layoutsFromCopy);
        return json;
    };

    // Edited by hand with the triggers on: A1 renumbered to the end of its row; the copy is rebuilt with it.
    ASSERT_EQ(till.server.scalar(QStringLiteral("UPDATE layout_seats SET number = 99 WHERE layout_id = %1 AND seat_id = 'A1' RETURNING 1")
                                     .arg(layoutId)).toInt(), 1);
    const QByteArray renumbered = coldReport(1);
    EXPECT_GT(position(renumbered, "A1"), position(renumbered, "A6")) << "A1 is number 99 now";
    EXPECT_TRUE(renumbered.contains("{\"number\" : 99, \"row\" : \"A\", \"seat_id\" : \"A1\""));

    // Written with the triggers off: the copy still says A2 is number 2 and C1 is premium; it is not used.
    QSqlQuery edit(database.connection());
    ASSERT_TRUE(edit.exec(QStringLiteral("ALTER TABLE layout_seats DISABLE TRIGGER USER"))) << edit.lastError().text().toStdString();
    ASSERT_TRUE(edit.exec(QStringLiteral("UPDATE layout_seats SET number = 98 WHERE layout_id = %1 AND seat_id = 'A2'").arg(layoutId)));
    ASSERT_TRUE(edit.exec(QStringLiteral("UPDATE layout_seats SET tier = 'standard' WHERE layout_id = %1 AND seat_id = 'C1'").arg(layoutId)));
    ASSERT_TRUE(edit.exec(QStringLiteral("ALTER TABLE layout_seats ENABLE TRIGGER USER"))) << edit.lastError().text().toStdString();
    const auto fromSeats = repository.occupancyLayout(layoutId);
    ASSERT_TRUE(fromSeats.has_value());
    EXPECT_EQ(fromSeats->source, store::OccupancyLayout::Source::LayoutSeats);
    const QByteArray fromLayoutSeats = coldReport(0);
    EXPECT_GT(position(fromLayoutSeats, "A2"), position(fromLayoutSeats, "A6"));
    EXPECT_TRUE(fromLayoutSeats.contains("\"seat_id\" : \"C1\", \"sell_order\" : null, \"sold_at\" : null, \"state\" : \"free\", \"tier\" : \"standard\"}"))
        << fromLayoutSeats.toStdString();

    // The next write with the triggers on rebuilds the copy from what layout_seats holds: used again.
    ASSERT_EQ(till.server.scalar(QStringLiteral("UPDATE layout_seats SET number = 97 WHERE layout_id = %1 AND seat_id = 'A3' RETURNING 1")
                                     .arg(layoutId)).toInt(), 1);
    const QByteArray rebuilt = coldReport(1);
    EXPECT_GT(position(rebuilt, "A3"), position(rebuilt, "A6"));
}

// The warming option: a count of shows, 0 switches it off; anything else is refused with a message.
TEST(Reports, OccupancyWarmShowsOptionRefusesBadValues)
{
    QString error;
    EXPECT_EQ(ServerConfig::fromArguments({}, &error)->occupancyWarmShows, 100);
    EXPECT_EQ(ServerConfig::fromArguments({QStringLiteral("--occupancy-warm-shows"), QStringLiteral("0")}, &error)->occupancyWarmShows, 0);
    EXPECT_EQ(ServerConfig::fromArguments({QStringLiteral("--occupancy-warm-shows"), QStringLiteral("7")}, &error)->occupancyWarmShows, 7);
    for (const char *bad : {"-1", "abc", "100001", "", "2.5"}) {
        error.clear();
        EXPECT_FALSE(ServerConfig::fromArguments({QStringLiteral("--occupancy-warm-shows"), QString::fromLatin1(bad)}, &error).has_value()) << bad;
        EXPECT_TRUE(error.contains(QStringLiteral("--occupancy-warm-shows"))) << bad << ": " << error.toStdString();
    }
}

// The sales rollup (011_report_rollups.sql) is exact: after a random mix of card, cash and split sales, concurrent
// sales, cancellations with refunds, drawer operations and edits of the booking and refund rows, every rollup row
// equals the same sum computed from scratch from bookings and refunds, and the sales report over ranges that mix
// part-days, whole days and whole months equals the from-scratch report of the same range.
TEST(ReportRollup, EqualsAFromScratchSumAfterARandomMixOfSalesRefundsCancellationsAndTillPayments)
{
    Till till;
    constexpr int kThreads = 4;
    const qint64 busyShow = till.server.createShow(kThreads * 2, 8); // two rows for each concurrent seller
    auto kiosk = till.server.client(till.server.deviceToken(QStringLiteral("kiosk")));
    const QString tillToken = till.server.deviceToken(QStringLiteral("till"));
    const qint64 tillDeviceId = till.server.scalar(QStringLiteral("SELECT max(device_id) FROM devices WHERE role = 'till'")).toLongLong();
    auto cashier = till.server.client(till.server.elevatedStaffToken());
    ASSERT_EQ(cashier->post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), 5000}, {QStringLiteral("currency"), QStringLiteral("EUR")},
                                                          {QStringLiteral("device_id"), tillDeviceId}}).status, 201);
    auto manager = till.server.client(till.server.elevatedStaffToken(QStringLiteral("manager")));
    QRandomGenerator random(11);

    // One after another on the small show: card at the kiosk, cash and split at the till, cash by the manager (api);
    // every third booking cancelled by the cashier (cash back from the drawer) or the manager; drawer operations.
    QStringList bookingIds;
    QStringList seats;
    for (const char row : {'A', 'B', 'C', 'D'})
        for (int n = 1; n <= 6; ++n)
            seats << QStringLiteral("%1%2").arg(QLatin1Char(row)).arg(n);
    while (!seats.isEmpty()) {
        const int size = qMin<int>(seats.size(), 1 + random.bounded(3));
        const QStringList chosen = seats.mid(0, size);
        seats = seats.mid(size);
        qint64 amount = 0;
        for (const QString &seat : chosen)
            amount += seat.startsWith(QLatin1Char('C')) || seat.startsWith(QLatin1Char('D')) ? kPremium : kStandard;
        QJsonObject booking;
        switch (random.bounded(4)) {
        case 0: {
            const HttpResult created = till.order(*kiosk, till.hold(*kiosk, chosen), {});
            ASSERT_EQ(created.status, 201) << created.body.toStdString();
            ASSERT_EQ(till.sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
            const HttpResult confirmed = till.confirm(*kiosk, created.json());
            ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
            booking = confirmed.json();
            break;
        }
        case 1: {
            const HttpResult created = till.order(*cashier, till.hold(*cashier, chosen),
                                                  {{QStringLiteral("payment_method"), QStringLiteral("split")}, {QStringLiteral("cash_minor"), 1000},
                                                   {QStringLiteral("tendered_minor"), 1000}});
            ASSERT_EQ(created.status, 201) << created.body.toStdString();
            ASSERT_EQ(till.sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), QStringLiteral("tok_visa")).status, 200);
            const HttpResult confirmed = till.confirm(*cashier, created.json());
            ASSERT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
            booking = confirmed.json();
            break;
        }
        case 2:
            booking = till.sellCash(*cashier, chosen, amount + 500);
            break;
        default:
            booking = till.sellCash(*manager, chosen, amount);
            break;
        }
        const QString bookingId = booking.value(QStringLiteral("booking_id")).toString();
        ASSERT_FALSE(bookingId.isEmpty());
        bookingIds << bookingId;
        if (bookingIds.size() % 3 == 0) {
            HttpClient &canceller = random.bounded(2) ? *cashier : *manager;
            const HttpResult cancelled = canceller.post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel",
                                                        QJsonObject{{QStringLiteral("reason"), QStringLiteral("changed plans")}});
            ASSERT_EQ(cancelled.status, 200) << cancelled.body.toStdString();
        }
        if (random.bounded(4) == 0) {
            ASSERT_EQ(till.drawer(*cashier, random.bounded(2) ? QStringLiteral("cash_in") : QStringLiteral("cash_out"), 200).status, 201);
        }
    }

    // At the same time on the busy show: every seller's bookings hit the same rollup rows (same day, show, movie,
    // channel), and every other one is cancelled while the others sell.
    std::vector<QString> sellerTokens;
    std::vector<QString> managerTokens;
    for (int t = 0; t < kThreads; ++t) {
        sellerTokens.push_back(till.server.deviceToken(QStringLiteral("till")));
        managerTokens.push_back(till.server.elevatedStaffToken(QStringLiteral("manager")));
    }
    std::atomic<int> failures{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            HttpClient seller(QStringLiteral("127.0.0.1"), till.server.port());
            seller.setToken(sellerTokens[size_t(t)]);
            HttpClient canceller(QStringLiteral("127.0.0.1"), till.server.port());
            canceller.setToken(managerTokens[size_t(t)]);
            while (!go.load())
                std::this_thread::yield();
            int sold = 0;
            for (const QChar row : {QChar(u'A' + 2 * t), QChar(u'A' + 2 * t + 1)}) {
                for (int n = 1; n <= 8; n += 2) {
                    const QStringList pair{QStringLiteral("%1%2").arg(row).arg(n), QStringLiteral("%1%2").arg(row).arg(n + 1)};
                    const HttpResult held = seller.post(holdPath(busyShow), seatsBody(pair));
                    const HttpResult created =
                        seller.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json().value(QStringLiteral("hold_id"))},
                                                                  {QStringLiteral("payment_method"), QStringLiteral("cash")},
                                                                  {QStringLiteral("tendered_minor"), 10000}});
                    const QJsonObject order = created.json();
                    const HttpResult confirmed = seller.post("/api/v1/orders/" + order.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                                                             QJsonObject{{QStringLiteral("payment_intent_id"), order.value(QStringLiteral("payment_intent_id"))}});
                    if (held.status != 200 || created.status != 201 || confirmed.status != 200) {
                        ++failures;
                        continue;
                    }
                    if (++sold % 2 == 0
                        && canceller.post("/api/v1/bookings/" + confirmed.json().value(QStringLiteral("booking_id")).toString().toUtf8() + "/cancel",
                                          QJsonObject{}).status != 200)
                        ++failures;
                }
            }
        });
    }
    go = true;
    for (std::thread &thread : threads)
        thread.join();
    ASSERT_EQ(failures.load(), 0);
    ASSERT_EQ(till.count(QStringLiteral("SELECT count(*) FROM bookings WHERE show_id = %1").arg(busyShow)), kThreads * 8);

    // Edits of the rows the rollup sums: bookings and refunds moved back up to 80 days (across months), part of a
    // day; a booking's device changed (its refund moves with it).
    const QStringList allBookings = till.server.scalar(QStringLiteral("SELECT string_agg(booking_id::text, ',') FROM bookings")).toString().split(QLatin1Char(','));
    for (const QString &bookingId : allBookings) {
        if (random.bounded(4) == 0)
            continue;
        till.server.scalar(QStringLiteral("UPDATE bookings SET created_at = created_at - interval '%1 days' - interval '%2 minutes' "
                                          "WHERE booking_id = '%3' RETURNING 1").arg(random.bounded(80)).arg(random.bounded(1440)).arg(bookingId));
    }
    till.server.scalar(QStringLiteral("UPDATE refunds SET created_at = created_at - interval '35 days' "
                                      "WHERE refund_id IN (SELECT refund_id FROM refunds ORDER BY refund_id LIMIT 3) RETURNING 1"));
    till.server.scalar(QStringLiteral("UPDATE bookings SET device_id = NULL "
                                      "WHERE booking_id = (SELECT booking_id FROM refunds WHERE booking_id IS NOT NULL ORDER BY refund_id LIMIT 1) RETURNING 1"));

    const qint64 refunds = till.count(QStringLiteral("SELECT count(*) FROM refunds WHERE booking_id IS NOT NULL"));
    ASSERT_GE(refunds, 8);
    ASSERT_GE(till.count(QStringLiteral("SELECT count(DISTINCT date_trunc('month', created_at AT TIME ZONE 'UTC')) FROM bookings")), 2);
    // The from-scratch sum is not empty, the rollup has no negative share, and the two are the same rows.
    EXPECT_GE(till.count(QStringLiteral("WITH ") + kScratchRollup + QStringLiteral("SELECT count(*) FROM scratch")), 4 * 2);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM sales_rollup_totals WHERE least(revenue_minor, tickets, bookings, refunds, refunds_minor) < 0")), 0);
    EXPECT_EQ(till.count(QStringLiteral("SELECT count(*) FROM sales_rollup_totals WHERE bookings = 0 AND refunds = 0 "
                                        "AND (revenue_minor, tickets, refunds_minor) <> (0, 0, 0)")), 0);
    EXPECT_EQ(till.count(kRollupDifferences), 0);

    // The sales report over ranges mixing part-days, whole days and whole months equals the same range from scratch.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QList<std::pair<QDateTime, QDateTime>> ranges = {
        {now.addDays(-85).addSecs(-3 * 3600 - 17), now.addSecs(1)},                                       // part-days at both ends, months inside
        {QDateTime(now.date().addDays(-70), QTime(0, 0), QTimeZone::utc()), QDateTime(now.date().addDays(-2), QTime(0, 0), QTimeZone::utc())}, // whole days
        {now.addDays(-40).addSecs(-600), now.addDays(-39).addSecs(7200)},                                 // no whole day: all raw
    };
    const QList<std::pair<QByteArray, QString>> groupings = {
        {"day", QStringLiteral("to_char((at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')")},
        {"show", QStringLiteral("show_id::text")},
        {"movie", QStringLiteral("movie_id::text")},
        {"channel", QStringLiteral("channel")},
        {"device", QStringLiteral("coalesce(device_id::text, 'none')")}};
    int nonEmpty = 0;
    for (const auto &[from, to] : ranges) {
        // An offset in the query (+02:00) must not move the range.
        const QByteArray query = "from=" + QUrl::toPercentEncoding(from.toOffsetFromUtc(7200).toString(Qt::ISODateWithMs)) + "&to=" +
            QUrl::toPercentEncoding(toIsoUtc(to));
        for (const auto &[groupBy, keySql] : groupings) {
            const QMap<QString, Totals> expected = scratchReport(till.server, keySql, from, to);
            nonEmpty += expected.isEmpty() ? 0 : 1;
            EXPECT_EQ(reportRows(*manager, query + "&group_by=" + groupBy), expected) << query.toStdString() << " by " << groupBy.toStdString();
        }
    }
    EXPECT_GE(nonEmpty, 10);

    // The rebuild (the migration's backfill, and the bench after its bulk load) gives the rows the triggers kept.
    till.server.scalar(QStringLiteral("CREATE TABLE kept_rollup AS SELECT * FROM sales_rollup_totals WHERE bookings <> 0 OR refunds <> 0"));
    till.server.scalar(QStringLiteral("SELECT mq_sales_rollup_rebuild()"));
    EXPECT_EQ(till.count(QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM kept_rollup EXCEPT ALL SELECT * FROM sales_rollup_totals) a) "
                                        "     + (SELECT count(*) FROM (SELECT * FROM sales_rollup_totals EXCEPT ALL SELECT * FROM kept_rollup) b)")),
              0);
    EXPECT_EQ(till.count(kRollupDifferences), 0);
}
