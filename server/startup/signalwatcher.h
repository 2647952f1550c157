// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QObject>

class QSocketNotifier;

namespace marquee {

/**
 * @brief Turns SIGINT and SIGTERM into a Qt signal on the main thread (self-pipe), so that a stopped server
 * shuts down cleanly: workers drain, the embedded PostgreSQL is stopped.
 */
class SignalWatcher : public QObject
{
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
Q_SIGNALS:
    void terminationRequested();

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace marquee
