// SPDX-License-Identifier: AGPL-3.0-or-later
#include "kioskwalker.h"
#include "kioskcontroller.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QQuickWindow>
#include <QThread>

namespace marquee::app {

bool waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(5);
    }
    return true;
}

QString saveScreenshot(QQuickWindow *window, const QString &dir, const QString &name)
{
    if (!window || dir.isEmpty())
        return {};
    // Let bindings, animations and the seat map's scene graph settle before grabbing; a screen still fading in
    // (Main.qml's screenFading) is waited for, up to a few seconds.
    QDeadlineTimer settle(400);
    QDeadlineTimer fadeLimit(5000);
    while (!settle.hasExpired() || (window->property("screenFading").toBool() && !fadeLimit.hasExpired()))
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QDir().mkpath(dir);
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".png");
    const QImage image = window->grabWindow();
    return !image.isNull() && image.save(path) ? path : QString();
}

QStringList walkKiosk(KioskController &kiosk, QQuickWindow *window, const QString &dir, QString *error)
{
    QStringList steps;
    auto step = [&](const QString &name, const std::function<bool()> &until, int timeoutMs = 15000) {
        if (!waitUntil(until, timeoutMs)) {
            saveScreenshot(window, dir, QStringLiteral("%1-stopped-%2").arg(steps.size() + 1, 2, 10, QLatin1Char('0')).arg(kiosk.screen()));
            *error = QStringLiteral("stopped at %1 (screen %2, message \"%3\")").arg(name, kiosk.screen(), kiosk.message());
            return false;
        }
        saveScreenshot(window, dir, QStringLiteral("%1-%2").arg(steps.size() + 1, 2, 10, QLatin1Char('0')).arg(name));
        steps.append(name);
        return true;
    };

    kiosk.start();
    if (!step(QStringLiteral("attract"), [&] { return kiosk.screen() == QLatin1String("attract") && kiosk.movies()->count() > 0; }))
        return steps;
    kiosk.openMovie(kiosk.movies()->at(0).value(QStringLiteral("movie_id")).toInteger());
    if (!step(QStringLiteral("shows"), [&] { return !kiosk.shows()->loading() && kiosk.shows()->count() > 0; }))
        return steps;
    kiosk.openShow(kiosk.shows()->at(0).value(QStringLiteral("show_id")).toInteger());
    if (!step(QStringLiteral("seats"), [&] { return !kiosk.seatMap()->loading() && kiosk.seatMap()->seatCount() > 0; }))
        return steps;
    if (!kiosk.bestAvailable(2)) {
        *error = QStringLiteral("no two seats together");
        return steps;
    }
    if (!step(QStringLiteral("seats-selected"), [&] { return kiosk.seatMap()->selectedCount() == 2; }))
        return steps;
    kiosk.holdSelection();
    if (!step(QStringLiteral("summary"), [&] { return kiosk.screen() == QLatin1String("summary"); }))
        return steps;
    kiosk.pay();
    if (!step(QStringLiteral("payment"), [&] { return kiosk.screen() == QLatin1String("payment") || kiosk.screen() == QLatin1String("error"); }))
        return steps;
    if (kiosk.screen() != QLatin1String("payment")) {
        *error = QStringLiteral("payment not possible: ") + kiosk.message();
        return steps;
    }
    kiosk.presentCard(QStringLiteral("tok_declined"));
    if (!step(QStringLiteral("declined"), [&] { return kiosk.screen() == QLatin1String("declined"); }))
        return steps;
    waitUntil([&] { return !kiosk.busy(); }); // the declined order is closed at the server first
    kiosk.retryPayment();
    if (!waitUntil([&] { return kiosk.screen() == QLatin1String("payment"); })) {
        *error = QStringLiteral("retry did not reach the terminal");
        return steps;
    }
    kiosk.presentCard(QStringLiteral("tok_visa"));
    if (!step(QStringLiteral("thanks"), [&] { return kiosk.screen() == QLatin1String("thanks") || kiosk.printState() == QLatin1String("failed"); }, 30000))
        return steps;
    return steps;
}

} // namespace marquee::app
