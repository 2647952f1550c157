// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seating/seatfeed.h"

#include "core/seatstatus.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <algorithm>

namespace marquee {

namespace {
// Deadlines from the database clock are shortened by this much: the local clock read before the query may run
// a little behind the database's now(), and a refusal is only allowed while certainly inside them.
constexpr qint64 kClockMarginMs = 250;

QByteArray randomEpoch()
{
    return QByteArray::number(QRandomGenerator::global()->generate64() & 0xffffffffffffULL, 16);
}
} // namespace

SeatFeed::SeatFeed(const store::SeatFreeing &freeing)
    : m_freeing(freeing)
    , m_epoch(randomEpoch())
{
    m_clock.start();
}

SeatFeed::QueryStart SeatFeed::beginQuery()
{
    QueryStart start;
    start.freesCompleted = m_freeing.completed(); // before the query: a free completing later is not covered
    start.localMs = QDateTime::currentMSecsSinceEpoch();
    QMutexLocker lock(&m_mutex);
    start.sequence = ++m_sequence;
    return start;
}

void SeatFeed::publish(qint64 showId, const QueryStart &start, const store::SeatStatuses &statuses, const QStringList &seatIds)
{
    if (seatIds.size() != statuses.codes.size())
        return; // seats of a show never change; refuse mismatched data
    {
        QMutexLocker lock(&m_mutex);
        Show &show = m_shows[showId];
        if (start.sequence <= show.sequence)
            return; // a refresh that began later has been published already
        show.sequence = start.sequence;
        show.fetchedAtMs = start.localMs;
        show.freesCompleted = start.freesCompleted;
        show.heldStableUntilMs = statuses.firstLapseInMs < 0 ? std::numeric_limits<qint64>::max()
                                                             : start.localMs + statuses.firstLapseInMs - kClockMarginMs;
        show.salesOpenUntilMs = statuses.salesOpenForMs < 0 ? 0 : start.localMs + statuses.salesOpenForMs - kClockMarginMs;
        if (show.codes.isEmpty() || show.codes.size() != statuses.codes.size()) {
            show.codes = statuses.codes;
            show.seatIds = seatIds;
            show.indexOf.clear();
            show.indexOf.reserve(seatIds.size());
            show.seatIdJson.clear();
            show.seatIdJson.reserve(size_t(seatIds.size()));
            for (int i = 0; i < seatIds.size(); ++i) {
                show.indexOf.insert(seatIds[i], i);
                const QByteArray quoted = QJsonDocument(QJsonArray{seatIds[i]}).toJson(QJsonDocument::Compact); // ["A-1"]
                show.seatIdJson.push_back(quoted.mid(1, quoted.size() - 2));
            }
            show.localWriteSequence.assign(size_t(seatIds.size()), 0);
            show.localWriteAtMs.assign(size_t(seatIds.size()), std::numeric_limits<qint64>::min() / 2);
            show.isPending.assign(size_t(seatIds.size()), false);
            show.pending.clear();
            show.version = 1;
            show.recent.clear();
            return;
        }
        std::vector<int> changes;
        for (qsizetype i = 0; i < statuses.codes.size(); ++i) {
            // A local write applied after this read began is newer than what the read saw for that seat.
            if (statuses.codes[i] != show.codes[i] && show.localWriteSequence[size_t(i)] < start.sequence) {
                show.codes[i] = statuses.codes[i];
                changes.push_back(int(i));
            }
        }
        if (changes.empty())
            return;
        recordChangesLocked(showId, show, changes);
    }
}

bool SeatFeed::applyLocalWrite(qint64 showId, const QStringList &seatIds, SeatStatus status)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.find(showId);
    if (it == m_shows.end() || it->codes.isEmpty())
        return false; // the first read of the show will include this write
    return applyWriteLocked(showId, *it, seatIds, seatStatusCode(status), true, 0, nullptr);
}

bool SeatFeed::applyNotifiedWrite(qint64 showId, const QStringList &seatIds, SeatStatus status, qint64 localGuardMs, bool countContested,
                                  int *contested)
{
    int ignored = 0;
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.find(showId);
    if (it == m_shows.end() || it->codes.isEmpty())
        return false; // the first read of the show will include this write
    return applyWriteLocked(showId, *it, seatIds, seatStatusCode(status), false, localGuardMs, countContested ? contested : &ignored);
}

bool SeatFeed::applyWriteLocked(qint64 showId, Show &show, const QStringList &seatIds, char code, bool local, qint64 localGuardMs, int *contested)
{
    const quint64 sequence = ++m_sequence; // reads that begin from now on see the committed write
    const qint64 now = m_clock.elapsed();
    std::vector<int> changes;
    for (const QString &seatId : seatIds) {
        const auto index = show.indexOf.constFind(seatId);
        if (index == show.indexOf.constEnd())
            continue;
        const size_t seat = size_t(*index);
        if (local) {
            show.localWriteAtMs[seat] = now;
        } else if (now - show.localWriteAtMs[seat] < localGuardMs) {
            if (show.codes[*index] != code)
                ++*contested;
            continue;
        }
        show.localWriteSequence[seat] = sequence;
        if (show.codes[*index] != code) {
            show.codes[*index] = code;
            changes.push_back(*index);
        }
    }
    if (changes.empty())
        return false;
    std::sort(changes.begin(), changes.end());
    recordChangesLocked(showId, show, changes);
    return true;
}

bool SeatFeed::isCurrent(qint64 showId) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.constFind(showId);
    return it != m_shows.constEnd() && !it->codes.isEmpty() && it->sequence > m_trustedAfter;
}

void SeatFeed::distrust()
{
    QMutexLocker lock(&m_mutex);
    m_trustedAfter = std::numeric_limits<quint64>::max();
}

void SeatFeed::trustReadsFromNow()
{
    QMutexLocker lock(&m_mutex);
    m_trustedAfter = ++m_sequence;
}

void SeatFeed::setBatching(int windowMs, BatchWake wake)
{
    QMutexLocker lock(&m_mutex);
    m_batchWake = std::move(wake);
    m_batchWindowMs = std::max(0, windowMs);
    if (!m_batchWake) {
        for (auto it = m_shows.begin(); it != m_shows.end(); ++it)
            flushPendingLocked(it.key(), *it); // nobody would flush them any more
    }
}

void SeatFeed::recordChangesLocked(qint64 showId, Show &show, const std::vector<int> &changes)
{
    const qint64 now = m_clock.elapsed();
    // Leading edge: a change after a quiet spell goes out now, so a lone change (the common case outside a rush)
    // does not wait for the window nor for another thread's timer; only changes close behind it are batched.
    if (!m_batchWake || (show.pending.empty() && now - show.lastDeltaMs >= m_batchWindowMs)) {
        commitDeltaLocked(showId, show, changes);
        return;
    }
    const bool wasIdle = show.pending.empty();
    for (const int seat : changes) {
        if (!show.isPending[size_t(seat)]) {
            show.isPending[size_t(seat)] = true;
            show.pending.push_back(seat);
        }
    }
    if (wasIdle && !show.pending.empty())
        m_batchWake(showId, int(std::clamp<qint64>(show.lastDeltaMs + m_batchWindowMs - now, 0, m_batchWindowMs)));
}

bool SeatFeed::flushPending(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.find(showId);
    return it != m_shows.end() && flushPendingLocked(showId, *it);
}

bool SeatFeed::flushPendingLocked(qint64 showId, Show &show)
{
    if (show.pending.empty())
        return false;
    std::vector<int> changes;
    changes.swap(show.pending);
    for (const int seat : changes)
        show.isPending[size_t(seat)] = false;
    // A seat that changed and changed back within the batch is still named, with its current status: harmless.
    std::sort(changes.begin(), changes.end());
    commitDeltaLocked(showId, show, changes);
    return true;
}

void SeatFeed::commitDeltaLocked(qint64 showId, Show &show, const std::vector<int> &changes)
{
    // Serialised once here; every subscriber on every thread is sent these same bytes.
    const qint64 version = ++show.version;
    show.lastDeltaMs = m_clock.elapsed();
    QByteArray text = "{\"type\":\"delta\",\"show_id\":" + QByteArray::number(showId) + ",\"version\":" + QByteArray::number(version) + ",\"changes\":[";
    text.reserve(text.size() + qsizetype(changes.size()) * 48);
    for (size_t i = 0; i < changes.size(); ++i) {
        const int seat = changes[i];
        if (i)
            text += ',';
        text += "{\"seat_id\":";
        text += show.seatIdJson[size_t(seat)];
        text += ",\"status\":\"";
        const char code = show.codes[seat];
        text += seatStatusJsonTail(code);
    }
    text += "]}";
    show.recent.emplace_back(version, text);
    while (show.recent.size() > size_t(kKeptDeltas))
        show.recent.pop_front();
    // Under the lock, so that every listener gets the versions of a show in order even when two threads write
    // at once; listeners only post the message to their own thread, which is quick.
    for (auto it = show.subscribers.constBegin(); it != show.subscribers.constEnd(); ++it) {
        const auto listener = m_listeners.constFind(it.key());
        if (listener != m_listeners.constEnd())
            (*listener)(showId, version, text);
    }
}

bool SeatFeed::knows(qint64 showId) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.constFind(showId);
    return it != m_shows.constEnd() && !it->codes.isEmpty();
}

qint64 SeatFeed::ageMs(qint64 showId) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.constFind(showId);
    if (it == m_shows.constEnd() || it->codes.isEmpty())
        return -1;
    return QDateTime::currentMSecsSinceEpoch() - it->fetchedAtMs;
}

std::optional<QStringList> SeatFeed::certainlyTaken(qint64 showId, const QStringList &seatIds, qint64 maxAgeMs) const
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.constFind(showId);
    if (it == m_shows.constEnd() || it->codes.isEmpty())
        return std::nullopt;
    const Show &show = *it;
    if (now - show.fetchedAtMs > maxAgeMs || now >= show.salesOpenUntilMs || !m_freeing.quietSince(show.freesCompleted))
        return std::nullopt;
    QStringList taken;
    for (const QString &seatId : seatIds) {
        const auto index = show.indexOf.constFind(seatId);
        if (index == show.indexOf.constEnd())
            return std::nullopt; // an unknown seat is a 400, which PostgreSQL reports
        const char code = show.codes[*index];
        if (code == kBookedCode || code == kLeasedCode || (code == kHeldCode && now < show.heldStableUntilMs))
            taken << seatId;
    }
    if (taken.isEmpty())
        return std::nullopt;
    std::sort(taken.begin(), taken.end(), [](const QString &a, const QString &b) { return a.toUtf8() < b.toUtf8(); });
    return taken;
}

QByteArray SeatFeed::snapshotMessage(qint64 showId, const Show &show) const
{
    // Built by hand: the status string of a 40,000-seat show is 40,000 letters, no escaping needed.
    return "{\"type\":\"snapshot\",\"show_id\":" + QByteArray::number(showId) + ",\"epoch\":\"" + m_epoch
        + "\",\"version\":" + QByteArray::number(show.version) + ",\"seat_count\":" + QByteArray::number(show.codes.size())
        + ",\"statuses\":\"" + show.codes + "\"}";
}

SeatFeed::Start SeatFeed::subscribe(int listener, qint64 showId, qint64 sinceVersion, const QByteArray &epoch)
{
    Start start;
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.find(showId);
    if (it == m_shows.end() || it->codes.isEmpty())
        return start; // Unknown
    Show &show = *it;
    flushPendingLocked(showId, show); // the snapshot's version then covers every status it shows
    start.version = show.version;
    if (sinceVersion >= 0 && epoch == m_epoch) {
        if (sinceVersion > show.version) {
            start.kind = Start::Kind::FutureVersion;
            return start;
        }
        const qint64 oldestKept = show.recent.empty() ? show.version + 1 : show.recent.front().first;
        if (sinceVersion == show.version || sinceVersion + 1 >= oldestKept) {
            start.kind = Start::Kind::Resumed;
            start.messages.push_back("{\"type\":\"resumed\",\"show_id\":" + QByteArray::number(showId) + ",\"epoch\":\"" + m_epoch
                                     + "\",\"from_version\":" + QByteArray::number(sinceVersion)
                                     + ",\"version\":" + QByteArray::number(show.version) + "}");
            for (const auto &[version, message] : show.recent) {
                if (version > sinceVersion)
                    start.messages.push_back(message);
            }
        }
    }
    if (start.kind != Start::Kind::Resumed) {
        start.kind = Start::Kind::Snapshot;
        start.messages.push_back(snapshotMessage(showId, show));
    }
    ++show.subscribers[listener];
    return start;
}

void SeatFeed::unsubscribe(int listener, qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_shows.find(showId);
    if (it == m_shows.end())
        return;
    const auto count = it->subscribers.find(listener);
    if (count != it->subscribers.end() && --*count <= 0)
        it->subscribers.erase(count);
}

int SeatFeed::addListener(Listener listener)
{
    QMutexLocker lock(&m_mutex);
    const int id = m_nextListener++;
    m_listeners.insert(id, std::move(listener));
    return id;
}

void SeatFeed::removeListener(int listener)
{
    QMutexLocker lock(&m_mutex);
    m_listeners.remove(listener);
    for (Show &show : m_shows)
        show.subscribers.remove(listener);
}

QList<qint64> SeatFeed::followedShows() const
{
    QMutexLocker lock(&m_mutex);
    QList<qint64> shows;
    for (auto it = m_shows.constBegin(); it != m_shows.constEnd(); ++it) {
        if (!it->subscribers.isEmpty())
            shows << it.key();
    }
    return shows;
}

int SeatFeed::subscriberCount() const
{
    QMutexLocker lock(&m_mutex);
    int count = 0;
    for (const Show &show : m_shows) {
        for (int n : show.subscribers)
            count += n;
    }
    return count;
}

} // namespace marquee
