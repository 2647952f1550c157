// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"

#include <QJSEngine>
#include <QUrl>

namespace marquee::app {

/**
 * @brief The one instance behind a staff controller's QML singleton (the till's `Till`, the desk's `Desk`): the app
 * sets the controller it built; QML's create() gets it (owned by C++), or — in component tests that load screens
 * without the app — a controller of @p role that talks to nobody, owned by the engine.
 */
template<typename Controller>
class StaffSingleton
{
public:
    static void set(Controller *controller) { s_instance = controller; }
    /** @brief Called by the controller's destructor. */
    static void forget(Controller *controller)
    {
        if (s_instance == controller)
            s_instance = nullptr;
    }
    static Controller *forQml(const QString &role)
    {
        if (!s_instance) {
            AppConfig config;
            config.role = role;
            config.server = QUrl(QStringLiteral("http://127.0.0.1:9"));
            s_instance = new Controller(config);
            return s_instance; // owned by the engine
        }
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }

private:
    static inline Controller *s_instance = nullptr;
};

} // namespace marquee::app
