// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"

namespace marquee::app {

/** @brief The QML file a staff role opens: the till for cashier, the desk for manager. */
QString staffMainUrl(const QString &role);

/** @brief Run the cashier till or the manager desk (the application object exists already). */
int runStaffApp(const AppConfig &config);

} // namespace marquee::app
