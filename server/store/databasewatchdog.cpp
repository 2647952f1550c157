// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/databasewatchdog.h"
#include "logging.h"

#include "store/database.h"
#include "store/migrations.h"

#include <QElapsedTimer>
#include <QMutexLocker>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace marquee::store {

namespace {
constexpr int kSchemaCheckEveryProbes = 8; // about every two seconds
constexpr int kWatchTickMs = 50;
} // namespace

DatabaseWatchdog::DatabaseWatchdog(Database &database, int statementTimeoutMs, int silenceMs)
    : m_database(database)
    , m_statementTimeoutMs(statementTimeoutMs)
    , m_silenceMs(silenceMs > 0 ? silenceMs : kDefaultSilenceMs)
{
}

DatabaseWatchdog::~DatabaseWatchdog()
{
    stopAndWait();
    if (m_database.watchdog() == this)
        m_database.setWatchdog(nullptr);
    QMutexLocker lock(&m_mutex);
    for (const Tracked &tracked : std::as_const(m_tracked))
        ::close(tracked.socket);
    m_tracked.clear();
}

qint64 DatabaseWatchdog::nowMs()
{
    static QElapsedTimer timer = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return timer.elapsed();
}

void DatabaseWatchdog::start()
{
    if (m_running)
        return;
    m_stop = false;
    m_lastAnswerMs = nowMs();
    m_askedSinceMs = -1;
    // The first answer before anyone asks: /readyz is then right from the first request.
    m_schemaCurrent = Migrations(m_database).status() == Migrations::Status::Current;
    m_prober.reset(QThread::create([this] { probe(); }));
    m_prober->setObjectName(QStringLiteral("database-probe"));
    m_watcher.reset(QThread::create([this] { watch(); }));
    m_watcher->setObjectName(QStringLiteral("database-watchdog"));
    m_running = true;
    m_prober->start();
    m_watcher->start();
}

void DatabaseWatchdog::stopAndWait()
{
    m_stop = true;
    // The watcher first: it ends a probe stuck on a stalled database, so the prober can stop too.
    for (auto *thread : {m_watcher.get(), m_prober.get()}) {
        if (thread)
            thread->wait();
    }
    m_watcher.reset();
    m_prober.reset();
    m_running = false;
}

qint64 DatabaseWatchdog::unansweredForMs() const
{
    const qint64 asked = m_askedSinceMs.load();
    return asked < 0 ? 0 : nowMs() - asked;
}

bool DatabaseWatchdog::answering() const
{
    return !m_running || unansweredForMs() < m_silenceMs;
}

bool DatabaseWatchdog::mayConnect() const
{
    return answering() || QThread::currentThread() == m_prober.get();
}

void DatabaseWatchdog::probe()
{
    int probes = 0;
    while (!m_stop) {
        // Asked from now on, unless an earlier question (a failed one) is still the oldest unanswered.
        qint64 unanswered = -1;
        m_askedSinceMs.compare_exchange_strong(unanswered, nowMs());
        if (m_database.ping()) {
            bool answered = true;
            if (++probes % kSchemaCheckEveryProbes == 0) {
                const Migrations::Status status = Migrations(m_database).status();
                answered = status != Migrations::Status::Error;
                if (answered)
                    m_schemaCurrent = status == Migrations::Status::Current;
            }
            if (answered) {
                const qint64 silentMs = unansweredForMs();
                m_lastAnswerMs = nowMs();
                m_askedSinceMs = -1;
                if (silentMs >= m_silenceMs)
                    qCInfo(lcStore) << "the database answers again after" << silentMs << "ms";
            }
        }
        for (int slept = 0; slept < kProbeIntervalMs && !m_stop; slept += 10)
            QThread::msleep(10);
    }
    m_database.closeThreadConnection();
}

void DatabaseWatchdog::watch()
{
    bool warned = false;
    while (!m_stop) {
        QThread::msleep(kWatchTickMs);
        const qint64 lastAnswer = m_lastAnswerMs.load();
        const qint64 silentMs = unansweredForMs();
        if (silentMs < m_silenceMs) {
            warned = false;
            continue;
        }
        if (!warned) {
            qCWarning(lcStore) << "the database has not answered for" << silentMs << "ms: requests are refused with 503 until it does";
            warned = true;
        }
        if (m_statementTimeoutMs <= 0 || silentMs < m_statementTimeoutMs)
            continue;
        int ended = 0;
        {
            QMutexLocker lock(&m_mutex);
            for (auto it = m_tracked.begin(); it != m_tracked.end(); ++it) {
                // Opened after the last answer: the database answered it, so it is not one of those waiting.
                if (it->ended || it->openedMs > lastAnswer)
                    continue;
                ::shutdown(it->socket, SHUT_RDWR);
                it->ended = true;
                ++ended;
            }
        }
        if (ended > 0) {
            m_ended += ended;
            qCWarning(lcStore) << "the database has not answered for" << silentMs << "ms (statement timeout" << m_statementTimeoutMs
                               << "ms): ended" << ended << "connections so that what waits on them fails now";
        }
    }
    // Stopping: a probe still waiting on a stalled database must not hold the shutdown up.
    QMutexLocker lock(&m_mutex);
    if (unansweredForMs() >= m_silenceMs) {
        for (auto it = m_tracked.begin(); it != m_tracked.end(); ++it)
            ::shutdown(it->socket, SHUT_RDWR);
    }
}

void DatabaseWatchdog::track(const QString &name, int socket)
{
    const int own = socket >= 0 ? ::fcntl(socket, F_DUPFD_CLOEXEC, 0) : -1;
    QMutexLocker lock(&m_mutex);
    const auto previous = m_tracked.find(name);
    if (previous != m_tracked.end()) {
        ::close(previous->socket);
        m_tracked.erase(previous);
    }
    if (own >= 0)
        m_tracked.insert(name, Tracked{own, nowMs(), false});
}

void DatabaseWatchdog::forget(const QString &name)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tracked.find(name);
    if (it == m_tracked.end())
        return;
    ::close(it->socket);
    m_tracked.erase(it);
}

} // namespace marquee::store
