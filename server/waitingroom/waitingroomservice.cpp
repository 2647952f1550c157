// SPDX-License-Identifier: AGPL-3.0-or-later
#include "waitingroom/waitingroomservice.h"

#include <QDeadlineTimer>
#include "logging.h"

#include "core/isotime.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>
#include <algorithm>
#include <cmath>
#include <utility>


namespace marquee {

namespace {
constexpr int kMaxCachedEntries = 4'000'000; // ~200 MB at worst; the cache is only an optimisation
constexpr int kMinPollMs = 1000;
constexpr int kRankLoadChunk = 100000; // ranks loaded into memory per tick (~100 ms of the background thread)

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray newSecret()
{
    QByteArray secret(32, Qt::Uninitialized);
    QRandomGenerator::system()->generate(reinterpret_cast<quint32 *>(secret.data()), reinterpret_cast<quint32 *>(secret.data() + secret.size()));
    return secret;
}

QByteArray mac(const QByteArray &secret, const QByteArray &payload)
{
    return QMessageAuthenticationCode::hash(payload, secret, QCryptographicHash::Sha256).toBase64(QByteArray::Base64UrlEncoding
                                                                                                  | QByteArray::OmitTrailingEquals);
}

bool sameBytes(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0; // constant time: a forger learns nothing from how long the comparison took
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}

/** @brief A signed token split into its fields; the owner may itself contain no '.', the MAC is last. */
struct SignedToken {
    QList<QByteArray> fields; ///< everything before the MAC
    QByteArray signedPart;
    QByteArray tag;
};

std::optional<SignedToken> splitToken(const QByteArray &token, char kind, int fieldCount)
{
    if (token.size() > 512)
        return std::nullopt;
    const qsizetype lastDot = token.lastIndexOf('.');
    if (lastDot <= 0)
        return std::nullopt;
    SignedToken parsed;
    parsed.signedPart = token.left(lastDot);
    parsed.tag = token.mid(lastDot + 1);
    parsed.fields = parsed.signedPart.split('.');
    if (parsed.fields.size() != fieldCount || parsed.fields[0] != QByteArray(1, kind))
        return std::nullopt;
    return parsed;
}

Refusal refused(ErrorCode code, qint64 showId)
{
    return {code, {}, {QString::number(showId)}};
}

Refusal refused(ErrorCode code)
{
    return {code, {}, {}};
}
} // namespace

AdmissionPass::AdmissionPass(AdmissionPass &&other) noexcept
    : m_service(std::exchange(other.m_service, nullptr))
    , m_entryId(std::exchange(other.m_entryId, 0))
    , m_refusal(std::move(other.m_refusal))
{
}

AdmissionPass::~AdmissionPass()
{
    if (m_service && m_entryId)
        m_service->finishHold(m_entryId, {});
}

void AdmissionPass::finish(const QString &holdId)
{
    if (!m_service || !m_entryId)
        return;
    m_service->finishHold(std::exchange(m_entryId, 0), holdId);
}

WaitingRoomService::WaitingRoomService(store::WaitingRoomRepository &repository, const store::Database &database, int tickMs,
                                       int autoThresholdPerSecond)
    : m_repository(repository)
    , m_database(database)
    , m_tickMs(tickMs)
    , m_autoThreshold(autoThresholdPerSecond)
    , m_joins(repository)
{
}

WaitingRoomService::~WaitingRoomService()
{
    stop();
}

void WaitingRoomService::start()
{
    reload();
    m_stop = false;
    m_thread.reset(QThread::create([this] {
        while (!m_stop) {
            refreshAndTick();
            const QDeadlineTimer nextTick(m_tickMs);
            while (!m_stop && !nextTick.hasExpired()) {
                if (m_reloadRequested.tryAcquire(1, int(std::clamp<qint64>(nextTick.remainingTime(), 0, 50)))) {
                    m_reloadRequested.tryAcquire(m_reloadRequested.available()); // one reload for a burst of requests
                    reload(); // a switch made elsewhere: enforced here within milliseconds, not at the next tick
                }
            }
        }
        m_database.closeThreadConnection();
    }));
    m_thread->setObjectName(QStringLiteral("waitingroom"));
    m_thread->start();
}

void WaitingRoomService::stop()
{
    m_stop = true;
    if (m_thread)
        m_thread->wait();
    m_thread.reset();
}

void WaitingRoomService::refreshAndTick()
{
    QList<qint64> autoEnable;
    {
        QMutexLocker locker(&m_demandLock);
        autoEnable.swap(m_autoEnable);
    }
    for (qint64 showId : autoEnable) {
        if (m_repository.enableAutomatically(showId, newSecret()))
            qCInfo(lcQueue) << "waiting room of show" << showId << "switched on: hold demand passed" << m_autoThreshold << "per second";
    }
    reload();
    QList<qint64> active;
    {
        QReadLocker locker(&m_roomsLock);
        for (const Room &room : std::as_const(m_rooms))
            if (room.row.enabled && !room.row.soldOut)
                active.push_back(room.row.showId);
    }
    bool changed = false;
    for (qint64 showId : active) {
        const QString outcome = m_repository.tick(showId, m_tickMs / 2);
        if (outcome == QLatin1String("ticked") || outcome == QLatin1String("sold_out"))
            changed = true;
        if (outcome == QLatin1String("sold_out"))
            qCInfo(lcQueue) << "show" << showId << "sold out: admission stopped";
    }
    if (changed)
        reload();
    loadRanks();
}

void WaitingRoomService::loadRanks()
{
    // Ranks never change once assigned, so the background thread copies every newly assigned one into memory and a
    // status poll needs no database round trip even on its first question (2,000,000 entries are ~100 MB).
    QList<QPair<qint64, qint64>> wanted; // show, ranked_upto
    {
        QReadLocker locker(&m_roomsLock);
        for (const Room &room : std::as_const(m_rooms))
            if (room.row.enabled && room.row.opened && !room.row.soldOut)
                wanted.push_back({room.row.showId, room.row.rankedUpto});
    }
    for (const auto &[showId, rankedUpto] : wanted) {
        qint64 loaded = 0;
        {
            QMutexLocker locker(&m_entriesLock);
            loaded = m_ranksLoaded.value(showId);
            if (m_entries.size() + (rankedUpto - loaded) > kMaxCachedEntries)
                continue; // beyond the cache's bound: polls read their entry as before
        }
        if (rankedUpto <= loaded)
            continue;
        const qint64 upto = std::min<qint64>(rankedUpto, loaded + kRankLoadChunk);
        const auto ranks = m_repository.ranks(showId, loaded, upto);
        if (!ranks)
            continue; // the next tick tries again
        QMutexLocker locker(&m_entriesLock);
        m_entries.reserve(m_entries.size() + qsizetype(ranks->size()));
        for (const auto &[entryId, rank] : *ranks)
            if (!m_entries.contains(entryId)) // a status poll may have cached it already, with its admission time
                m_entries.insert(entryId, CachedEntry{rank, 0});
        m_ranksLoaded.insert(showId, upto);
    }
}

double WaitingRoomService::etaSeconds(const store::WaitingRoomRow &row, qint64 position)
{
    return double(position) / std::max(row.admitRatePerSecond, 0.1);
}

qint64 WaitingRoomService::unrankedPollMs(const store::WaitingRoomRow &row) const
{
    if (!row.opened) // the place is drawn at the opening: ask right after it (a moved opening is seen within the bound)
        return pollAfterMs(row.opensAt.toMSecsSinceEpoch() - nowMs());
    // Ranked at the next tick, behind everyone ranked so far and not yet admitted: poll as that position would.
    return pollAfterMs(qint64(etaSeconds(row, row.rankedUpto - row.admittedUpto) * 1000 / 3));
}

qint64 WaitingRoomService::pollAfterMs(qint64 ms) const
{
    // Spread by up to ±10 %: users who joined together would otherwise keep polling together, in waves.
    const qint64 bounded = std::clamp<qint64>(ms, kMinPollMs, m_maxPollMs);
    const qint64 spread = bounded / 10;
    return spread > 0 ? std::max<qint64>(kMinPollMs, bounded - spread + qint64(QRandomGenerator::global()->bounded(quint32(2 * spread + 1))))
                      : bounded;
}

void WaitingRoomService::reload()
{
    const auto rows = m_repository.rooms();
    if (!rows)
        return; // keep serving the last known state; the next tick tries again
    QHash<qint64, Room> rooms;
    const qint64 now = nowMs();
    for (const store::WaitingRoomRow &row : *rows)
        rooms.insert(row.showId, Room{row, now});
    QWriteLocker locker(&m_roomsLock);
    bool changed = rooms.size() != m_rooms.size();
    for (auto it = rooms.constBegin(); !changed && it != rooms.constEnd(); ++it) {
        const auto old = m_rooms.constFind(it.key());
        changed = old == m_rooms.constEnd() || old->row.enabled != it->row.enabled || old->row.opened != it->row.opened
            || old->row.soldOut != it->row.soldOut || old->row.rankedUpto != it->row.rankedUpto
            || old->row.admittedUpto != it->row.admittedUpto;
    }
    m_rooms.swap(rooms);
    if (changed)
        m_changes.fetch_add(1);
}

std::optional<WaitingRoomService::Room> WaitingRoomService::room(qint64 showId) const
{
    QReadLocker locker(&m_roomsLock);
    const auto it = m_rooms.constFind(showId);
    if (it == m_rooms.constEnd())
        return std::nullopt;
    return *it;
}

QueueOutcome<store::WaitingRoomRow> WaitingRoomService::configure(qint64 showId, const store::WaitingRoomSettings &settings,
                                                  const store::Principal &caller, const QString &reason)
{
    store::AuditEntry audit;
    audit.action = QStringLiteral("show.waiting_room");
    audit.reason = reason;
    audit.details = QJsonObject{{QStringLiteral("enabled"), settings.enabled},
                                {QStringLiteral("opens_at"), settings.opensAt.isValid() ? toIsoUtc(settings.opensAt) : QString()},
                                {QStringLiteral("admission_ttl_s"), settings.admissionTtlSeconds},
                                {QStringLiteral("min_admit_per_s"), settings.minAdmitPerSecond},
                                {QStringLiteral("max_in_flight"), settings.maxInFlight}};
    store::WaitingRoomRow row;
    switch (m_repository.configure(showId, settings, newSecret(), caller, audit, &row)) {
    case store::WaitingRoomRepository::Configured::ShowNotFound:
        return refused(ErrorCode::ShowNotFound);
    case store::WaitingRoomRepository::Configured::Error:
        return refused(ErrorCode::WaitingRoomStoreUnavailable);
    case store::WaitingRoomRepository::Configured::Ok:
        break;
    }
    reload(); // this instance answers with the new state at once; others within a tick
    return row;
}

QueueOutcome<QueueJoin> WaitingRoomService::join(qint64 showId, const store::Principal &caller)
{
    const auto current = room(showId);
    if (!current || !current->row.enabled)
        return refused(ErrorCode::WaitingRoomNotFound, showId);
    if (current->row.soldOut)
        return refused(ErrorCode::ShowSoldOut, showId);
    const QString owner = caller.owner();
    if (owner.contains(QLatin1Char('.'))) // the token's fields are split at dots: such an owner could not be told apart
        return refused(ErrorCode::QueueOwnerUnusable);
    const qint64 entryId = m_joins.join(showId, owner); // answered once committed, with others joining at once
    if (entryId < 0)
        return refused(ErrorCode::WaitingRoomStoreUnavailable);
    if (entryId == 0) // switched off or sold out since the last refresh
        return refused(ErrorCode::WaitingRoomClosed, showId);
    const QByteArray payload = "q." + QByteArray::number(showId) + '.' + QByteArray::number(entryId) + '.' + owner.toUtf8();
    QueueJoin joined;
    joined.queueToken = QString::fromLatin1(payload + '.' + mac(current->row.secret, payload));
    // The rank comes with the next admission tick (or, before the opening, from the shuffle at the opening).
    joined.standing.state = current->row.opened ? QueueStanding::State::Queued : QueueStanding::State::BeforeOpening;
    joined.standing.opensAt = current->row.opensAt;
    joined.standing.pollAfterMs = unrankedPollMs(current->row);
    return joined;
}

QueueOutcome<QueueStanding> WaitingRoomService::status(qint64 showId, const store::Principal &caller, const QString &queueToken)
{
    const auto current = room(showId);
    if (!current)
        return refused(ErrorCode::WaitingRoomNotFound, showId);
    const store::WaitingRoomRow &row = current->row;
    const auto parsed = splitToken(queueToken.toLatin1(), 'q', 4);
    bool numbers = parsed.has_value();
    const qint64 tokenShow = numbers ? parsed->fields[1].toLongLong(&numbers) : 0;
    const qint64 entryId = numbers ? parsed->fields[2].toLongLong(&numbers) : 0;
    if (!numbers || tokenShow != showId || !sameBytes(parsed->tag, mac(row.secret, parsed->signedPart)))
        return refused(ErrorCode::InvalidQueueToken, showId);
    if (QString::fromUtf8(parsed->fields[3]) != caller.owner())
        return refused(ErrorCode::QueueTokenWrongHolder);

    QueueStanding standing;
    standing.pollAfterMs = m_maxPollMs;
    if (row.soldOut || !row.enabled) {
        // Answered from memory: once the last seat is booked every poll says so without touching the database.
        standing.state = row.soldOut ? QueueStanding::State::SoldOut : QueueStanding::State::Closed;
        return standing;
    }

    CachedEntry cached;
    bool known = false;
    {
        QMutexLocker locker(&m_entriesLock);
        const auto it = m_entries.constFind(entryId);
        if (it != m_entries.constEnd()) {
            cached = *it;
            known = true;
        }
    }
    const bool needAdmissionTime = known && cached.rank <= row.admittedUpto && cached.admittedAtMs == 0;
    // Before the opening no entry has a rank (the shuffle at the opening assigns them), and the token's MAC proves
    // the entry was issued: nothing to ask the database.
    if ((!known && row.opened) || needAdmissionTime) {
        bool ok = false;
        const auto entry = m_repository.entry(entryId, &ok);
        if (!ok)
            return refused(ErrorCode::WaitingRoomStoreUnavailable);
        if (!entry || entry->showId != showId)
            return refused(ErrorCode::QueueEntryNotFound);
        if (entry->rank) {
            cached = CachedEntry{*entry->rank, entry->admittedAt.isValid() ? entry->admittedAt.toMSecsSinceEpoch() : 0};
            known = true;
            QMutexLocker locker(&m_entriesLock);
            if (m_entries.size() >= kMaxCachedEntries) {
                m_entries.clear();
                m_ranksLoaded.clear();
            }
            m_entries.insert(entryId, cached);
        }
    }
    if (!known) {
        standing.state = row.opened ? QueueStanding::State::Queued : QueueStanding::State::BeforeOpening;
        standing.opensAt = row.opensAt;
        standing.pollAfterMs = unrankedPollMs(row);
        return standing;
    }
    if (cached.rank > row.admittedUpto) {
        const qint64 position = cached.rank - row.admittedUpto;
        const double eta = etaSeconds(row, position);
        standing.state = QueueStanding::State::Waiting;
        standing.position = position;
        standing.etaSeconds = qint64(std::ceil(eta));
        // Far back polls rarely; near the front often: the poll rate of a queue stays proportional to admissions.
        standing.pollAfterMs = pollAfterMs(qint64(eta * 1000 / 3));
        return standing;
    }
    const qint64 expiresMs = cached.admittedAtMs + qint64(row.admissionTtlSeconds) * 1000;
    if (cached.admittedAtMs == 0 || expiresMs <= nowMs()) {
        standing.state = QueueStanding::State::Expired;
        return standing;
    }
    const QByteArray payload = "a." + QByteArray::number(showId) + '.' + QByteArray::number(entryId) + '.' + QByteArray::number(expiresMs)
        + '.' + caller.owner().toUtf8();
    standing.state = QueueStanding::State::Admitted;
    standing.position = 0;
    standing.etaSeconds = 0;
    standing.admissionToken = QString::fromLatin1(payload + '.' + mac(row.secret, payload));
    standing.admissionExpiresAt = QDateTime::fromMSecsSinceEpoch(expiresMs, Qt::UTC);
    return standing;
}

AdmissionPass WaitingRoomService::admitHold(qint64 showId, const store::Principal &caller, const QByteArray &admissionToken)
{
    AdmissionPass pass;
    const auto current = room(showId);
    if (!current || !current->row.enabled) {
        noteDemand(showId);
        return pass;
    }
    // The box office sells to the person at the counter, who is not in the online queue: tills and staff
    // sessions hold without an admission. Only self-service callers (kiosks and what sells on their tokens) queue.
    if (caller.role != Role::Kiosk) {
        if (m_boxOfficeHoldLimit <= 0)
            return pass;
        // Counted before the hold, not reserved: two requests of one session at the same moment may both pass (a
        // soft bound against abuse, not a rule about seats; those are PostgreSQL's).
        const std::optional<int> live = m_repository.liveHolds(caller.owner(), showId);
        if (!live)
            pass.m_refusal = refused(ErrorCode::WaitingRoomStoreUnavailable);
        else if (*live >= m_boxOfficeHoldLimit)
            pass.m_refusal = Refusal{ErrorCode::BoxOfficeHoldLimit, {}, {QString::number(*live), QString::number(showId)}};
        return pass;
    }
    const store::WaitingRoomRow &row = current->row;
    if (admissionToken.isEmpty()) {
        pass.m_refusal = Refusal{ErrorCode::AdmissionRequired, {}, {QString::number(showId)}};
        return pass;
    }
    const auto parsed = splitToken(admissionToken, 'a', 5);
    bool numbers = parsed.has_value();
    const qint64 tokenShow = numbers ? parsed->fields[1].toLongLong(&numbers) : 0;
    const qint64 entryId = numbers ? parsed->fields[2].toLongLong(&numbers) : 0;
    const qint64 expiresMs = numbers ? parsed->fields[3].toLongLong(&numbers) : 0;
    if (!numbers || tokenShow != showId || !sameBytes(parsed->tag, mac(row.secret, parsed->signedPart))) {
        pass.m_refusal = Refusal{ErrorCode::AdmissionInvalid, {}, {QString::number(showId)}};
        return pass;
    }
    if (QString::fromUtf8(parsed->fields[4]) != caller.owner()) {
        pass.m_refusal = Refusal{ErrorCode::AdmissionWrongHolder, {}, {}};
        return pass;
    }
    if (expiresMs <= nowMs()) {
        pass.m_refusal = Refusal{ErrorCode::AdmissionExpired, {}, {}};
        return pass;
    }
    QString activeHold;
    switch (m_repository.claimHold(entryId, &activeHold)) {
    case store::WaitingRoomRepository::Claim::Claimed:
        pass.m_service = this;
        pass.m_entryId = entryId;
        break;
    case store::WaitingRoomRepository::Claim::HoldActive:
        pass.m_refusal = Refusal{ErrorCode::AdmissionHoldActive, {{QStringLiteral("hold_id"), activeHold}}, {}};
        break;
    case store::WaitingRoomRepository::Claim::InProgress:
        pass.m_refusal = Refusal{ErrorCode::AdmissionHoldInProgress, {}, {}};
        break;
    case store::WaitingRoomRepository::Claim::NotFound:
        pass.m_refusal = Refusal{ErrorCode::AdmissionGone, {}, {}};
        break;
    case store::WaitingRoomRepository::Claim::Error:
        pass.m_refusal = refused(ErrorCode::WaitingRoomStoreUnavailable);
        break;
    }
    return pass;
}

void WaitingRoomService::finishHold(qint64 entryId, const QString &holdId)
{
    if (!m_repository.finishHold(entryId, holdId))
        qCWarning(lcQueue) << "could not settle the hold slot of queue entry" << entryId << "(it frees itself after 30 s)";
}

void WaitingRoomService::noteDemand(qint64 showId)
{
    if (m_autoThreshold <= 0)
        return;
    const qint64 second = nowMs() / 1000;
    QMutexLocker locker(&m_demandLock);
    Demand &demand = m_demand[showId];
    if (demand.second != second) {
        demand.second = second;
        demand.count = 0;
    }
    if (++demand.count == m_autoThreshold && !m_autoEnable.contains(showId))
        m_autoEnable.push_back(showId);
}

} // namespace marquee
