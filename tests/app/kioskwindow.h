// SPDX-License-Identifier: AGPL-3.0-or-later
// The kiosk's own window (Marquee.Ui/Main.qml) on a KioskController, as the app loads it: the UI tests render it
// offscreen and save screenshots of it.
#pragma once

#include "kioskcontroller.h"

#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <memory>

namespace marquee::test {

/** @brief Loads Main.qml for @p kiosk (made the QML singleton's instance) at @p size; null if it did not load. */
inline QQuickWindow *loadKioskWindow(QQmlApplicationEngine &engine, app::KioskController &kiosk, QSize size)
{
    app::KioskController::setInstance(&kiosk);
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Marquee/Ui/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return nullptr;
    auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
    if (window)
        window->resize(size);
    return window;
}

/** @brief Main.qml on a controller the test owns; the window goes (and the singleton is cleared) with this object. */
class KioskWindow
{
public:
    KioskWindow(app::KioskController &kiosk, QSize size)
        : m_engine(std::make_unique<QQmlApplicationEngine>()), m_window(loadKioskWindow(*m_engine, kiosk, size))
    {
    }
    ~KioskWindow()
    {
        m_engine.reset();
        app::KioskController::setInstance(nullptr);
    }
    KioskWindow(const KioskWindow &) = delete;
    KioskWindow &operator=(const KioskWindow &) = delete;
    QQuickWindow *window() const { return m_window; }

private:
    std::unique_ptr<QQmlApplicationEngine> m_engine;
    QQuickWindow *m_window;
};

} // namespace marquee::test
