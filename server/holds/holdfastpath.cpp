// SPDX-License-Identifier: AGPL-3.0-or-later
#include "holds/holdfastpath.h"
#include "logging.h"

#include "seating/seatmapservice.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QLoggingCategory>


namespace marquee {

HoldFastPath::HoldFastPath(SeatMapService &seatMaps, store::HoldRepository &holds, bool enabled, int maxSnapshotAgeMs)
    : m_seatMaps(seatMaps)
    , m_holds(holds)
    , m_enabled(enabled)
    , m_maxSnapshotAgeMs(maxSnapshotAgeMs)
{
    if (!m_enabled)
        return;
    m_journal.reset(QThread::create([this] { journalLoop(); }));
    m_journal->setObjectName(QStringLiteral("refusal-journal"));
    m_journal->start();
}

HoldFastPath::~HoldFastPath()
{
    if (!m_journal)
        return;
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_wake.wakeAll();
    }
    m_journal->wait(); // stores what is still queued first
}

QByteArray HoldFastPath::keyDigest(const QString &owner, const QString &idempotencyKey)
{
    return QCryptographicHash::hash((owner + QChar(0x1f) + idempotencyKey).toUtf8(), QCryptographicHash::Sha1).left(12);
}

bool HoldFastPath::keySeenLocked(const QByteArray &digest) const
{
    return m_keys.contains(digest) || m_olderKeys.contains(digest);
}

void HoldFastPath::rememberLocked(const QByteArray &digest)
{
    if (m_keys.size() >= kKeysPerGeneration) {
        m_olderKeys = std::move(m_keys);
        m_keys = {};
    }
    m_keys.insert(digest);
}

std::optional<HoldFastPath::Answer> HoldFastPath::replayLocked(const QByteArray &digest, const QByteArray &requestHash) const
{
    const auto unstored = m_unstored.constFind(digest);
    if (unstored == m_unstored.constEnd())
        return std::nullopt;
    // This key's answer was given from memory and is not stored yet: replay it exactly as the database would.
    if (unstored->requestHash != requestHash) {
        Answer reused = Answer::refused(store::HoldVerdict::KeyReused);
        reused.inProcess = true;
        return reused;
    }
    Answer replay = unstored->decision;
    replay.replayed = true;
    return replay;
}

HoldFastPath::Remembered HoldFastPath::rememberKey(const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash)
{
    if (!m_enabled || idempotencyKey.isEmpty())
        return {};
    const QByteArray digest = keyDigest(owner, idempotencyKey);
    QMutexLocker lock(&m_mutex);
    // A concurrent request with this key may have been refused from memory since decide() looked.
    if (auto answer = replayLocked(digest, requestHash))
        return Remembered{false, std::move(answer)};
    const bool fresh = !keySeenLocked(digest) && !m_inFlight.contains(digest);
    rememberLocked(digest);
    InFlight &inFlight = m_inFlight[digest];
    ++inFlight.requests;
    ++inFlight.remembered;
    return Remembered{fresh, std::nullopt};
}

void HoldFastPath::keyDone(const QString &owner, const QString &idempotencyKey)
{
    if (!m_enabled || idempotencyKey.isEmpty())
        return;
    const QByteArray digest = keyDigest(owner, idempotencyKey);
    QMutexLocker lock(&m_mutex);
    const auto it = m_inFlight.find(digest);
    if (it != m_inFlight.end() && --it->requests <= 0)
        m_inFlight.erase(it);
}

HoldFastPath::Answer HoldFastPath::refusal(const QStringList &taken)
{
    Answer answer = Answer::refused(store::HoldVerdict::SeatsTaken, taken);
    answer.inProcess = true;
    return answer;
}

void HoldFastPath::keepAnswerLocked(const QByteArray &digest, const store::HoldRepository::StoredAnswer &answer)
{
    m_unstored.insert(digest, answer);
    m_queue.push_back(digest);
    m_wake.wakeOne();
}

std::optional<HoldFastPath::Answer> HoldFastPath::decide(qint64 showId, const QString &owner, const QString &idempotencyKey,
                                                         const QByteArray &requestHash, const QStringList &seatIds)
{
    if (!m_enabled)
        return std::nullopt;
    m_seatMaps.noteHoldTraffic(showId);
    QByteArray digest;
    if (!idempotencyKey.isEmpty()) {
        digest = keyDigest(owner, idempotencyKey);
        QMutexLocker lock(&m_mutex);
        if (auto answer = replayLocked(digest, requestHash))
            return answer;
        if (keySeenLocked(digest) || m_unstored.size() >= kMaxUnstored)
            return std::nullopt; // the stored answer is PostgreSQL's to give (or the journal is behind: let it decide)
    }
    const std::optional<QStringList> taken = m_seatMaps.feed().certainlyTaken(showId, seatIds, m_maxSnapshotAgeMs);
    if (!taken)
        return std::nullopt;
    m_refusals.fetch_add(1, std::memory_order_relaxed);
    Answer answer = refusal(*taken);
    if (!digest.isEmpty()) {
        QMutexLocker lock(&m_mutex);
        if (m_unstored.contains(digest) || keySeenLocked(digest))
            return std::nullopt; // a concurrent request with this key got there first: let the database sort it out
        keepAnswerLocked(digest, store::HoldRepository::StoredAnswer{owner, idempotencyKey, requestHash, answer});
    }
    return answer;
}

HoldFastPath::Entry HoldFastPath::enter(qint64 showId, const QString &owner, const QString &idempotencyKey, const QByteArray &requestHash,
                                       const QStringList &seatIds)
{
    if (auto answer = decide(showId, owner, idempotencyKey, requestHash, seatIds))
        return Entry{std::move(answer), false};
    Remembered remembered = rememberKey(owner, idempotencyKey, requestHash);
    return Entry{std::move(remembered.answer), remembered.fresh};
}

std::optional<HoldFastPath::Answer> HoldFastPath::refuseQueued(qint64 showId, const QString &owner, const QString &idempotencyKey,
                                                               const QByteArray &requestHash, const QStringList &seatIds, bool keyFresh)
{
    if (!m_enabled || (!idempotencyKey.isEmpty() && !keyFresh))
        return std::nullopt;
    const std::optional<QStringList> taken = m_seatMaps.feed().certainlyTaken(showId, seatIds, m_maxSnapshotAgeMs);
    if (!taken)
        return std::nullopt;
    Answer answer = refusal(*taken);
    if (!idempotencyKey.isEmpty()) {
        const QByteArray digest = keyDigest(owner, idempotencyKey);
        QMutexLocker lock(&m_mutex);
        // Another request with this key on its way to the database (a retry after a dropped connection) would
        // be decided by PostgreSQL, which has no record of this refusal yet: then PostgreSQL decides both. So
        // would one that went there after this one was remembered and is done already (it may have been granted
        // the very seats that now refuse this one): only a request still alone with its key is refused here.
        const auto inFlight = m_inFlight.constFind(digest);
        if (inFlight == m_inFlight.constEnd() || inFlight->remembered != 1 || m_unstored.contains(digest))
            return std::nullopt;
        keepAnswerLocked(digest, store::HoldRepository::StoredAnswer{owner, idempotencyKey, requestHash, answer});
    }
    m_refusals.fetch_add(1, std::memory_order_relaxed);
    return answer;
}

bool HoldFastPath::flush(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    QMutexLocker lock(&m_mutex);
    while (!m_queue.empty() || m_writing) {
        if (!m_stored.wait(&m_mutex, deadline))
            return false;
    }
    return true;
}

void HoldFastPath::journalLoop()
{
    for (;;) {
        std::vector<QByteArray> digests;
        std::vector<store::HoldRepository::StoredAnswer> batch;
        {
            QMutexLocker lock(&m_mutex);
            while (m_queue.empty() && !m_stopping)
                m_wake.wait(&m_mutex);
            if (m_queue.empty() && m_stopping)
                break;
        }
        // Let a batch gather: one commit then covers every refusal of these milliseconds.
        QThread::msleep(kBatchMs);
        {
            QMutexLocker lock(&m_mutex);
            digests.swap(m_queue);
            batch.reserve(digests.size());
            for (const QByteArray &digest : digests)
                batch.push_back(m_unstored.value(digest));
            m_writing = true;
        }
        const bool stored = m_holds.storeAnswers(batch);
        QMutexLocker lock(&m_mutex);
        m_writing = false;
        if (stored) {
            for (const QByteArray &digest : digests) {
                m_unstored.remove(digest);
                rememberLocked(digest); // from now on the database has the answer
            }
        } else {
            qCWarning(lcStore) << "could not store" << digests.size() << "refusals; retrying";
            m_queue.insert(m_queue.begin(), digests.begin(), digests.end());
            if (m_stopping)
                break; // the database is gone: the answers stay unstored, as after a crash (they changed nothing)
            lock.unlock();
            QThread::msleep(200);
            continue;
        }
        m_stored.wakeAll();
    }
    m_stored.wakeAll();
    m_holds.database().closeThreadConnection();
}

} // namespace marquee
