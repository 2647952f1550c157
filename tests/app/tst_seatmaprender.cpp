// SPDX-License-Identifier: AGPL-3.0-or-later
// The seat map as the scene graph draws it, checked pixel by pixel: every seat of the demo's 40,000-seat stadium
// must show in a grab of the whole map. Run as SeatMapRender.opengl (a real X server with Mesa, the OpenGL scene
// graph) and SeatMapRender.software (tests/CMakeLists.txt); a renderer that drops geometry shows here.
#include "screenshots.h"
#include "seatmapitem.h"
#include "startup/demoseed.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickWindow>
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
    for (const store::NewLayoutSeat &seat : layout.seats) {
        const char *status = i % 7 == 3 ? "booked" : i % 11 == 5 ? "held" : "available";
        seats.append(QJsonObject{{"seat_id", seat.seatId}, {"row", seat.row}, {"number", seat.number}, {"x", seat.x}, {"y", seat.y},
                                 {"tier", seat.tier}, {"price_minor", seat.tier == "pavilion" ? 750000 : seat.tier == "lower" ? 300000 : 150000},
                                 {"attributes", QJsonArray::fromStringList(seat.attributes)}, {"status", status}});
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
    ASSERT_EQ(changed.status, 'a');
    const QPointF at = (QPointF(w->map->viewX(), w->map->viewY()) + QPointF(changed.x, changed.y) * w->map->viewScale()) * dpr;
    const QRgb before = grab.pixel(at.toPoint());
    ASSERT_EQ(model.applyStatusChanges(QJsonArray{QJsonObject{{"seat_id", changed.seatId}, {"status", "held"}}}), 1);
    const QImage after = w->window->grabWindow();
    EXPECT_NE(after.pixel(at.toPoint()), before) << "a held seat is hollow in the middle";
    if (test::graphicsApiName(w->window) != QLatin1String("software"))
        EXPECT_EQ(w->map->nodeUploads() - nodeUploads, 1);
}
