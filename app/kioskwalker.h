// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

class QQuickWindow;

namespace marquee::app {

class KioskController;

/** @brief Spin the event loop until @p done or @p timeoutMs pass; true when @p done. */
bool waitUntil(const std::function<bool()> &done, int timeoutMs = 15000);

/** @brief Save what @p window shows to @p dir/@p name.png; returns the path or empty. */
QString saveScreenshot(QQuickWindow *window, const QString &dir, const QString &name);

/**
 * @brief Walks the kiosk flow as a customer would (first movie, first show, best two seats, hold, a declined
 * card, then tok_visa, printing), saving a screenshot of each screen. Used by `marquee --headless` and the
 * end-to-end test. Returns the steps it got through; @p error says where it stopped.
 */
QStringList walkKiosk(KioskController &kiosk, QQuickWindow *window, const QString &screenshotDir, QString *error);

} // namespace marquee::app
