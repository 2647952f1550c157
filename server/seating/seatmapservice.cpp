// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seating/seatmapservice.h"

#include "core/seatstatus.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <tuple>

namespace marquee {

namespace {
/** @brief @p kept's body as HTTP's "deflate" coding, or empty when there is none or it is compressed already. */
QByteArray deflatedCopy(const RenderedSeatMap &kept)
{
    if (kept.body.isEmpty() || !kept.deflated.isEmpty())
        return {};
    // qCompress() yields a 4-byte length and a zlib stream; the stream is HTTP's "deflate" coding. Level 1:
    // most of the gain for a fraction of the time of the default level.
    return qCompress(kept.body, 1).mid(4);
}

QByteArray jsonString(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact); // ["…"]
    return array.mid(1, array.size() - 2);
}
} // namespace

SeatMapService::SeatMapService(store::CatalogRepository &catalog, int refreshIntervalMs)
    : m_catalog(catalog)
    , m_refreshIntervalMs(refreshIntervalMs)
    , m_feed(catalog.database().seatFreeing())
{
    m_catalog.database().seatWrites().setSink([this](qint64 showId, const QStringList &seatIds, SeatStatus status) { applyLocalWrite(showId, seatIds, status); });
    m_background.reset(QThread::create([this] { backgroundLoop(); }));
    m_background->setObjectName(QStringLiteral("seatmap-refresh"));
    m_background->start();
}

SeatMapService::~SeatMapService()
{
    m_catalog.database().seatWrites().setSink(nullptr);
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_queued.wakeAll();
    }
    m_background->wait();
}

void SeatMapService::backgroundLoop()
{
    for (;;) {
        Job job{};
        RenderedSeatMap current, currentAvailability;
        QList<qint64> dueLive;
        {
            QMutexLocker lock(&m_mutex);
            // Live refreshes go first: a subscriber waits for them, while a queued job is a background nicety.
            while (!m_stopping) {
                dueLive = dueLiveRefreshes(QDateTime::currentMSecsSinceEpoch());
                if (!dueLive.isEmpty() || !m_queue.empty())
                    break;
                // Followed shows need a look every tick; otherwise sleep until work is queued.
                if (m_live.isEmpty())
                    m_queued.wait(&m_mutex);
                else
                    m_queued.wait(&m_mutex, kLiveTickMs);
            }
            if (m_stopping)
                break;
        }
        if (!dueLive.isEmpty()) {
            for (const qint64 showId : std::as_const(dueLive))
                refreshLive(showId);
            continue;
        }
        {
            QMutexLocker lock(&m_mutex);
            if (m_queue.empty())
                continue;
            job = m_queue.front();
            m_queue.pop_front();
            if (job.kind == Job::CompressLayout) {
                const auto venue = m_venueLayouts.constFind(job.showId);
                if (venue != m_venueLayouts.constEnd())
                    current = venue->rendered;
            } else {
                const auto it = m_snapshots.find(job.showId);
                if (it == m_snapshots.end() || it->generation != job.generation)
                    continue; // invalidated meanwhile; nobody waits for this one
                if (job.kind == Job::Compress) {
                    current = it->rendered;
                    currentAvailability = it->availability;
                } else {
                    it->runningCovers = it->changes; // the query starts after this point
                }
            }
        }
        if (job.kind == Job::Refresh) {
            RenderedSeatMap ignored;
            refresh(job.showId, job.generation, SeatMapView::Availability, &ignored); // queues the compression when it succeeds
            continue;
        }
        // Each body is compressed once, here, so that no request pays for it; a body replaced meanwhile (a newer
        // version) is not given a stale compressed copy. The small availability first: it is ready in well under
        // a millisecond, while the full map takes tens.
        if (job.kind == Job::Compress) {
            const QByteArray availabilityDeflated = deflatedCopy(currentAvailability);
            QMutexLocker lock(&m_mutex);
            const auto it = m_snapshots.find(job.showId);
            if (it != m_snapshots.end() && it->generation == job.generation && !availabilityDeflated.isEmpty()
                && it->availability.etag == currentAvailability.etag && it->availability.body.isSharedWith(currentAvailability.body))
                it->availability.deflated = availabilityDeflated;
        }
        const QByteArray deflated = deflatedCopy(current);
        if (deflated.isEmpty())
            continue;
        QMutexLocker lock(&m_mutex);
        if (job.kind == Job::CompressLayout) {
            const auto venue = m_venueLayouts.find(job.showId);
            if (venue != m_venueLayouts.end() && venue->rendered.body.isSharedWith(current.body))
                venue->rendered.deflated = deflated;
            continue;
        }
        const auto it = m_snapshots.find(job.showId);
        if (it != m_snapshots.end() && it->generation == job.generation && it->rendered.etag == current.etag
            && it->rendered.body.isSharedWith(current.body))
            it->rendered.deflated = deflated;
    }
    m_catalog.database().closeThreadConnection();
}

QByteArray SeatMapService::tagFor(const store::SeatStatuses &statuses, const Layout &layout)
{
    // The version sum only grows with seat writes, but a hold that lapses changes a status without a write and a
    // manager's price edit changes the prices without one, so the digest covers the status letters and everything
    // of the availability's head (layout tag, currency, tiers with their prices). Both views of one refresh share
    // this tag: the full map holds the same facts (its per-seat prices follow from the tiers).
    QCryptographicHash digest(QCryptographicHash::Md5);
    digest.addData(layout.availabilityHead);
    digest.addData(statuses.codes);
    return '"' + QByteArray::number(statuses.version) + '.' + digest.result().toHex().left(12) + '"';
}

void SeatMapService::markChanged(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_snapshots.find(showId);
    if (it != m_snapshots.end())
        ++it->changes;
    const auto live = m_live.find(showId);
    if (live != m_live.end()) {
        ++live->changes;
        m_queued.wakeOne(); // subscribers wait for this change
    }
}

void SeatMapService::applyLocalWrite(qint64 showId, const QStringList &seatIds, SeatStatus status)
{
    {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end())
            ++it->changes; // the rendered seat map is re-read on the next request, as after markChanged()
        const auto live = m_live.find(showId);
        if (status == SeatStatus::Available && live != m_live.end()) {
            ++live->changes; // confirmed (or corrected) by a read soon, see the header
            m_queued.wakeOne();
        }
    }
    // The live statuses need no re-read for this write: a feed that does not know the show yet reads it in full
    // when it starts following it.
    m_feed.applyLocalWrite(showId, seatIds, status);
}

void SeatMapService::applyNotification(const store::SeatNotification &notification)
{
    const qint64 showId = notification.showId;
    const bool own = notification.origin == m_catalog.database().instanceId();
    if (!notification.status) {
        if (own)
            return; // this process told the seat maps when it committed
        markChanged(showId);
        return;
    }
    if (!own) {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end())
            ++it->changes; // the rendered seat map is re-read on the next request
    }
    // The feed needs no re-read: the notification says what changed. Only when it may be older than one of this
    // process's own writes (see SeatFeed::applyNotifiedWrite) does the database decide.
    int contested = 0;
    m_feed.applyNotifiedWrite(showId, notification.seatIds, *notification.status, kLocalGuardMs, !own, &contested);
    if (contested > 0) {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end())
            ++it->changes;
        // Followed for a moment even without subscribers, so that the re-read settles the seats soon.
        LiveShow &live = m_live[showId];
        live.lastHoldTrafficMs = std::max(live.lastHoldTrafficMs, QDateTime::currentMSecsSinceEpoch());
        ++live.changes;
        m_queued.wakeOne();
    }
}

void SeatMapService::setCoherent(bool listening)
{
    if (!listening) {
        m_feed.distrust();
        return;
    }
    m_feed.trustReadsFromNow();
    QMutexLocker lock(&m_mutex);
    for (Snapshot &snapshot : m_snapshots)
        ++snapshot.changes;
    for (LiveShow &live : m_live)
        ++live.changes;
    m_queued.wakeOne();
}

void SeatMapService::noteHoldTraffic(qint64 showId)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QMutexLocker lock(&m_mutex);
    auto it = m_live.find(showId);
    if (it == m_live.end()) {
        it = m_live.insert(showId, LiveShow{});
        m_queued.wakeOne();
    }
    it->lastHoldTrafficMs = now;
}

QList<qint64> SeatMapService::dueLiveRefreshes(qint64 nowMs)
{
    // Followed by WebSocket subscribers counts as traffic: such shows stay live as long as someone listens.
    for (const qint64 showId : m_feed.followedShows())
        m_live[showId].lastHoldTrafficMs = nowMs;
    QList<qint64> due;
    for (auto it = m_live.begin(); it != m_live.end();) {
        if (nowMs - it->lastHoldTrafficMs > kHoldTrafficKeepMs && !it->refreshing) {
            it = m_live.erase(it);
            continue;
        }
        const qint64 sinceLast = nowMs - it->lastRefreshMs;
        const bool lapseDue = it->lapseDueMs > 0 && nowMs >= it->lapseDueMs;
        if (!it->refreshing && sinceLast >= kLiveMinGapMs && (it->changes > it->covered || sinceLast >= kLivePollMs || lapseDue))
            due << it.key();
        ++it;
    }
    return due;
}

std::optional<QStringList> SeatMapService::seatIdsOf(qint64 showId)
{
    Outcome outcome = Outcome::Ok;
    const std::optional<VenueLayout> venue = venueLayout(showId, &outcome);
    if (!venue)
        return std::nullopt;
    return venue->seatIds;
}

SeatMapService::VenueLayout SeatMapService::keepVenueLayout(const store::ShowLayout &layout)
{
    {
        QMutexLocker lock(&m_mutex);
        const auto it = m_venueLayouts.constFind(layout.showId);
        if (it != m_venueLayouts.constEnd())
            return *it;
    }
    VenueLayout venue;
    QByteArray body = "{\"show_id\":" + QByteArray::number(layout.showId) + ",\"layout\":"
        + QJsonDocument(layout.layout).toJson(QJsonDocument::Compact) + ",\"seat_count\":" + QByteArray::number(qsizetype(layout.seats.size()))
        + ",\"seats\":[";
    body.reserve(qsizetype(layout.seats.size()) * 110 + body.size() + 2);
    venue.seatIds.reserve(qsizetype(layout.seats.size()));
    bool first = true;
    for (const Seat &seat : layout.seats) {
        if (!first)
            body += ',';
        first = false;
        body += QJsonDocument(toJson(seat)).toJson(QJsonDocument::Compact);
        venue.seatIds << seat.seatId;
    }
    body += "]}";
    // A digest of the body: strong, stable across restarts and instances, and it changes only with the layout.
    venue.rendered.etag = "\"layout." + QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex().left(24) + '"';
    venue.rendered.body = std::move(body);
    QMutexLocker lock(&m_mutex);
    const auto it = m_venueLayouts.constFind(layout.showId);
    if (it != m_venueLayouts.constEnd())
        return *it; // another thread kept it first
    m_venueLayouts.insert(layout.showId, venue);
    m_queue.push_back(Job{layout.showId, 0, Job::CompressLayout});
    m_queued.wakeOne();
    return venue;
}

std::optional<SeatMapService::VenueLayout> SeatMapService::venueLayout(qint64 showId, Outcome *outcome)
{
    *outcome = Outcome::Ok;
    const auto kept = [&]() -> std::optional<VenueLayout> {
        QMutexLocker lock(&m_mutex);
        const auto it = m_venueLayouts.constFind(showId);
        return it == m_venueLayouts.constEnd() ? std::nullopt : std::optional<VenueLayout>(*it);
    };
    if (std::optional<VenueLayout> venue = kept())
        return venue;
    // The first readers of a show wait for one load instead of each running the 40,000-row query.
    QMutexLocker loading(&m_venueLoading);
    if (std::optional<VenueLayout> venue = kept())
        return venue;
    const std::optional<store::ShowLayout> layout = m_catalog.showLayout(showId);
    if (!layout) {
        *outcome = m_catalog.show(showId) ? Outcome::Error : Outcome::NotFound;
        return std::nullopt;
    }
    return keepVenueLayout(*layout);
}

SeatMapService::Outcome SeatMapService::layout(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified)
{
    *notModified = false;
    Outcome outcome = Outcome::Ok;
    const std::optional<VenueLayout> venue = venueLayout(showId, &outcome);
    if (!venue)
        return outcome;
    *out = venue->rendered;
    if (!ifNoneMatch.isEmpty() && (ifNoneMatch == out->etag || ifNoneMatch == "W/" + out->etag)) {
        *notModified = true;
        out->body.clear();
        out->deflated.clear();
    }
    return Outcome::Ok;
}

SeatMapService::Outcome SeatMapService::refreshLive(qint64 showId)
{
    {
        QMutexLocker lock(&m_mutex);
        LiveShow &live = m_live[showId];
        live.refreshing = true;
        live.runningCovers = live.changes;
        live.lastRefreshMs = QDateTime::currentMSecsSinceEpoch();
    }
    Outcome outcome = Outcome::Ok;
    const SeatFeed::QueryStart start = m_feed.beginQuery();
    const std::optional<store::SeatStatuses> statuses = m_catalog.seatStatuses(showId);
    std::optional<QStringList> seatIds;
    if (!statuses)
        outcome = m_catalog.show(showId) ? Outcome::Error : Outcome::NotFound;
    else if (!(seatIds = seatIdsOf(showId)))
        outcome = Outcome::Error;
    if (outcome == Outcome::Ok)
        m_feed.publish(showId, start, *statuses, *seatIds);
    QMutexLocker lock(&m_mutex);
    const auto it = m_live.find(showId);
    if (it != m_live.end()) {
        it->refreshing = false;
        if (outcome == Outcome::Ok) {
            it->covered = std::max(it->covered, it->runningCovers);
            // The database's now() is taken about when the query began; if this clock runs behind it, the re-read
            // comes a little early, sees the hold still live and is told the remaining time again.
            it->lapseDueMs = statuses->firstLapseInMs < 0 ? 0 : start.localMs + statuses->firstLapseInMs + 1;
        } else if (outcome == Outcome::NotFound) {
            m_live.erase(it); // nothing to follow
        }
    }
    return outcome;
}

SeatMapService::Outcome SeatMapService::ensureLive(qint64 showId)
{
    // Not merely known: a feed that may have missed notifications is re-read before a new subscriber gets it.
    if (m_feed.isCurrent(showId))
        return Outcome::Ok;
    return refreshLive(showId);
}

void SeatMapService::invalidate(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    m_snapshots.remove(showId);
    m_refreshed.wakeAll(); // readers waiting for the old entry's refresh start over
}

void SeatMapService::invalidateAll()
{
    QMutexLocker lock(&m_mutex);
    m_snapshots.clear();
    m_refreshed.wakeAll();
}

std::shared_ptr<const SeatMapService::Layout> SeatMapService::loadLayout(qint64 showId)
{
    const std::optional<store::ShowLayout> layout = m_catalog.showLayout(showId);
    if (!layout)
        return nullptr;
    const VenueLayout venue = keepVenueLayout(*layout);
    auto rendered = std::make_shared<Layout>();
    QJsonObject layoutJson = layout->layout;
    QJsonArray tiers;
    for (auto it = layout->prices.constBegin(); it != layout->prices.constEnd(); ++it)
        tiers.append(QJsonObject{{QStringLiteral("tier"), it.key()}, {QStringLiteral("price_minor"), it.value()}});
    layoutJson.insert(QStringLiteral("tiers"), tiers);
    const QByteArray currency = jsonString(layout->currency);
    rendered->headAfterVersion = ",\"currency\":" + currency + ",\"layout\":" + QJsonDocument(layoutJson).toJson(QJsonDocument::Compact) + ",\"seats\":[";
    rendered->availabilityHead = ",\"layout_etag\":" + jsonString(QString::fromLatin1(venue.rendered.etag)) + ",\"currency\":" + currency
        + ",\"tiers\":" + QJsonDocument(tiers).toJson(QJsonDocument::Compact) + ",\"seat_count\":" + QByteArray::number(qsizetype(layout->seats.size()))
        + ",\"statuses\":\"";
    rendered->seatPrefixes.reserve(layout->seats.size());
    for (const Seat &seat : layout->seats) {
        QJsonObject object = toJson(seat);
        object.insert(QStringLiteral("price_minor"), layout->prices.value(seat.tier).toInteger());
        QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
        json.chop(1); // the status and the closing brace are appended per snapshot
        rendered->seatPrefixes.push_back(json + ",\"status\":\"");
        rendered->seatIds << seat.seatId;
    }
    return rendered;
}

bool SeatMapService::hasCurrent(const Snapshot &snapshot, SeatMapView view)
{
    if (view == SeatMapView::Availability)
        return !snapshot.availability.body.isEmpty();
    return !snapshot.rendered.body.isEmpty() && snapshot.rendered.etag == snapshot.statusesEtag;
}

SeatMapService::Outcome SeatMapService::refresh(qint64 showId, quint64 generation, SeatMapView view, RenderedSeatMap *out)
{
    std::shared_ptr<const Layout> layout;
    bool wantFull = view == SeatMapView::Full;
    {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end()) {
            layout = it->layout;
            // Rendering 5.5 MB per change is wasted while every reader takes the availability instead.
            wantFull = wantFull || QDateTime::currentMSecsSinceEpoch() - it->fullReadAtMs < kFullMapKeepMs;
        }
    }
    Outcome outcome = Outcome::Ok;
    const SeatFeed::QueryStart start = m_feed.beginQuery();
    const std::optional<store::SeatStatuses> statuses = m_catalog.seatStatuses(showId);
    if (!statuses)
        outcome = m_catalog.show(showId) ? Outcome::Error : Outcome::NotFound;
    if (outcome == Outcome::Ok && !layout) {
        layout = loadLayout(showId);
        if (!layout)
            outcome = Outcome::Error;
    }
    if (outcome == Outcome::Ok && layout->seatPrefixes.size() != size_t(statuses->codes.size()))
        outcome = Outcome::Error; // seats of a show never change; refuse to splice mismatched data
    if (outcome == Outcome::Ok)
        m_feed.publish(showId, start, *statuses, layout->seatIds); // every fresh read feeds the live stream too

    QByteArray etag;
    bool renderAvailability = true;
    bool renderFull = wantFull;
    if (outcome == Outcome::Ok) {
        // Nothing changed since the snapshot (same version sum, same statuses): keep its bodies and their compressed
        // forms instead of rendering and compressing again.
        etag = tagFor(*statuses, *layout);
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end() && it->generation == generation && it->statusesEtag == etag) {
            renderAvailability = it->availability.body.isEmpty();
            renderFull = wantFull && !hasCurrent(*it, SeatMapView::Full);
            if (!renderAvailability && !renderFull) {
                it->refreshing = false;
                it->fetchedAtMs = QDateTime::currentMSecsSinceEpoch();
                it->covered = std::max(it->covered, it->runningCovers);
                *out = view == SeatMapView::Full ? it->rendered : it->availability;
                m_refreshed.wakeAll();
                return Outcome::Ok;
            }
        }
    }

    RenderedSeatMap full, availability;
    if (outcome == Outcome::Ok && renderFull) {
        QByteArray body;
        body.reserve(qsizetype(layout->seatPrefixes.size()) * 150 + 4096);
        body = "{\"show_id\":" + QByteArray::number(showId) + ",\"version\":" + QByteArray::number(statuses->version);
        body += layout->headAfterVersion;
        for (size_t i = 0; i < layout->seatPrefixes.size(); ++i) {
            if (i)
                body += ',';
            body += layout->seatPrefixes[i];
            const char code = statuses->codes[qsizetype(i)];
            body += seatStatusJsonTail(code);
        }
        body += "]}";
        full.body = std::move(body);
        full.version = statuses->version;
        full.etag = etag;
    }
    if (outcome == Outcome::Ok && renderAvailability) {
        // The letters are the live feed's (a, h, b); one per seat, in the order of the layout's seats.
        availability.body = "{\"show_id\":" + QByteArray::number(showId) + ",\"version\":" + QByteArray::number(statuses->version)
            + layout->availabilityHead + statuses->codes + "\"}";
        availability.version = statuses->version;
        availability.etag = etag;
    }

    QMutexLocker lock(&m_mutex);
    const auto it = m_snapshots.find(showId);
    const bool current = it != m_snapshots.end() && it->generation == generation;
    if (current) {
        it->refreshing = false;
        if (outcome == Outcome::Ok) {
            it->layout = layout;
            it->statusesEtag = etag;
            if (renderAvailability)
                it->availability = availability;
            if (renderFull)
                it->rendered = full;
            it->fetchedAtMs = QDateTime::currentMSecsSinceEpoch();
            it->covered = std::max(it->covered, it->runningCovers);
            m_queue.push_back(Job{showId, generation, Job::Compress});
            m_queued.wakeOne();
        } else if (it->availability.body.isEmpty()) {
            m_snapshots.erase(it); // never rendered: forget it (an unknown show must not stay cached)
        }
    }
    if (outcome == Outcome::Ok) {
        if (current)
            *out = view == SeatMapView::Full ? it->rendered : it->availability;
        else
            *out = view == SeatMapView::Full ? full : availability; // rendered for this view (invalidated meanwhile)
    }
    m_refreshed.wakeAll();
    return outcome;
}

SeatMapService::Outcome SeatMapService::render(qint64 showId, SeatMapView view, RenderedSeatMap *out, const QByteArray &ifNoneMatch,
                                               bool *notModified)
{
    *notModified = false;
    quint64 generation = 0;
    {
        QMutexLocker lock(&m_mutex);
        for (;;) {
            auto it = m_snapshots.find(showId);
            if (it == m_snapshots.end()) {
                // Created before the query runs, so that markChanged() during the first refresh is not lost.
                it = m_snapshots.insert(showId, Snapshot{});
                it->generation = ++m_generations;
            }
            if (view == SeatMapView::Full)
                it->fullReadAtMs = QDateTime::currentMSecsSinceEpoch();
            if (hasCurrent(*it, view) && it->covered >= it->changes) {
                // Current as far as this process knows. When merely old, serve it and refresh in the background.
                if (!it->refreshing && QDateTime::currentMSecsSinceEpoch() - it->fetchedAtMs >= m_refreshIntervalMs) {
                    it->refreshing = true;
                    it->runningCovers = it->changes;
                    m_queue.push_back(Job{showId, it->generation, Job::Refresh});
                    m_queued.wakeOne();
                }
                *out = view == SeatMapView::Full ? it->rendered : it->availability;
                break;
            }
            if (it->refreshing) {
                // A refresh runs. Wait for it; if it started before our change, the next round starts another.
                m_refreshed.wait(&m_mutex);
                continue;
            }
            // Nobody refreshes: this reader does it, covering every change marked so far.
            it->refreshing = true;
            it->runningCovers = it->changes;
            generation = it->generation;
            break;
        }
    }
    if (generation != 0) {
        const Outcome outcome = refresh(showId, generation, view, out);
        if (outcome != Outcome::Ok)
            return outcome;
    }
    if (!ifNoneMatch.isEmpty() && (ifNoneMatch == out->etag || ifNoneMatch == "W/" + out->etag)) {
        *notModified = true;
        out->body.clear();
        out->deflated.clear();
    }
    return Outcome::Ok;
}

} // namespace marquee
