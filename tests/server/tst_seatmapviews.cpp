// SPDX-License-Identifier: AGPL-3.0-or-later
// The compact seat-map pair: GET …/layout (fetched once, cached long) and GET …/availability (one
// status letter per seat, per version), over real HTTP against a real PostgreSQL. They must rebuild exactly what
// the full GET …/seatmap says, revalidate with their tags, inflate to the same bytes, and never mix versions.
#include "servertesthelpers.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QSet>
#include <QThread>
#include <atomic>
#include <gtest/gtest.h>
#include <random>
#include <thread>

using namespace marquee;
using namespace marquee::test;

namespace {

QByteArray api(qint64 showId, const char *suffix)
{
    return "/api/v1/shows/" + QByteArray::number(showId) + suffix;
}

QString statusName(QChar letter)
{
    return letter == u'h' ? QStringLiteral("held") : letter == u'b' ? QStringLiteral("booked") : QStringLiteral("available");
}

/** @brief The version an availability tag names: `"<version>.<digest>"`. */
qint64 versionOfTag(const QByteArray &etag)
{
    return etag.mid(1, etag.indexOf('.') - 1).toLongLong();
}

/** @brief A response body with its Content-Encoding undone ("deflate": a zlib stream). */
QByteArray inflated(const HttpResult &result, qsizetype expectedSize)
{
    if (result.header("Content-Encoding").isEmpty())
        return result.body;
    // qUncompress wants the zlib stream behind a 4-byte big-endian size of the result.
    QByteArray framed(4, '\0');
    framed[0] = char((expectedSize >> 24) & 0xff);
    framed[1] = char((expectedSize >> 16) & 0xff);
    framed[2] = char((expectedSize >> 8) & 0xff);
    framed[3] = char(expectedSize & 0xff);
    return qUncompress(framed + result.body);
}

/**
 * @brief Rebuilds the full map's seats from the layout and the availability: {seat_id: {...the full map's seat}}.
 * Checks on the way that both pieces are well formed and belong together.
 */
QMap<QString, QJsonObject> rebuiltSeats(HttpClient &client, qint64 showId, qint64 *version = nullptr)
{
    QMap<QString, QJsonObject> seats;
    const HttpResult layout = client.get(api(showId, "/layout"));
    const HttpResult availability = client.get(api(showId, "/availability"));
    EXPECT_EQ(layout.status, 200) << layout.body.constData();
    EXPECT_EQ(availability.status, 200) << availability.body.constData();
    if (layout.status != 200 || availability.status != 200)
        return seats;
    const QJsonObject state = availability.json();
    EXPECT_EQ(state.value(QStringLiteral("show_id")).toInteger(), showId);
    EXPECT_EQ(state.value(QStringLiteral("layout_etag")).toString().toLatin1(), layout.header("ETag"));
    const QString statuses = state.value(QStringLiteral("statuses")).toString();
    const QJsonArray layoutSeats = layout.json().value(QStringLiteral("seats")).toArray();
    EXPECT_EQ(statuses.size(), layoutSeats.size());
    EXPECT_EQ(state.value(QStringLiteral("seat_count")).toInt(), layoutSeats.size());
    EXPECT_EQ(layout.json().value(QStringLiteral("seat_count")).toInt(), layoutSeats.size());
    QHash<QString, qint64> prices;
    for (const QJsonValue &tier : state.value(QStringLiteral("tiers")).toArray())
        prices.insert(tier[QStringLiteral("tier")].toString(), tier[QStringLiteral("price_minor")].toInteger());
    for (qsizetype i = 0; i < layoutSeats.size() && i < statuses.size(); ++i) {
        QJsonObject seat = layoutSeats[i].toObject();
        EXPECT_FALSE(seat.contains(QStringLiteral("status"))) << "the layout carries no statuses";
        EXPECT_TRUE(QStringLiteral("ahb").contains(statuses[i])) << qPrintable(statuses);
        seat.insert(QStringLiteral("status"), statusName(statuses[i]));
        seat.insert(QStringLiteral("price_minor"), prices.value(seat[QStringLiteral("tier")].toString(), -1));
        seats.insert(seat[QStringLiteral("seat_id")].toString(), seat);
    }
    if (version)
        *version = state.value(QStringLiteral("version")).toInteger();
    return seats;
}

/** @brief The full map's seats by seat id, and its version. */
QMap<QString, QJsonObject> fullSeats(HttpClient &client, qint64 showId, qint64 *version = nullptr)
{
    QMap<QString, QJsonObject> seats;
    const HttpResult map = client.get(api(showId, "/seatmap"));
    EXPECT_EQ(map.status, 200) << map.body.constData();
    for (const QJsonValue &seat : map.json().value(QStringLiteral("seats")).toArray())
        seats.insert(seat[QStringLiteral("seat_id")].toString(), seat.toObject());
    if (version)
        *version = map.json().value(QStringLiteral("version")).toInteger();
    return seats;
}

void expectSameAsFullMap(HttpClient &client, qint64 showId, const char *step)
{
    qint64 compactVersion = -1, fullVersion = -2;
    const QMap<QString, QJsonObject> rebuilt = rebuiltSeats(client, showId, &compactVersion);
    const QMap<QString, QJsonObject> full = fullSeats(client, showId, &fullVersion);
    ASSERT_EQ(rebuilt.size(), full.size()) << step;
    ASSERT_FALSE(full.isEmpty()) << step;
    EXPECT_EQ(compactVersion, fullVersion) << step;
    for (auto it = full.constBegin(); it != full.constEnd(); ++it)
        EXPECT_EQ(rebuilt.value(it.key()), it.value()) << step << ": seat " << qPrintable(it.key());
}

QString cashSale(HttpClient &cashier, qint64 showId, const QStringList &seats)
{
    const HttpResult held = cashier.post(holdPath(showId), seatsBody(seats));
    EXPECT_EQ(held.status, 200) << held.body.constData();
    const HttpResult created = cashier.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json()[QStringLiteral("hold_id")]},
                                                                          {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    EXPECT_EQ(created.status, 201) << created.body.constData();
    const HttpResult confirmed = cashier.post("/api/v1/orders/" + created.json()[QStringLiteral("order_id")].toString().toUtf8() + "/confirm",
                                              QJsonObject{{QStringLiteral("payment_intent_id"), created.json()[QStringLiteral("payment_intent_id")]}});
    EXPECT_EQ(confirmed.status, 200) << confirmed.body.constData();
    return confirmed.json().value(QStringLiteral("booking_id")).toString();
}

} // namespace

TEST(SeatMapViews, LayoutAndAvailabilityRebuildTheFullMapAfterHoldsReleasesAndSales)
{
    TestServer server;
    const qint64 showId = server.createShow(3, 5);
    auto kiosk = server.client(server.deviceToken());
    auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));

    expectSameAsFullMap(*kiosk, showId, "fresh show");

    const HttpResult first = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B2"), QStringLiteral("B3")}));
    ASSERT_EQ(first.status, 200) << first.body.constData();
    const HttpResult second = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A5")}));
    ASSERT_EQ(second.status, 200) << second.body.constData();
    expectSameAsFullMap(*kiosk, showId, "after two holds");
    EXPECT_EQ(rebuiltSeats(*kiosk, showId).value(QStringLiteral("B3")).value(QStringLiteral("status")).toString(), QStringLiteral("held"));

    ASSERT_EQ(kiosk->del("/api/v1/holds/" + first.json()[QStringLiteral("hold_id")].toString().toLatin1()).status, 200);
    expectSameAsFullMap(*kiosk, showId, "after a release");
    EXPECT_EQ(rebuiltSeats(*kiosk, showId).value(QStringLiteral("B3")).value(QStringLiteral("status")).toString(), QStringLiteral("available"));

    EXPECT_FALSE(cashSale(*cashier, showId, {QStringLiteral("C4"), QStringLiteral("C5")}).isEmpty());
    expectSameAsFullMap(*kiosk, showId, "after a sale");
    const QMap<QString, QJsonObject> seats = rebuiltSeats(*kiosk, showId);
    EXPECT_EQ(seats.value(QStringLiteral("C4")).value(QStringLiteral("status")).toString(), QStringLiteral("booked"));
    EXPECT_EQ(seats.value(QStringLiteral("A5")).value(QStringLiteral("status")).toString(), QStringLiteral("held"));
    // And both agree with the table itself.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT string_agg(left(status::text, 1), '' ORDER BY seat_id) FROM show_seats WHERE show_id = %1")
                                .arg(showId))
                  .toString(),
              kiosk->get(api(showId, "/availability")).json().value(QStringLiteral("statuses")).toString());
}

TEST(SeatMapViews, TagsRevalidateAndTheLayoutTagOutlivesWritesAndPriceEdits)
{
    TestServer server;
    const qint64 showId = server.createShow(3, 4);
    auto kiosk = server.client(server.deviceToken());
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));

    const HttpResult layout = kiosk->get(api(showId, "/layout"));
    ASSERT_EQ(layout.status, 200) << layout.body.constData();
    const QByteArray layoutTag = layout.header("ETag");
    ASSERT_TRUE(layoutTag.startsWith('"') && layoutTag.endsWith('"')) << layoutTag.constData();
    EXPECT_TRUE(layout.header("Cache-Control").contains("max-age=")) << layout.header("Cache-Control").constData();
    const HttpResult layoutAgain = kiosk->get(api(showId, "/layout"), {{"If-None-Match", layoutTag}});
    EXPECT_EQ(layoutAgain.status, 304);
    EXPECT_TRUE(layoutAgain.body.isEmpty());
    EXPECT_EQ(layoutAgain.header("ETag"), layoutTag);

    const HttpResult before = kiosk->get(api(showId, "/availability"));
    ASSERT_EQ(before.status, 200) << before.body.constData();
    const QByteArray tag = before.header("ETag");
    EXPECT_EQ(before.header("Cache-Control"), QByteArray("no-cache"));
    EXPECT_EQ(versionOfTag(tag), before.json().value(QStringLiteral("version")).toInteger());
    const HttpResult same = kiosk->get(api(showId, "/availability"), {{"If-None-Match", tag}});
    EXPECT_EQ(same.status, 304);
    EXPECT_TRUE(same.body.isEmpty());
    EXPECT_EQ(same.header("ETag"), tag);
    EXPECT_EQ(kiosk->get(api(showId, "/availability"), {{"If-None-Match", "\"1.not-the-tag\""}}).status, 200);

    // A hold: a new version and tag, the old tag gets the new body; the layout tag stays.
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")})).status, 200);
    const HttpResult after = kiosk->get(api(showId, "/availability"), {{"If-None-Match", tag}});
    ASSERT_EQ(after.status, 200);
    EXPECT_NE(after.header("ETag"), tag);
    EXPECT_GT(after.json().value(QStringLiteral("version")).toInteger(), before.json().value(QStringLiteral("version")).toInteger());
    EXPECT_EQ(versionOfTag(after.header("ETag")), after.json().value(QStringLiteral("version")).toInteger());
    EXPECT_TRUE(after.json().value(QStringLiteral("statuses")).toString().startsWith(u'h')); // A1 is the first seat
    EXPECT_EQ(kiosk->get(api(showId, "/layout"), {{"If-None-Match", layoutTag}}).status, 304);

    // A price edit writes no seat (same version) but changes the availability's prices and so its tag; the layout
    // has no prices and keeps its tag.
    const QByteArray heldTag = after.header("ETag");
    const HttpResult edited = manager->request("PATCH", api(showId, ""), R"({"price_tiers": {"standard": 1400}, "reason": "evening price"})");
    ASSERT_EQ(edited.status, 200) << edited.body.constData();
    const HttpResult priced = kiosk->get(api(showId, "/availability"), {{"If-None-Match", heldTag}});
    ASSERT_EQ(priced.status, 200);
    EXPECT_NE(priced.header("ETag"), heldTag);
    bool sawStandard = false;
    for (const QJsonValue &tier : priced.json().value(QStringLiteral("tiers")).toArray()) {
        if (tier[QStringLiteral("tier")].toString() == QLatin1String("standard")) {
            sawStandard = true;
            EXPECT_EQ(tier[QStringLiteral("price_minor")].toInteger(), 1400);
        }
    }
    EXPECT_TRUE(sawStandard);
    EXPECT_EQ(priced.json().value(QStringLiteral("layout_etag")).toString().toLatin1(), layoutTag);
    EXPECT_EQ(kiosk->get(api(showId, "/layout"), {{"If-None-Match", layoutTag}}).status, 304);
    expectSameAsFullMap(*kiosk, showId, "after the price edit");
}

TEST(SeatMapViews, FullMapTagChangesWithAPriceEditAndOtherwiseRevalidates)
{
    TestServer server;
    const qint64 showId = server.createShow(3, 4);
    auto kiosk = server.client(server.deviceToken());
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    const auto priceOf = [](const HttpResult &map, const QString &seatId) {
        for (const QJsonValue &seat : map.json().value(QStringLiteral("seats")).toArray()) {
            if (seat[QStringLiteral("seat_id")].toString() == seatId)
                return seat[QStringLiteral("price_minor")].toInteger();
        }
        return qint64(-1);
    };

    const HttpResult before = kiosk->get(api(showId, "/seatmap"));
    ASSERT_EQ(before.status, 200) << before.body.constData();
    const QByteArray tag = before.header("ETag");
    ASSERT_FALSE(tag.isEmpty());
    const qint64 oldPrice = priceOf(before, QStringLiteral("A1"));
    ASSERT_GT(oldPrice, 0);
    ASSERT_NE(oldPrice, 1733) << "the edit below must change A1's price";
    const HttpResult unchanged = kiosk->get(api(showId, "/seatmap"), {{"If-None-Match", tag}});
    EXPECT_EQ(unchanged.status, 304);
    EXPECT_TRUE(unchanged.body.isEmpty());
    EXPECT_EQ(unchanged.header("ETag"), tag);

    // A price edit writes no seat (the version stays), yet the old tag must not keep the old prices alive.
    const HttpResult edited = manager->request("PATCH", api(showId, ""), R"({"price_tiers": {"standard": 1733}, "reason": "evening price"})");
    ASSERT_EQ(edited.status, 200) << edited.body.constData();
    const HttpResult after = kiosk->get(api(showId, "/seatmap"), {{"If-None-Match", tag}});
    ASSERT_EQ(after.status, 200) << "a client revalidating after a price edit got " << after.status;
    EXPECT_NE(after.header("ETag"), tag);
    EXPECT_EQ(after.json().value(QStringLiteral("version")).toInteger(), before.json().value(QStringLiteral("version")).toInteger());
    EXPECT_EQ(priceOf(after, QStringLiteral("A1")), 1733);
    EXPECT_EQ(versionOfTag(after.header("ETag")), after.json().value(QStringLiteral("version")).toInteger());

    // The new tag revalidates again, and both views of one refresh carry the same tag.
    const HttpResult again = kiosk->get(api(showId, "/seatmap"), {{"If-None-Match", after.header("ETag")}});
    EXPECT_EQ(again.status, 304);
    EXPECT_EQ(kiosk->get(api(showId, "/availability")).header("ETag"), after.header("ETag"));
    expectSameAsFullMap(*kiosk, showId, "after the price edit");
}

TEST(SeatMapViews, CompressedCopiesInflateToTheSameBytes)
{
    TestServer server;
    const qint64 showId = server.createShow(20, 30); // 600 seats: bodies worth compressing
    auto kiosk = server.client(server.deviceToken());
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("C7"), QStringLiteral("C8")})).status, 200);

    for (const char *suffix : {"/availability", "/layout"}) {
        const HttpResult plain = kiosk->get(api(showId, suffix));
        ASSERT_EQ(plain.status, 200) << plain.body.constData();
        EXPECT_TRUE(plain.header("Content-Encoding").isEmpty()) << "no Accept-Encoding, no coding";
        // The compressed copy is made once per body by the background thread: ask until it is there.
        HttpResult compressed;
        const QDeadlineTimer deadline(10000);
        do {
            compressed = kiosk->get(api(showId, suffix), {{"Accept-Encoding", "gzip, deflate"}});
            if (compressed.header("Content-Encoding") == "deflate")
                break;
            QThread::msleep(20);
        } while (!deadline.hasExpired());
        ASSERT_EQ(compressed.status, 200);
        ASSERT_EQ(compressed.header("Content-Encoding"), QByteArray("deflate")) << suffix;
        EXPECT_EQ(compressed.header("Vary"), QByteArray("Accept-Encoding"));
        EXPECT_EQ(compressed.header("ETag"), plain.header("ETag")) << suffix;
        EXPECT_LT(compressed.body.size(), plain.body.size() / 3) << suffix;
        EXPECT_EQ(inflated(compressed, plain.body.size()), plain.body) << suffix;
        // A client that refuses deflate gets the plain body.
        const HttpResult refused = kiosk->get(api(showId, suffix), {{"Accept-Encoding", "deflate;q=0"}});
        EXPECT_TRUE(refused.header("Content-Encoding").isEmpty());
        EXPECT_EQ(refused.body, plain.body);
    }
}

TEST(SeatMapViews, NoTornReadsUnderConcurrentHolds)
{
    TestServer::Options options;
    options.threads = 6;
    options.maxSeatsPerHold = 4;
    TestServer server(options);
    const int rows = 10, perRow = 10;
    const qint64 showId = server.createShow(rows, perRow);
    QStringList seatIds;
    {
        auto reader = server.client(server.deviceToken());
        for (const QJsonValue &seat : reader->get(api(showId, "/layout")).json().value(QStringLiteral("seats")).toArray())
            seatIds << seat[QStringLiteral("seat_id")].toString();
    }
    ASSERT_EQ(seatIds.size(), rows * perRow);

    // Writers only hold (never release), so the held seats only grow with the version: a body whose statuses are
    // not those of its version shows up as a later version with fewer held seats, or one tag with two bodies.
    std::atomic<bool> stop{false};
    std::atomic<int> holdsMade{0};
    std::vector<std::thread> threads;
    const int writers = 3, readers = 3;
    std::vector<QString> writerTokens, readerTokens;
    for (int i = 0; i < writers + readers; ++i)
        (i < writers ? writerTokens : readerTokens).push_back(server.deviceToken());
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            auto client = server.client(writerTokens[size_t(w)]);
            std::mt19937 random(unsigned(w) * 7919u + 1u);
            while (!stop.load()) {
                const qsizetype first = qsizetype(random() % unsigned(seatIds.size()));
                const QStringList seats = seatIds.mid(first, 1 + qsizetype(random() % 2));
                if (client->post(holdPath(showId), seatsBody(seats)).status == 200)
                    ++holdsMade;
            }
        });
    }
    struct Seen {
        QByteArray etag;
        QByteArray body;
        qint64 version = 0;
        QString statuses;
    };
    std::vector<std::vector<Seen>> seen(readers);
    for (int r = 0; r < readers; ++r) {
        threads.emplace_back([&, r] {
            auto client = server.client(readerTokens[size_t(r)]);
            while (!stop.load()) {
                const HttpResult result = client->get(api(showId, "/availability"));
                if (result.status != 200)
                    continue;
                const QJsonObject body = result.json();
                seen[size_t(r)].push_back(Seen{result.header("ETag"), result.body, body.value(QStringLiteral("version")).toInteger(),
                                               body.value(QStringLiteral("statuses")).toString()});
            }
        });
    }
    QThread::msleep(2500);
    stop = true;
    for (std::thread &thread : threads)
        thread.join();
    ASSERT_GT(holdsMade.load(), 5);

    QHash<QByteArray, QByteArray> bodyOfTag;
    QMap<qint64, QString> statusesOfVersion;
    size_t reads = 0;
    for (const auto &list : seen) {
        for (const Seen &one : list) {
            ++reads;
            ASSERT_EQ(one.statuses.size(), seatIds.size());
            EXPECT_EQ(versionOfTag(one.etag), one.version) << one.etag.constData();
            const auto tag = bodyOfTag.constFind(one.etag);
            if (tag != bodyOfTag.constEnd()) {
                EXPECT_EQ(*tag, one.body) << "one tag, two bodies: " << one.etag.constData();
            }
            bodyOfTag.insert(one.etag, one.body);
            const auto version = statusesOfVersion.constFind(one.version);
            if (version != statusesOfVersion.constEnd()) {
                EXPECT_EQ(*version, one.statuses) << "one version, two sets of statuses: " << one.version;
            }
            statusesOfVersion.insert(one.version, one.statuses);
        }
    }
    EXPECT_GT(reads, 20u);
    EXPECT_GT(statusesOfVersion.size(), 2) << "the readers should have seen the show change";
    // Held seats only grow with the version.
    QString previous;
    for (auto it = statusesOfVersion.constBegin(); it != statusesOfVersion.constEnd(); ++it) {
        for (qsizetype i = 0; i < previous.size(); ++i)
            EXPECT_FALSE(previous[i] == u'h' && it.value()[i] != u'h') << "seat " << qPrintable(seatIds[i]) << " unheld at version " << it.key();
        previous = it.value();
    }
    // At rest, the availability is the table's, and the full map's.
    auto client = server.client(server.deviceToken());
    EXPECT_EQ(client->get(api(showId, "/availability")).json().value(QStringLiteral("statuses")).toString(),
              server.scalar(QStringLiteral("SELECT string_agg(left(status::text, 1), '' ORDER BY seat_id) FROM show_seats WHERE show_id = %1").arg(showId))
                  .toString());
    expectSameAsFullMap(*client, showId, "after the concurrent holds");
}

TEST(SeatMapViews, BadInputGetsTheSeatMapsErrorsAndChangesNothing)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 3);
    auto kiosk = server.client(server.deviceToken());
    const QStringList otherRoles{server.deviceToken(QStringLiteral("till")), server.staffToken(QStringLiteral("cashier")),
                                 server.staffToken(QStringLiteral("manager"))};
    const QString stateBefore = databaseState(server);
    for (const char *suffix : {"/availability", "/layout"}) {
        const QByteArray view(suffix);
        EXPECT_API_ERROR(kiosk->get("/api/v1/shows/zero" + view), 400, "invalid_id");
        EXPECT_API_ERROR(kiosk->get("/api/v1/shows/-4" + view), 400, "invalid_id");
        EXPECT_API_ERROR(kiosk->get("/api/v1/shows/99999999999999999999999" + view), 400, "invalid_id");
        EXPECT_API_ERROR(kiosk->get("/api/v1/shows/424242" + view), 404, "show_not_found");
        EXPECT_API_ERROR(kiosk->get("/api/v1/shows/424242" + view), 404, "show_not_found"); // an unknown show is not cached
        EXPECT_API_ERROR(server.client()->get(api(showId, suffix)), 401, "unauthorized");
        EXPECT_API_ERROR(server.client(QStringLiteral("forged-token"))->get(api(showId, suffix)), 401, "unauthorized");
        EXPECT_API_ERROR(kiosk->request("POST", api(showId, suffix), "{}"), 405, "method_not_allowed");
        // Any tag that is not the current one gets the body.
        EXPECT_EQ(kiosk->get(api(showId, suffix), {{"If-None-Match", "garbage"}}).status, 200);
    }
    // Every role that may read the seat map may read both (tst_rolematrix checks the refusals).
    for (const QString &token : otherRoles) {
        auto client = server.client(token);
        EXPECT_EQ(client->get(api(showId, "/availability")).status, 200);
        EXPECT_EQ(client->get(api(showId, "/layout")).status, 200);
    }
    EXPECT_EQ(databaseState(server), stateBefore);
}
