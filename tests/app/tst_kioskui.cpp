// SPDX-License-Identifier: AGPL-3.0-or-later
// The whole kiosk UI, offscreen, against a real in-process server: every screen is walked and saved as a PNG in
// build/screenshots/ (landscape 1920×1080 and portrait 1080×1920), plus the failure screens.
#include "../server/paysimprocess.h"
#include "insecurehttp.h"
#include "kioskcontroller.h"
#include "kioskwalker.h"
#include "kioskwindow.h"
#include "quickitems.h"
#include "screenshots.h"
#include "seatmapitem.h"
#include "testserver.h"
#include "venueclock.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QQmlApplicationEngine>
#include <QQmlComponent>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTest>
#include <QTemporaryDir>
#include <QTimeZone>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::app;

namespace {
const QString kShots = marquee::test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));

struct Ui {
    std::unique_ptr<KioskController> kiosk;
    std::unique_ptr<QQmlApplicationEngine> engine;
    QQuickWindow *window = nullptr;
};

Ui loadUi(const AppConfig &config, QSize size)
{
    Ui ui;
    ui.kiosk = std::make_unique<KioskController>(config);
    ui.engine = std::make_unique<QQmlApplicationEngine>();
    ui.window = test::loadKioskWindow(*ui.engine, *ui.kiosk, size);
    return ui;
}

template <typename T>
T *findItem(QQuickItem *item)
{
    if (auto *found = qobject_cast<T *>(item))
        return found;
    for (QQuickItem *child : item->childItems())
        if (T *found = findItem<T>(child))
            return found;
    return nullptr;
}

/** @brief Pixels that differ from the background colour of the top-left corner. */
int paintedPixels(const QImage &image)
{
    const QRgb background = image.pixel(0, 0);
    int n = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            n += image.pixel(x, y) != background;
    return n;
}

void unload(Ui &ui)
{
    ui.engine.reset();
    KioskController::setInstance(nullptr);
    ui.kiosk.reset();
}

/** @brief A stadium-like layout of @p seats seats in rings, as the server would send it. */
QByteArray stadiumBody(int blocks, int rowsPerBlock, int seatsPerRow)
{
    QJsonArray seats;
    QJsonArray rows;
    const double cx = 2200, cy = 1700;
    for (int b = 0; b < blocks; ++b) {
        const double span = 2 * M_PI / blocks;
        for (int r = 0; r < rowsPerBlock; ++r) {
            const QString row = QStringLiteral("B%1-%2").arg(b).arg(r);
            const double radius = 700 + r * 11;
            for (int n = 1; n <= seatsPerRow; ++n) {
                const double a = b * span + span * 0.04 + span * 0.92 * (n - 0.5) / seatsPerRow;
                seats.append(QJsonObject{{"seat_id", row + QLatin1Char('-') + QString::number(n)}, {"row", row}, {"number", n},
                                         {"x", qRound(cx + std::cos(a) * radius * 1.3)}, {"y", qRound(cy + std::sin(a) * radius)},
                                         {"tier", r < rowsPerBlock / 3 ? "lower" : (b % 8 == 0 ? "pavilion" : "upper")},
                                         {"price_minor", r < rowsPerBlock / 3 ? 4500 : (b % 8 == 0 ? 9000 : 3000)},
                                         {"attributes", r == 0 && n <= 2 ? QJsonArray{"wheelchair"} : QJsonArray{}},
                                         {"status", (n * 7 + r * 3 + b) % 5 == 0 ? "booked" : ((n + r) % 11 == 0 ? "held" : "available")}});
            }
            if (r % 5 == 0)
                rows.append(QJsonObject{{"label", row}, {"x", qRound(cx + std::cos(b * span) * radius * 1.3)}, {"y", qRound(cy + std::sin(b * span) * radius)}});
        }
    }
    const QJsonObject layout{{"name", "Stadium"}, {"width", 4400}, {"height", 3400},
                             {"stage", QJsonObject{{"label", "PITCH"}, {"shape", "ellipse"}, {"x1", 1400}, {"y1", 1100}, {"x2", 3000}, {"y2", 2300}}},
                             {"rows", rows},
                             {"tiers", QJsonArray{QJsonObject{{"tier", "pavilion"}, {"price_minor", 9000}}, QJsonObject{{"tier", "lower"}, {"price_minor", 4500}},
                                                  QJsonObject{{"tier", "upper"}, {"price_minor", 3000}}}}};
    return QJsonDocument(QJsonObject{{"show_id", 1}, {"version", 1}, {"currency", "EUR"}, {"layout", layout}, {"seats", seats}}).toJson(QJsonDocument::Compact);
}

test::TestServer::Options paidServerOptions()
{
    test::TestServer::Options options;
    options.threads = 2;
    options.paymentWebhookSecret = test::PaySimProcess::kSecret;
    return options;
}

class KioskUi : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_NE(m_sim.port(), 0);
        m_showId = m_server.createShow(10, 16);
        m_config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.port()));
        m_config.paysim = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_sim.port()));
        m_config.token = m_server.deviceToken(QStringLiteral("kiosk"));
        m_config.journalPath = m_dir.filePath(QStringLiteral("journal.sqlite"));
        m_config.printDir = m_dir.filePath(QStringLiteral("prints"));
        m_config.seatMapPollMs = 1000;
        m_config.language = test::screenshotLanguage(); // German in the .de runs
    }
    test::TestServer m_server{paidServerOptions()};
    test::PaySimProcess m_sim{m_server, {}}; // the kiosk's simulated card terminal pays here
    QTemporaryDir m_dir;
    AppConfig m_config;
    qint64 m_showId = 0;
};
} // namespace

TEST_F(KioskUi, WalksTheFlowLandscapeAndSavesEveryScreen)
{
    // A venue in another zone than this machine's: the thanks screen shows the show time as the venue's clock has it.
    m_server.scalar(QStringLiteral("UPDATE cities SET time_zone = 'Asia/Kolkata' RETURNING city_id"));
    Ui ui = loadUi(m_config, QSize(1920, 1080));
    ASSERT_NE(ui.window, nullptr) << "Main.qml did not load";
    QString error;
    const QStringList steps = walkKiosk(*ui.kiosk, ui.window, kShots + QStringLiteral("/landscape"), &error);
    // The whole paid walk: a declined card, then an approved one, printed.
    EXPECT_EQ(steps, (QStringList{"attract", "shows", "seats", "seats-selected", "summary", "payment", "declined", "thanks"}))
        << error.toStdString();
    EXPECT_EQ(test::unexpectedGraphicsApi(ui.window), QString());
    EXPECT_FALSE(ui.kiosk->bookingRef().isEmpty());
    EXPECT_EQ(ui.kiosk->printState(), QStringLiteral("printed"));
    EXPECT_EQ(m_server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(m_showId)).toInt(), 2);

    // The thanks screen names what was booked, as the database has it: the two seats (one row, side by side), the
    // show's start on the venue's clock, its screen, and the two tickets that came out of the printer.
    ASSERT_EQ(ui.kiosk->screen(), QStringLiteral("thanks"));
    const QStringList booked = m_server.scalar(QStringLiteral("SELECT string_agg(seat_id, ',' ORDER BY seat_id) FROM show_seats "
                                                               "WHERE show_id = %1 AND status = 'booked'").arg(m_showId)).toString().split(QLatin1Char(','));
    ASSERT_EQ(booked.size(), 2);
    const QRegularExpression seatId(QStringLiteral("^([A-Z]+)(\\d+)$"));
    const QRegularExpressionMatch first = seatId.match(booked[0]);
    const QRegularExpressionMatch second = seatId.match(booked[1]);
    ASSERT_TRUE(first.hasMatch() && second.hasMatch()) << qPrintable(booked.join(QLatin1Char(',')));
    ASSERT_EQ(first.captured(1), second.captured(1));
    QStringList numbers{first.captured(2), second.captured(2)};
    std::sort(numbers.begin(), numbers.end(), [](const QString &a, const QString &b) { return a.toInt() < b.toInt(); });
    const QString seatsText = test::shown("marquee::app::KioskController", "Row %1, seats %2").arg(first.captured(1), QLocale().createSeparatedList(numbers));
    const QDateTime startsAt = QDateTime::fromString(
        m_server.scalar(QStringLiteral("SELECT to_char(starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM shows WHERE show_id = %1").arg(m_showId)).toString(),
        Qt::ISODate);
    const QTimeZone kolkata("Asia/Kolkata");
    const QString venueClock = startsAt.toTimeZone(kolkata).toString(QStringLiteral("HH:mm"));
    ASSERT_NE(venueClock, startsAt.toUTC().toString(QStringLiteral("HH:mm")));
    const QString screenName = m_server.scalar(QStringLiteral("SELECT c.name FROM shows s JOIN screens c USING (screen_id) WHERE s.show_id = %1").arg(m_showId)).toString();
    const auto shownText = [&](const char *name) {
        QQuickItem *item = test::itemNamed(ui.window, QString::fromLatin1(name));
        return item ? item->property("text").toString() : QStringLiteral("(no %1 on screen)").arg(QString::fromLatin1(name));
    };
    EXPECT_EQ(shownText("thanksSeats"), seatsText);
    EXPECT_TRUE(shownText("thanksTime").contains(venueClock)) << qPrintable(shownText("thanksTime")) << " lacks " << qPrintable(venueClock);
    if (zoneLabelNeeded(startsAt, kolkata)) { // this machine's clock is not the venue's: the time says whose it is
        EXPECT_TRUE(shownText("thanksTime").endsWith(zoneAbbreviation(startsAt, kolkata))) << qPrintable(shownText("thanksTime"));
    }
    EXPECT_EQ(shownText("thanksTime"), venueDayAndTime(startsAt, kolkata));
    EXPECT_EQ(shownText("thanksScreen"), screenName);
    EXPECT_EQ(shownText("thanksPrinted"), test::shown("ThanksScreen", "%1 tickets printed. Please take them and your receipt below.").arg(2));
    unload(ui);
}

TEST_F(KioskUi, PortraitSeatMapConflictOfflineAndGerman)
{
    Ui ui = loadUi(m_config, QSize(1080, 1920));
    ASSERT_NE(ui.window, nullptr);
    KioskController &kiosk = *ui.kiosk;
    const QString dir = kShots + QStringLiteral("/portrait");
    kiosk.start();
    ASSERT_TRUE(waitUntil([&] { return kiosk.movies()->count() > 0; }));
    EXPECT_FALSE(saveScreenshot(ui.window, dir, QStringLiteral("01-attract")).isEmpty());
    EXPECT_EQ(test::unexpectedGraphicsApi(ui.window), QString());
    // The language is switched on the attract screen: the other one, then back to this run's.
    const QString otherLanguage = m_config.language == QLatin1String("de") ? QStringLiteral("en") : QStringLiteral("de");
    kiosk.setLanguage(otherLanguage);
    saveScreenshot(ui.window, dir, QStringLiteral("02-attract-") + otherLanguage);
    kiosk.openMovie(m_server.lastMovieId());
    ASSERT_TRUE(waitUntil([&] { return kiosk.shows()->count() > 0; }));
    saveScreenshot(ui.window, dir, QStringLiteral("03-shows-") + otherLanguage);
    kiosk.setLanguage(m_config.language);
    kiosk.openShow(m_showId);
    ASSERT_TRUE(waitUntil([&] { return kiosk.seatMap()->seatCount() == 160; }));
    kiosk.toggleSeat(QStringLiteral("E8"));
    kiosk.toggleSeat(QStringLiteral("E9"));
    saveScreenshot(ui.window, dir, QStringLiteral("04-seats"));

    // The seat is tapped on the map itself: find the SeatMap item and tap where F3 is drawn.
    auto *map = findItem<SeatMapItem>(ui.window->contentItem());
    ASSERT_NE(map, nullptr);
    EXPECT_EQ(map->seatAt(map->seatPosition(QStringLiteral("F3")).x(), map->seatPosition(QStringLiteral("F3")).y()), QStringLiteral("F3"));
    if (!map->seatsTappable()) {
        // Seats below touch size: the first tap zooms in where it landed and selects nothing.
        QTest::mouseClick(ui.window, Qt::LeftButton, {}, map->mapToScene(map->seatPosition(QStringLiteral("F3"))).toPoint());
        EXPECT_FALSE(kiosk.seatMap()->selectedSeats().contains(QStringLiteral("F3")));
        EXPECT_TRUE(map->seatsTappable());
    }
    EXPECT_GE(map->seatPixels(), 48);
    const QPointF f3 = map->mapToScene(map->seatPosition(QStringLiteral("F3")));
    QTest::mouseClick(ui.window, Qt::LeftButton, {}, f3.toPoint());
    ASSERT_TRUE(waitUntil([&] { return kiosk.seatMap()->selectedSeats().contains(QStringLiteral("F3")); }, 3000));
    kiosk.toggleSeat(QStringLiteral("F3"));

    // Someone else takes E9 before we hold.
    auto other = m_server.client(m_server.deviceToken());
    ASSERT_EQ(other->post(QStringLiteral("/api/v1/shows/%1/hold").arg(m_showId).toUtf8(), QJsonObject{{"seat_ids", QJsonArray{"E9"}}},
                          {{"Idempotency-Key", "ui-conflict"}}).status, 200);
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return !kiosk.busy() && !kiosk.seatMap()->highlightedSeats().isEmpty(); }));
    // Even when a poll dropped E9 from the selection first, the suggestion is for the party of two.
    EXPECT_EQ(kiosk.seatMap()->selectedCount(), 2) << kiosk.seatMap()->selectedSeats().join(QLatin1Char(',')).toStdString();
    saveScreenshot(ui.window, dir, QStringLiteral("05-seat-taken"));
    kiosk.holdSelection();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("summary"); }));
    saveScreenshot(ui.window, dir, QStringLiteral("06-summary"));
    unload(ui);

    // Offline, with the programme this kiosk has seen: browsing from the cache, the status bar says offline.
    AppConfig offline = m_config;
    QTcpServer closed;
    ASSERT_TRUE(closed.listen(QHostAddress::LocalHost));
    offline.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort()));
    closed.close();
    {
        Ui off = loadUi(offline, QSize(1080, 1920));
        off.kiosk->start();
        ASSERT_TRUE(waitUntil([&] { return off.kiosk->browsingFromCache() && off.kiosk->movies()->count() > 0; }));
        EXPECT_EQ(off.kiosk->screen(), QStringLiteral("attract"));
        EXPECT_FALSE(off.kiosk->online());
        EXPECT_FALSE(saveScreenshot(off.window, dir, QStringLiteral("07-offline-browsing")).isEmpty());
        unload(off);
    }
    // Offline on a kiosk that never saw the programme: only the offline screen.
    offline.journalPath = m_dir.filePath(QStringLiteral("fresh.sqlite"));
    Ui off = loadUi(offline, QSize(1080, 1920));
    off.kiosk->start();
    ASSERT_TRUE(waitUntil([&] { return off.kiosk->screen() == QLatin1String("offline"); }));
    EXPECT_FALSE(saveScreenshot(off.window, dir, QStringLiteral("08-offline")).isEmpty());
    unload(off);
}

TEST_F(KioskUi, InsecureHttpKeepsItsWarningAboveTheScreens)
{
    // Started with --allow-insecure-http: the warning stays on top of every screen, whole, in the kiosk's language.
    const test::InsecureHttpAllowed insecure;
    Ui ui = loadUi(m_config, QSize(1920, 1080));
    ASSERT_NE(ui.window, nullptr);
    KioskController &kiosk = *ui.kiosk;
    const QString dir = kShots + QStringLiteral("/insecure");
    kiosk.start();
    ASSERT_TRUE(waitUntil([&] { return kiosk.screen() == QLatin1String("attract") && kiosk.movies()->count() > 0; }));
    EXPECT_EQ(test::InsecureHttpAllowed::bannerText(ui.window), test::InsecureHttpAllowed::warning());
    EXPECT_FALSE(saveScreenshot(ui.window, dir, QStringLiteral("01-attract")).isEmpty());
    kiosk.openMovie(m_server.lastMovieId());
    ASSERT_TRUE(waitUntil([&] { return !kiosk.shows()->loading() && kiosk.shows()->count() > 0; }));
    kiosk.openShow(m_showId);
    ASSERT_TRUE(waitUntil([&] { return kiosk.seatMap()->seatCount() == 160; }));
    EXPECT_EQ(test::InsecureHttpAllowed::bannerText(ui.window), test::InsecureHttpAllowed::warning());
    EXPECT_FALSE(saveScreenshot(ui.window, dir, QStringLiteral("02-seats")).isEmpty());
    unload(ui);
}

TEST_F(KioskUi, StadiumOf40000SeatsDrawsAndUpdatesQuickly)
{
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QQmlComponent component(&engine);
    component.setData("import QtQuick\nimport Marquee.App\nWindow { width: 1600; height: 1000; visible: true; color: '#0A0E19'\n"
                      "  property alias map: map\n  SeatMap { id: map; anchors.fill: parent } }",
                      QUrl());
    std::unique_ptr<QObject> root(component.create());
    ASSERT_TRUE(root) << component.errorString().toStdString();
    auto *window = qobject_cast<QQuickWindow *>(root.get());
    auto *map = root->property("map").value<SeatMapItem *>();
    ASSERT_NE(map, nullptr);
    ASSERT_TRUE(waitUntil([&] { return window->isExposed(); }, 10000));
    SeatMapModel model;
    const QByteArray body = stadiumBody(64, 25, 25); // 40,000 seats
    QElapsedTimer timer;
    timer.start();
    ASSERT_TRUE(model.applyBody(body, "\"1\""));
    const qint64 parseMs = timer.elapsed();
    EXPECT_EQ(model.seatCount(), 40000);
    map->setModel(&model);
    timer.restart();
    const QImage first = window->grabWindow(); // renders a frame synchronously
    const qint64 firstFrameMs = timer.elapsed();
    ASSERT_FALSE(first.isNull());
    EXPECT_EQ(test::unexpectedGraphicsApi(window), QString());
    // Seats are below a pixel here: the OpenGL scene graph (no antialiasing) lights fewer pixels for them than the
    // software painter; one sector alone (the old single-node map on OpenGL) lit about 1,000. SeatMapRender checks
    // every seat at a size where each covers pixels.
    EXPECT_GT(paintedPixels(first), 10000) << "the seats are drawn";
    first.save(kShots + QStringLiteral("/stadium-40000.png"));

    // 100 seats change status: only their vertices are rewritten.
    QJsonDocument doc = QJsonDocument::fromJson(body);
    QJsonObject object = doc.object();
    QJsonArray seats = object.value("seats").toArray();
    for (int i = 0; i < 100; ++i) {
        QJsonObject seat = seats[i * 397].toObject();
        seat["status"] = seat["status"].toString() == "available" ? "held" : "available";
        seats[i * 397] = seat;
    }
    object["seats"] = seats;
    const QByteArray changed = QJsonDocument(object).toJson(QJsonDocument::Compact);
    timer.restart();
    ASSERT_TRUE(model.applyBody(changed, "\"2\""));
    const qint64 applyMs = timer.elapsed();
    timer.restart();
    window->grabWindow();
    const qint64 updateFrameMs = timer.elapsed();

    // The same 100 changes as a pushed delta ([{seat_id, status}], parsed from its JSON text each time): only
    // those seats are touched. Median of 21 runs, flipping the seats back and forth.
    std::vector<qint64> deltaNs;
    for (int run = 0; run < 21; ++run) {
        QJsonArray changes;
        for (int i = 0; i < 100; ++i) {
            const QJsonObject seat = seats[i * 397].toObject();
            const bool flip = run % 2 == 0;
            const QString status = seat["status"].toString();
            changes.append(QJsonObject{{"seat_id", seat["seat_id"]}, {"status", flip ? (status == "available" ? "held" : "available") : status}});
        }
        const QByteArray message = QJsonDocument(QJsonObject{{"type", "delta"}, {"changes", changes}}).toJson(QJsonDocument::Compact);
        QElapsedTimer deltaTimer;
        deltaTimer.start();
        const int applied = model.applyStatusChanges(QJsonDocument::fromJson(message).object().value(QStringLiteral("changes")).toArray());
        deltaNs.push_back(deltaTimer.nsecsElapsed());
        EXPECT_EQ(applied, 100);
    }
    std::sort(deltaNs.begin(), deltaNs.end());
    timer.restart();
    window->grabWindow();
    const qint64 deltaFrameMs = timer.elapsed();
    std::printf("stadium 40000 seats: delta of 100 seat changes parse+apply median %.3f ms (min %.3f, max %.3f), frame after %lld ms\n",
                deltaNs[deltaNs.size() / 2] / 1e6, deltaNs.front() / 1e6, deltaNs.back() / 1e6, deltaFrameMs);
    map->zoomBy(6, 800, 200);
    const QImage zoomed = window->grabWindow();
    EXPECT_GT(paintedPixels(zoomed), 1000) << "seats still drawn after zooming in";
    zoomed.save(kShots + QStringLiteral("/stadium-40000-zoomed.png"));
    std::printf("stadium 40000 seats: parse %lld ms, first frame %lld ms, apply 100 changes %lld ms (parse of full body), frame after %lld ms\n",
                parseMs, firstFrameMs, applyMs, updateFrameMs);
    EXPECT_GT(map->geometryUploads(), 1);
}
