// SPDX-License-Identifier: AGPL-3.0-or-later
// The seat map as the scene graph draws it, checked pixel by pixel: every seat of the demo's 40,000-seat stadium
// must show in a grab of the whole map; taps pick a block until seats are at touch size; seats picked for the
// customer are brought into view. Run as SeatMapRender.opengl (a real X server with Mesa, the OpenGL scene
// graph) and SeatMapRender.software (tests/CMakeLists.txt); a renderer that drops geometry shows here.
#include "screenshots.h"
#include "seatmapitem.h"
#include "startup/demoseed.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointingDevice>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>

using namespace marquee;
using namespace marquee::app;

namespace {

const QColor kBackground(0x0A0E19);

/** @brief The seat map body the server sends for @p layout, with a mix of available, held and booked seats. */
QByteArray seatMapBody(const store::NewLayout &layout)
{
    QJsonArray seats;
    int i = 0;
    for (const Seat &seat : layout.seats) {
        const char *status = i % 7 == 3 ? "booked" : i % 11 == 5 ? "held" : "available";
        QJsonObject object = toJson(seat);
        object.insert(QStringLiteral("price_minor"), seat.tier == "pavilion" ? 750000 : seat.tier == "lower" ? 300000 : 150000);
        object.insert(QStringLiteral("status"), QString::fromLatin1(status));
        seats.append(object);
        ++i;
    }
    QJsonArray rows;
    for (const store::NewLayoutRow &row : layout.rows)
        rows.append(QJsonObject{{"label", row.label}, {"x", row.x}, {"y", row.y}});
    const QJsonObject body{{"show_id", 1}, {"version", 1}, {"currency", "INR"},
                           {"layout", QJsonObject{{"name", layout.name}, {"width", layout.width}, {"height", layout.height}, {"stage", layout.stage},
                                                  {"rows", rows},
                                                  {"tiers", QJsonArray{QJsonObject{{"tier", "pavilion"}, {"price_minor", 750000}},
                                                                       QJsonObject{{"tier", "lower"}, {"price_minor", 300000}},
                                                                       QJsonObject{{"tier", "upper"}, {"price_minor", 150000}}}}}},
                           {"seats", seats}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

bool differsFromBackground(QRgb pixel)
{
    return std::abs(qRed(pixel) - kBackground.red()) + std::abs(qGreen(pixel) - kBackground.green()) + std::abs(qBlue(pixel) - kBackground.blue()) > 24;
}

/** @brief Whether the cell of seat @p index in @p grab holds anything but background. The cell is the square of the
 * drawn seat (0.8 of the pitch, a little less): its own shape, never a neighbour's. */
bool seatCellLit(const QImage &grab, const SeatMapItem &map, const MapSeat &seat, qreal dpr)
{
    const QPointF centre = (QPointF(map.viewX(), map.viewY()) + QPointF(seat.x, seat.y) * map.viewScale()) * dpr;
    const qreal half = map.seatPitch() * 0.4 * 0.9 * map.viewScale() * dpr;
    for (int y = int(std::floor(centre.y() - half)); y <= int(std::ceil(centre.y() + half)); ++y)
        for (int x = int(std::floor(centre.x() - half)); x <= int(std::ceil(centre.x() + half)); ++x)
            if (grab.valid(x, y) && differsFromBackground(grab.pixel(x, y)))
                return true;
    return false;
}

struct MapWindow {
    QQmlEngine engine;
    std::unique_ptr<QObject> root;
    QQuickWindow *window = nullptr;
    SeatMapItem *map = nullptr;
};

std::unique_ptr<MapWindow> openMapWindow(QSize size)
{
    auto w = std::make_unique<MapWindow>();
    w->engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QQmlComponent component(&w->engine);
    component.setData(QStringLiteral("import QtQuick\nimport Marquee.App\nWindow { width: %1; height: %2; visible: true; color: '%3'\n"
                                     "  property alias map: map\n  SeatMap { id: map; anchors.fill: parent } }")
                          .arg(size.width())
                          .arg(size.height())
                          .arg(kBackground.name())
                          .toUtf8(),
                      QUrl());
    w->root.reset(component.create());
    if (!w->root) {
        ADD_FAILURE() << component.errorString().toStdString();
        return nullptr;
    }
    w->window = qobject_cast<QQuickWindow *>(w->root.get());
    w->map = w->root->property("map").value<SeatMapItem *>();
    if (!w->window || !w->map || !QTest::qWaitForWindowExposed(w->window, 10000)) {
        ADD_FAILURE() << "the map window did not show";
        return nullptr;
    }
    return w;
}

} // namespace

TEST(SeatMapRender, EverySeatOfTheDemoStadiumIsDrawnInTheFullMap)
{
    const store::NewLayout layout = demoStadiumLayout();
    ASSERT_EQ(layout.seats.size(), 40000u);
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(layout), "\"1\""));
    ASSERT_EQ(model.seatCount(), 40000);

    // Large enough that every seat covers a few pixels in the fitted, whole-map view.
    auto w = openMapWindow(QSize(4400, 3400));
    ASSERT_TRUE(w);
    w->map->setModel(&model);
    const QImage grab = w->window->grabWindow();
    ASSERT_FALSE(grab.isNull());
    EXPECT_EQ(test::unexpectedGraphicsApi(w->window), QString());
    const QString dir = test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));
    QDir().mkpath(dir);
    grab.save(dir + QStringLiteral("/stadium-demo-40000-full.png"));
    const qreal dpr = w->window->effectiveDevicePixelRatio();
    ASSERT_GE(w->map->seatPitch() * 0.8 * w->map->viewScale() * dpr, 3.0) << "seats too small to count";

    int lit = 0;
    QStringList missing;
    for (const MapSeat &seat : model.seats()) {
        if (seatCellLit(grab, *w->map, seat, dpr))
            ++lit;
        else if (missing.size() < 10)
            missing << seat.seatId;
    }
    EXPECT_EQ(lit, 40000) << "seats not drawn, first of them: " << missing.join(QStringLiteral(", ")).toStdString() << " ("
                          << test::graphicsApiName(w->window).toStdString() << " scene graph)";
    // And the count can tell: the middle of the pitch, inside its boundary ring, has no seat and stays dark.
    const QRectF pitch = model.stageRect();
    const QPointF middle = (QPointF(w->map->viewX(), w->map->viewY()) + pitch.center() * w->map->viewScale()) * dpr;
    EXPECT_FALSE(differsFromBackground(grab.pixel(middle.toPoint())));

    // One seat changes: only the geometry node holding it is uploaded again, and the change shows.
    const int nodeUploads = w->map->nodeUploads();
    const MapSeat &changed = model.seats()[31235];
    ASSERT_EQ(changed.status, SeatStatus::Available);
    const QPointF at = (QPointF(w->map->viewX(), w->map->viewY()) + QPointF(changed.x, changed.y) * w->map->viewScale()) * dpr;
    const QRgb before = grab.pixel(at.toPoint());
    ASSERT_EQ(model.applyStatusChanges(QJsonArray{QJsonObject{{"seat_id", changed.seatId}, {"status", "held"}}}), 1);
    const QImage after = w->window->grabWindow();
    EXPECT_NE(after.pixel(at.toPoint()), before) << "a held seat is hollow in the middle";
    if (test::graphicsApiName(w->window) != QLatin1String("software"))
        EXPECT_EQ(w->map->nodeUploads() - nodeUploads, 1);
}

namespace {

/** @brief The centre of @p seatId in window coordinates. */
QPoint seatInWindow(const SeatMapItem &map, const QString &seatId)
{
    return map.mapToScene(map.seatPosition(seatId)).toPoint();
}

} // namespace

TEST(SeatMapRender, TappingAStadiumBlockZoomsToItWithSeatsOfTouchSizeThenASeatTapSelects)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(demoStadiumLayout()), "\"1\""));
    ASSERT_EQ(model.sections().size(), 40u) << "40 blocks of the bowl";
    auto w = openMapWindow(QSize(1920, 1080));
    ASSERT_TRUE(w);
    w->map->setModel(&model);
    w->window->grabWindow();
    // The whole bowl: seats of 1–2 px, far below a fingertip; taps pick blocks.
    EXPECT_LT(w->map->seatPixels(), 8);
    EXPECT_FALSE(w->map->seatsTappable());
    QSignalSpy seatTaps(w->map, &SeatMapItem::seatTapped);
    QSignalSpy sectionTaps(w->map, &SeatMapItem::sectionTapped);

    // A tap on block E03 (by touch, as on the kiosk): no seat, the block, zoomed to touch size and in view.
    const QString inBlock = QStringLiteral("E03-M20");
    ASSERT_GE(model.indexOf(inBlock), 0);
    static QPointingDevice *touchscreen = QTest::createTouchDevice();
    const QPoint at = seatInWindow(*w->map, inBlock);
    QTest::touchEvent(w->window, touchscreen).press(0, at);
    QTest::touchEvent(w->window, touchscreen).release(0, at);
    QCoreApplication::processEvents();
    EXPECT_EQ(seatTaps.count(), 0) << "a tap below touch zoom never selects a seat";
    ASSERT_EQ(sectionTaps.count(), 1);
    EXPECT_EQ(sectionTaps.first().first().toString(), QStringLiteral("E03"));
    EXPECT_GE(w->map->seatPixels(), 48);
    EXPECT_TRUE(w->map->seatsTappable());
    const QPointF centre = w->map->sectionRect(QStringLiteral("E03")).center();
    EXPECT_NEAR(centre.x(), w->map->width() / 2, 2);
    EXPECT_NEAR(centre.y(), w->map->height() / 2, 2);
    const QImage zoomed = w->window->grabWindow();
    const QString dir = test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));
    QDir().mkpath(dir);
    zoomed.save(dir + QStringLiteral("/stadium-demo-block-E03.png"));

    // Now a seat of the block is tapped: that seat, at least 48 px under the finger.
    const QString seat = QStringLiteral("E03-M20");
    const QPointF p = w->map->seatPosition(seat);
    ASSERT_TRUE(QRectF(0, 0, w->map->width(), w->map->height()).contains(p));
    QTest::mouseClick(w->window, Qt::LeftButton, {}, seatInWindow(*w->map, seat));
    ASSERT_EQ(seatTaps.count(), 1);
    EXPECT_EQ(seatTaps.first().first().toString(), seat);
    // A neighbour one seat pitch away is another target: pitch on screen is at least the touch size.
    EXPECT_GE(w->map->seatPitch() * w->map->viewScale(), 48);

    // Zoomed out again, a tap on a seat's exact position still picks its block, not the seat.
    w->map->resetView();
    QTest::mouseClick(w->window, Qt::LeftButton, {}, seatInWindow(*w->map, QStringLiteral("S07-A01")));
    EXPECT_EQ(seatTaps.count(), 1);
    ASSERT_EQ(sectionTaps.count(), 2);
    EXPECT_EQ(sectionTaps.last().first().toString(), QStringLiteral("S07"));
}

TEST(SeatMapRender, SeatsPickedForTheCustomerArePannedAndZoomedTo)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(demoStadiumLayout()), "\"1\""));
    auto w = openMapWindow(QSize(1080, 1920));
    ASSERT_TRUE(w);
    w->map->setModel(&model);
    w->window->grabWindow();
    ASSERT_FALSE(w->map->seatsTappable());
    const QRectF view(0, 0, w->map->width(), w->map->height());

    // Best available (the kiosk's and till's "Find"): four seats, all in view at touch size.
    ASSERT_TRUE(model.selectBestAvailable(4));
    const QStringList picked = model.selectedSeats();
    ASSERT_EQ(picked.size(), 4);
    EXPECT_GE(w->map->seatPixels(), 48);
    for (const QString &id : picked)
        EXPECT_TRUE(view.contains(w->map->seatPosition(id))) << id.toStdString();
    const QImage shown = w->window->grabWindow();
    const QString dir = test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));
    QDir().mkpath(dir);
    shown.save(dir + QStringLiteral("/stadium-demo-find-4.png"));

    // Someone takes one of them: the map moves to the block suggested instead, far away or not.
    w->map->resetView();
    model.markTaken({picked.first()}, 4);
    ASSERT_EQ(model.selectedCount(), 4);
    EXPECT_GE(w->map->seatPixels(), 48);
    for (const QString &id : model.selectedSeats())
        EXPECT_TRUE(view.contains(w->map->seatPosition(id))) << id.toStdString();
    EXPECT_TRUE(view.contains(w->map->seatPosition(picked.first()))) << "the taken seat is shown next to the suggestion";
}

TEST(SeatMapRender, ACinemaWithoutSectionsZoomsToTouchSizeBeforeATapSelects)
{
    // A 30 × 40 hall in a small window: seats below 48 px at the fitted zoom, no blocks.
    store::NewLayout hall;
    hall.name = QStringLiteral("Hall");
    for (int r = 0; r < 30; ++r)
        for (int n = 1; n <= 40; ++n)
            hall.seats.push_back({QString(QChar(u'A' + r % 26)) + QString::number(r / 26) + QStringLiteral("-") + QString::number(n),
                                  QString(QChar(u'A' + r % 26)) + QString::number(r / 26), n, n * 30, r * 34, QStringLiteral("upper"), {}});
    // Rows "A0", "B0": no dash before a block name, so no sections even though the seat ids have one.
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(hall), "\"1\""));
    EXPECT_TRUE(model.sections().empty());
    auto w = openMapWindow(QSize(1280, 800));
    ASSERT_TRUE(w);
    w->map->setModel(&model);
    w->window->grabWindow();
    ASSERT_FALSE(w->map->seatsTappable()) << w->map->seatPixels();
    QSignalSpy seatTaps(w->map, &SeatMapItem::seatTapped);
    const QString seat = QStringLiteral("P0-20");
    QTest::mouseClick(w->window, Qt::LeftButton, {}, seatInWindow(*w->map, seat));
    EXPECT_EQ(seatTaps.count(), 0);
    EXPECT_GE(w->map->seatPixels(), 48);
    EXPECT_TRUE(QRectF(0, 0, w->map->width(), w->map->height()).contains(w->map->seatPosition(seat))) << "zoomed in where the tap landed";
    QTest::mouseClick(w->window, Qt::LeftButton, {}, seatInWindow(*w->map, seat));
    ASSERT_EQ(seatTaps.count(), 1);
    EXPECT_EQ(seatTaps.first().first().toString(), seat);

    // A big window where the whole hall is at touch size: the first tap selects.
    auto big = openMapWindow(QSize(4000, 2400));
    ASSERT_TRUE(big);
    big->map->setModel(&model);
    big->window->grabWindow();
    ASSERT_TRUE(big->map->seatsTappable()) << big->map->seatPixels();
    QSignalSpy bigTaps(big->map, &SeatMapItem::seatTapped);
    QTest::mouseClick(big->window, Qt::LeftButton, {}, seatInWindow(*big->map, seat));
    ASSERT_EQ(bigTaps.count(), 1);
}
