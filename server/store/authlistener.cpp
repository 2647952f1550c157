// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/authlistener.h"
#include "logging.h"

#include "store/authrepository.h"
#include "store/database.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QTimer>

namespace marquee::store {

AuthListener::AuthListener(const Database &database, AuthRepository &auth)
    : m_database(database)
    , m_auth(auth)
{
    setObjectName(QStringLiteral("auth-listener"));
}

AuthListener::~AuthListener()
{
    stopAndWait();
}

void AuthListener::stopAndWait()
{
    m_stop = true;
    wait();
}

bool AuthListener::subscribe()
{
    QSqlDatabase db = m_database.connection();
    if (!db.isOpen())
        return false;
    QSqlDriver *driver = db.driver();
    if (driver->subscribedToNotifications().contains(QLatin1String(kChannel)))
        return true;
    if (!driver->subscribeToNotification(QLatin1String(kChannel))) {
        qCWarning(lcStore) << "cannot listen for revocations:" << driver->lastError().text();
        return false;
    }
    // The driver delivers on this thread (its socket notifier lives here), so the lambda runs here too.
    QObject::connect(driver, &QSqlDriver::notification, driver, [this](const QString &name) {
        if (name != QLatin1String(kChannel))
            return;
        ++m_notifications;
        m_auth.clearCache();
    });
    return true;
}

void AuthListener::run()
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
                m_auth.clearCache(); // anything may have changed while nobody listened
                qCInfo(lcStore) << "listening for revocations on" << kChannel;
            }
            sinceCheck.restart();
        } else if (sinceCheck.elapsed() >= 1000) {
            // A dead connection delivers nothing and says nothing: ask it now and then.
            sinceCheck.restart();
            // ping() reopens a dropped connection, and a reopened one listens to nothing: then subscribe again.
            if (!m_database.ping() || !m_database.connection().driver()->subscribedToNotifications().contains(QLatin1String(kChannel))) {
                qCWarning(lcStore) << "revocation listener lost its connection; reconnecting";
                m_listening = false;
                m_database.closeThreadConnection();
                continue;
            }
        }
        loop.processEvents(QEventLoop::WaitForMoreEvents);
        if (!m_listening)
            QThread::msleep(200);
    }
    m_listening = false;
    m_database.closeThreadConnection();
}

} // namespace marquee::store
