// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-appbench: the app's performance figures, run by hand (never by CTest); see docs/performance.md for the
// current figures and docs/perf/journal.md for the dated runs.
//  1. frame time of the 400-seat cinema map while zooming (sync + render + swap of each frame), next to the
//     same window with nothing but a rectangle (anchor, same run);
//  2. a 100-seat status change through the live path: a WebSocket delta in the server's format over loopback into
//     LiveSeatFeed → SeatMapModel::applyStatusChanges on the 40,000-seat map, next to the full-body apply the poll
//     needs (anchor, same run);
//  3. the 40,000-seat map on screen: its first frame (sync + render of the window once the map is set), and the
//     frame that draws a 100-seat change, next to a frame with nothing changed (anchor, same window);
//  4. resident memory of the process with the whole kiosk UI (Main.qml and its controller) loaded and a
//     40,000-seat map drawn in its window, next to the bare process and the UI without the map (anchors);
//     --memory-only measures it in a fresh process, as the app runs: one window, one render thread.
// Usage: QT_QPA_PLATFORM=offscreen marquee-appbench [--frames N] [--runs N] [--memory-only]
//        (GPU path: tests/support/with-xvfb env QT_QPA_PLATFORM=xcb QSG_RHI_BACKEND=opengl marquee-appbench ...)
#include "kioskapp.h"
#include "kioskcontroller.h"
#include "liveseatfeed.h"
#include "seatmapitem.h"
#include "seatmapmodel.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QQmlComponent>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

using namespace marquee::app;

namespace {

void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

bool waitFor(const std::function<bool()> &done, int ms = 10000)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    return done();
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

/** @brief The @p fraction quantile (0..1) of @p values, nearest rank. */
double quantile(std::vector<double> values, double fraction)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, static_cast<std::size_t>(fraction * values.size()))];
}

/** @brief "3 (#0, #17, #40)": how many frames took longer than @p limitMs, and which. */
std::string slowFrames(const std::vector<double> &times, double limitMs)
{
    std::string which;
    int count = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (times[i] <= limitMs)
            continue;
        which += (count++ ? ", #" : "#") + std::to_string(i) + " " + std::to_string(static_cast<int>(times[i])) + " ms";
    }
    return std::to_string(count) + (count ? " (" + which + ")" : "");
}

/** @brief kB from /proc/self/status ("VmRSS", "VmHWM"). */
long procStatus(const char *field)
{
    QFile file(QStringLiteral("/proc/self/status"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : file.readAll().split('\n'))
        if (line.startsWith(field))
            return line.mid(qstrlen(field) + 1).trimmed().split(' ').first().toLong();
    return -1;
}

/** @brief A seat map body as the server sends it: a cinema of rows × seats, or a stadium of blocks. */
QByteArray seatMapBody(int rows, int perRow, bool stadium)
{
    QJsonArray seats;
    QJsonArray rowLabels;
    for (int r = 0; r < rows; ++r) {
        const QString row = stadium ? QStringLiteral("B%1-%2").arg(r / 25).arg(r % 25) : QString(QChar(u'A' + (r % 26))) + (r >= 26 ? QString::number(r / 26) : QString());
        for (int n = 1; n <= perRow; ++n) {
            double x = n * 12, y = r * 14 + 60;
            if (stadium) {
                const int block = r / 25, rr = r % 25;
                const double span = 2 * M_PI / 64, a = block * span + span * 0.04 + span * 0.92 * (n - 0.5) / perRow, radius = 700 + rr * 11;
                x = 2200 + std::cos(a) * radius * 1.3;
                y = 1700 + std::sin(a) * radius;
            }
            seats.append(QJsonObject{{"seat_id", row + QLatin1Char('-') + QString::number(n)}, {"row", row}, {"number", n}, {"x", qRound(x)}, {"y", qRound(y)},
                                     {"tier", r < rows / 3 ? "premium" : "standard"}, {"price_minor", r < rows / 3 ? 1800 : 1250},
                                     {"attributes", r == 0 && n <= 2 ? QJsonArray{"wheelchair"} : QJsonArray{}},
                                     {"status", (n * 7 + r * 3) % 5 == 0 ? "booked" : ((n + r) % 11 == 0 ? "held" : "available")}});
        }
        rowLabels.append(QJsonObject{{"label", row}, {"x", 0}, {"y", r * 14 + 60}});
    }
    const QJsonObject layout{{"name", stadium ? "Stadium" : "Screen 1"},
                             {"stage", QJsonObject{{"label", "SCREEN"}, {"shape", "rect"}, {"x1", 0}, {"y1", 0}, {"x2", perRow * 12 + 12}, {"y2", 20}}},
                             {"rows", stadium ? QJsonArray() : rowLabels},
                             {"tiers", QJsonArray{QJsonObject{{"tier", "premium"}, {"price_minor", 1800}}, QJsonObject{{"tier", "standard"}, {"price_minor", 1250}}}}};
    return QJsonDocument(QJsonObject{{"show_id", 1}, {"version", 1}, {"currency", "EUR"}, {"layout", layout}, {"seats", seats}}).toJson(QJsonDocument::Compact);
}

/** @brief Sync + render time of each frame of @p window while @p step changes the scene, in ms. */
std::vector<double> frameTimes(QQuickWindow *window, int frames, const std::function<void(int)> &step)
{
    std::vector<double> times;
    QElapsedTimer frame;
    bool rendered = false;
    auto a = QObject::connect(window, &QQuickWindow::beforeSynchronizing, window, [&] { frame.start(); }, Qt::DirectConnection);
    auto b = QObject::connect(window, &QQuickWindow::afterFrameEnd, window, [&] {
        times.push_back(frame.nsecsElapsed() / 1e6);
        rendered = true;
    }, Qt::DirectConnection);
    for (int i = 0; i < frames; ++i) {
        rendered = false;
        step(i);
        window->update();
        if (!waitFor([&] { return rendered; }, 2000)) {
            // No render loop ticking (some offscreen setups): grab renders one frame synchronously.
            frame.start();
            window->grabWindow();
            times.push_back(frame.nsecsElapsed() / 1e6);
        }
    }
    QObject::disconnect(a);
    QObject::disconnect(b);
    return times;
}

std::unique_ptr<QQuickWindow> makeWindow(QQmlEngine &engine, const QByteArray &qml)
{
    QQmlComponent component(&engine);
    component.setData(qml, QUrl());
    auto *window = qobject_cast<QQuickWindow *>(component.create());
    if (!window)
        std::fprintf(stderr, "%s\n", qPrintable(component.errorString()));
    return std::unique_ptr<QQuickWindow>(window);
}

} // namespace

int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    limitMallocArenas(); // as the app does
    QGuiApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("frames"), QStringLiteral("frames per zoom run"), QStringLiteral("N"), QStringLiteral("60")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("live deltas sent"), QStringLiteral("N"), QStringLiteral("21")});
    parser.addOption({QStringLiteral("memory-only"),
                      QStringLiteral("measure only resident memory, in a process that has opened no other window first (the app's shape: "
                                     "one window, one render thread)")});
    parser.addHelpOption();
    parser.process(app);
    const int frames = parser.value(QStringLiteral("frames")).toInt();
    const int runs = parser.value(QStringLiteral("runs")).toInt();
    const bool memoryOnly = parser.isSet(QStringLiteral("memory-only"));
    const long bareRss = procStatus("VmRSS:");

    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));

    // --- 1. 400-seat cinema, zooming -----------------------------------------------------------------------------
    if (!memoryOnly) {
        SeatMapModel model;
        if (!model.applyBody(seatMapBody(20, 20, false), "\"1\"")) {
            std::fprintf(stderr, "cinema body not read\n");
            return 1;
        }
        auto window = makeWindow(engine, "import QtQuick\nimport Marquee.App\nWindow { width: 1920; height: 1080; visible: true; color: '#0A0E19'\n"
                                         "  property alias map: map\n  SeatMap { id: map; anchors.fill: parent } }");
        auto anchor = makeWindow(engine, "import QtQuick\nWindow { width: 1920; height: 1080; visible: true; color: '#0A0E19'\n"
                                         "  property alias box: box\n  Rectangle { id: box; width: 400; height: 400; color: '#334066' } }");
        if (!window || !anchor)
            return 1;
        auto *map = window->property("map").value<SeatMapItem *>();
        map->setModel(&model);
        waitFor([&] { return window->isExposed() && anchor->isExposed(); });
        spin(200);
        // Warm-up, not measured: the first repaints of a new window are slow (its backing store and the painter warm up).
        const std::vector<double> warmUp = frameTimes(window.get(), 5, [&](int) { map->zoomBy(1.0, 960, 540); });
        std::printf("cinema window, first 5 repaints at the fitted zoom (warm-up, not counted):");
        for (double ms : warmUp)
            std::printf(" %.1f", ms);
        std::printf(" ms\n");
        // Zoom in and out around the centre in small steps, as a pinch does.
        const std::vector<double> seatFrames = frameTimes(window.get(), frames, [&](int i) {
            const qreal factor = (i / 10) % 2 == 0 ? 1.15 : 1 / 1.15;
            map->zoomBy(factor, 960, 540);
        });
        QObject *box = anchor->property("box").value<QObject *>();
        const std::vector<double> anchorFrames = frameTimes(anchor.get(), frames, [&](int i) { box->setProperty("x", i % 100); });
        std::printf("cinema 400 seats, zooming, %d frames: sync+render median %.3f ms, p95 %.3f ms (min %.3f, max %.3f); frames over 8 ms: %s; anchor (window with one rectangle) median %.3f ms; ratio %.2f; backend %s\n",
                    frames, median(seatFrames), quantile(seatFrames, 0.95), *std::min_element(seatFrames.begin(), seatFrames.end()), *std::max_element(seatFrames.begin(), seatFrames.end()),
                    slowFrames(seatFrames, 8.0).c_str(), median(anchorFrames), median(seatFrames) / std::max(1e-6, median(anchorFrames)),
                    window->rendererInterface()->graphicsApi() == QSGRendererInterface::Software ? "software scene graph" : "OpenGL (RHI)");
    }

    // --- 2. 100-seat change through the live path on the 40,000-seat map ------------------------------------------
    SeatMapModel stadium;
    const QByteArray stadiumMap = seatMapBody(64 * 25, 25, true);
    if (!stadium.applyBody(stadiumMap, "\"1\"") || stadium.seatCount() != 40000) {
        std::fprintf(stderr, "stadium body not read\n");
        return 1;
    }
    if (!memoryOnly) {
        QWebSocketServer server(QStringLiteral("bench"), QWebSocketServer::NonSecureMode);
        server.listen(QHostAddress::LocalHost);
        QWebSocket *peer = nullptr;
        QObject::connect(&server, &QWebSocketServer::newConnection, [&] { peer = server.nextPendingConnection(); });
        LiveSeatFeed feed;
        QObject::connect(&feed, &LiveSeatFeed::snapshotReceived, &stadium, [&](const QString &letters) { stadium.applyStatusLetters(letters); });
        QObject::connect(&feed, &LiveSeatFeed::deltaReceived, &stadium, [&](const QJsonArray &changes) { stadium.applyStatusChanges(changes); });
        feed.start(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort())), QStringLiteral("bench"), 1);
        waitFor([&] { return peer != nullptr; });
        QString letters(40000, u'a');
        peer->sendTextMessage(QString::fromUtf8(QJsonDocument(QJsonObject{{"type", "snapshot"}, {"show_id", 1}, {"epoch", "e1"}, {"version", 1},
                                                                          {"seat_count", 40000}, {"statuses", letters}}).toJson(QJsonDocument::Compact)));
        waitFor([&] { return feed.live(); });
        std::vector<double> liveMs;
        QElapsedTimer sent;
        bool applied = false;
        QObject::connect(&stadium, &SeatMapModel::statusesChanged, [&] {
            if (sent.isValid()) {
                liveMs.push_back(sent.nsecsElapsed() / 1e6);
                applied = true;
            }
        });
        for (int run = 0; run < runs; ++run) {
            QJsonArray changes;
            for (int i = 0; i < 100; ++i)
                changes.append(QJsonObject{{"seat_id", stadium.seats()[size_t(i * 397)].seatId}, {"status", run % 2 == 0 ? "held" : "available"}});
            const QString message = QString::fromUtf8(QJsonDocument(QJsonObject{{"type", "delta"}, {"show_id", 1}, {"version", 2 + run}, {"changes", changes}})
                                                          .toJson(QJsonDocument::Compact));
            applied = false;
            sent.start();
            peer->sendTextMessage(message);
            waitFor([&] { return applied; }, 5000);
            sent.invalidate();
        }
        // Anchor: what the poll costs for the same change — parse and apply the whole 40,000-seat body.
        std::vector<double> bodyMs;
        for (int run = 0; run < 3; ++run) {
            QElapsedTimer timer;
            timer.start();
            stadium.applyBody(stadiumMap, QByteArray::number(run + 2));
            bodyMs.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::printf("live delta of 100 seat changes on 40000 seats (WebSocket loopback → LiveSeatFeed → applyStatusChanges), %zu runs: median %.3f ms (min %.3f, max %.3f); anchor full-body apply (poll) median of 3 %.1f ms; ratio %.4f\n",
                    liveMs.size(), median(liveMs), liveMs.empty() ? 0 : *std::min_element(liveMs.begin(), liveMs.end()),
                    liveMs.empty() ? 0 : *std::max_element(liveMs.begin(), liveMs.end()), median(bodyMs), median(liveMs) / std::max(1e-6, median(bodyMs)));
    }

    // --- 3. the 40,000-seat map on screen: first frame, the frame after a 100-seat delta ---------------------------
    if (!memoryOnly) {
        std::vector<double> firstMs, deltaMs, idleMs;
        QString backend;
        for (int run = 0; run < 3; ++run) {
            SeatMapModel model;
            model.applyBody(stadiumMap, "\"1\"");
            auto window = makeWindow(engine, "import QtQuick\nimport Marquee.App\nWindow { width: 1920; height: 1080; visible: true; color: '#0A0E19'\n"
                                             "  property alias map: map\n  SeatMap { id: map; anchors.fill: parent } }");
            if (!window)
                return 1;
            auto *map = window->property("map").value<SeatMapItem *>();
            waitFor([&] { return window->isExposed(); });
            spin(100);
            firstMs.push_back(frameTimes(window.get(), 1, [&](int) { map->setModel(&model); }).front());
            for (int i = 0; i < 5; ++i) {
                const std::vector<double> idle = frameTimes(window.get(), 1, [&](int) { map->update(); });
                idleMs.push_back(idle.front());
                const std::vector<double> delta = frameTimes(window.get(), 1, [&](int) {
                    QJsonArray changes;
                    for (int s = 0; s < 100; ++s)
                        changes.append(QJsonObject{{"seat_id", model.seats()[size_t(s * 397)].seatId}, {"status", i % 2 == 0 ? "held" : "available"}});
                    model.applyStatusChanges(changes);
                });
                deltaMs.push_back(delta.front());
            }
            backend = window->rendererInterface()->graphicsApi() == QSGRendererInterface::Software ? QStringLiteral("software scene graph")
                                                                                                  : QStringLiteral("OpenGL (RHI)");
        }
        std::printf("stadium 40000 seats, 1920x1080 window: first frame (sync+render) of 3 windows %.1f / %.1f / %.1f ms; frame drawing a 100-seat delta median of 15 %.2f ms "
                    "(min %.2f, max %.2f); anchor frame with nothing changed median %.2f ms; backend %s\n",
                    firstMs[0], firstMs[1], firstMs[2], median(deltaMs), *std::min_element(deltaMs.begin(), deltaMs.end()),
                    *std::max_element(deltaMs.begin(), deltaMs.end()), median(idleMs), qPrintable(backend));
    }

    // --- 4. resident memory: the kiosk UI loaded, 40,000-seat map drawn --------------------------------------------
    {
        AppConfig config;
        config.server = QUrl(QStringLiteral("http://127.0.0.1:9"));
        config.token = QStringLiteral("bench");
        config.journalPath = QDir::tempPath() + QStringLiteral("/marquee-appbench.sqlite");
        KioskController kiosk(config);
        KioskController::setInstance(&kiosk);
        QQmlApplicationEngine ui;
        ui.addImportPath(QStringLiteral("qrc:/qt/qml"));
        ui.load(QUrl(QStringLiteral("qrc:/qt/qml/Marquee/Ui/Main.qml")));
        if (ui.rootObjects().isEmpty())
            return 1;
        // The 40,000-seat map is drawn in the kiosk's own window, over its screens, as the app has one window.
        auto *uiWindow = qobject_cast<QQuickWindow *>(ui.rootObjects().first());
        QQmlComponent mapComponent(&ui);
        mapComponent.setData("import QtQuick\nimport Marquee.App\nSeatMap { anchors.fill: parent; z: 1000 }", QUrl());
        auto *map = qobject_cast<SeatMapItem *>(mapComponent.create());
        if (!uiWindow || !map) {
            std::fprintf(stderr, "%s\n", qPrintable(mapComponent.errorString()));
            return 1;
        }
        // Anchor: the kiosk UI rendered (graphics stack, fonts, screens loaded) before the map joins it.
        kiosk.start();
        for (int i = 0; i < 5; ++i) {
            uiWindow->grabWindow();
            spin(50);
        }
        const long uiRss = procStatus("VmRSS:");
        map->setParentItem(uiWindow->contentItem());
        map->setModel(&stadium);
        for (int i = 0; i < 10; ++i) {
            uiWindow->grabWindow();
            spin(50);
        }
        std::printf("resident memory: %.1f MB with the kiosk UI and a 40000-seat map drawn in its window (peak %.1f MB)%s; anchors: bare process %.1f MB, "
                    "the kiosk UI rendered before the map was added %.1f MB\n",
                    procStatus("VmRSS:") / 1024.0, procStatus("VmHWM:") / 1024.0,
                    memoryOnly ? "" : " [after the sections above, whose windows' render threads left their malloc arenas: use --memory-only]",
                    bareRss / 1024.0, uiRss / 1024.0);
        KioskController::setInstance(nullptr);
    }
    return 0;
}
