// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/changelistener.h"
#include "logging.h"

#include "store/database.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QTimer>

namespace marquee::store {

ChangeListener::ChangeListener(const Database &database)
    : m_database(database)
{
    setObjectName(QStringLiteral("change-listener"));
}

ChangeListener::~ChangeListener()
{
    stopAndWait();
}

void ChangeListener::listen(const QString &channel, Handler handler, std::function<void(bool listening)> listening)
{
    m_channels.append(Channel{channel, std::move(handler), std::move(listening)});
}

void ChangeListener::stopAndWait()
{
    m_stop = true;
    wait();
}

bool ChangeListener::subscribedToAll() const
{
    const QStringList subscribed = m_database.connection().driver()->subscribedToNotifications();
    for (const Channel &channel : m_channels) {
        if (!subscribed.contains(channel.name))
            return false;
    }
    return true;
}

bool ChangeListener::subscribe()
{
    QSqlDatabase db = m_database.connection();
    if (!db.isOpen())
        return false;
    QSqlDriver *driver = db.driver();
    for (const Channel &channel : std::as_const(m_channels)) {
        if (driver->subscribedToNotifications().contains(channel.name))
            continue;
        if (!driver->subscribeToNotification(channel.name)) {
            qCWarning(lcStore) << "cannot listen on" << channel.name << driver->lastError().text();
            return false;
        }
    }
    QSqlQuery pid(db);
    m_backendPid = pid.exec(QStringLiteral("SELECT pg_backend_pid()")) && pid.next() ? pid.value(0).toLongLong() : 0;
    // The driver delivers on this thread (its socket notifier lives here), so the lambda runs here too. A new
    // driver per connection: the connection is only ever this one driver's.
    QObject::disconnect(driver, &QSqlDriver::notification, nullptr, nullptr);
    QObject::connect(driver, &QSqlDriver::notification, driver, [this](const QString &name, QSqlDriver::NotificationSource, const QVariant &payload) {
        for (const Channel &channel : std::as_const(m_channels)) {
            if (channel.name == name) {
                channel.handler(payload.toString());
                ++m_notifications; // after the handler: a test that saw the count move sees what the handler did
            }
        }
    });
    return true;
}

void ChangeListener::run()
{
    QEventLoop loop;
    QTimer tick; // wakes the loop to look at m_stop and at the connection's health
    tick.start(100);
    QElapsedTimer sinceCheck;
    sinceCheck.start();
    while (!m_stop) {
        if (!m_listening) {
            if (subscribe()) {
                m_listening = true;
                ++m_subscriptions;
                // Anything may have changed while nobody listened: each owner re-reads what it keeps.
                for (const Channel &channel : std::as_const(m_channels)) {
                    if (channel.listening)
                        channel.listening(true);
                }
                qCInfo(lcStore) << "listening for changes made by any instance";
            } else {
                m_database.closeThreadConnection();
            }
            sinceCheck.restart();
        } else if (m_database.connectionBroken() || sinceCheck.elapsed() >= 1000) {
            // A connection the server closed is seen by libpq at once (the driver reads the socket); a dead one
            // delivers nothing and says nothing: ask it now and then.
            sinceCheck.restart();
            // ping() reopens a dropped connection, and a reopened one listens to nothing: then subscribe again.
            if (m_database.connectionBroken() || !m_database.ping() || !subscribedToAll()) {
                qCWarning(lcStore) << "change listener lost its connection; reconnecting";
                m_listening = false;
                for (const Channel &channel : std::as_const(m_channels)) {
                    if (channel.listening)
                        channel.listening(false);
                }
                m_backendPid = 0;
                m_database.closeThreadConnection();
                continue;
            }
        }
        loop.processEvents(QEventLoop::WaitForMoreEvents);
        if (!m_listening)
            QThread::msleep(200);
    }
    m_listening = false;
    m_backendPid = 0;
    m_database.closeThreadConnection();
}

} // namespace marquee::store
