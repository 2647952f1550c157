// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <functional>

namespace marquee::test {

/**
 * @brief Run the event loop until @p condition holds. The limit is a liveness bound (the test fails instead of
 * hanging), never a performance assertion.
 */
inline bool waitUntil(const std::function<bool()> &condition, int limitMs = 60000)
{
    QDeadlineTimer deadline(limitMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(1);
    }
    return true;
}

} // namespace marquee::test
