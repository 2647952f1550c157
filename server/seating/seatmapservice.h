// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "seating/seatfeed.h"
#include "store/catalogrepository.h"
#include "store/seatnotification.h"

#include <QHash>
#include <QMutex>
#include <QThread>
#include <QWaitCondition>
#include <deque>
#include <memory>

namespace marquee {

/** @brief A rendered body (full seat map, availability or layout) with its version and entity tag. */
struct RenderedSeatMap {
    QByteArray body; ///< implicitly shared: many responses send the same bytes without copying
    QByteArray etag;
    qint64 version = 0;
    /**
     * @brief The same body as a zlib stream, for `Content-Encoding: deflate` (a 40,000-seat map shrinks about
     * tenfold); compressed once per body by the background thread, empty until then.
     */
    QByteArray deflated;
};

/** @brief Which representation of a show's seat statuses a reader asks for. */
enum class SeatMapView {
    /// `GET …/seatmap`: the layout and the status of every seat in one body (5.5 MB of JSON for 40,000 seats).
    Full,
    /// `GET …/availability`: version, prices and one status letter per seat in layout order (40 kB for 40,000
    /// seats); the layout itself is fetched once from `GET …/layout` and cached by the client.
    Availability,
};

/**
 * @brief Serves seat maps from a per-show in-memory snapshot.
 *
 * The immutable part of each show (layout, seats, prices) is rendered to JSON fragments once. The live part
 * is one compact status string fetched in a single query; the rendered body is kept and served to every
 * reader. At most one refresh of a show runs at a time:
 *  - when the snapshot is merely older than the refresh interval, readers keep getting it at once and a
 *    background thread refreshes it (no reader pays for the query and the rendering);
 *  - when this process changed the show (a hold or release here, see markChanged()), readers wait for a
 *    refresh that started after the change, so a client always sees its own writes; concurrent readers share
 *    one refresh instead of each running their own.
 * Changes made elsewhere (other instances, marquee-admin, plain SQL) arrive as notifications (applyNotification())
 * and count as changes too; while notifications may have been missed (setCoherent()), a snapshot may be up to the
 * refresh interval (plus one refresh) old for them — harmless, because the hold itself is decided by PostgreSQL.
 */
class SeatMapService
{
public:
    SeatMapService(store::CatalogRepository &catalog, int refreshIntervalMs = 200);
    ~SeatMapService();

    enum class Outcome { Ok, NotFound, Error };
    /**
     * @brief The current seat map as @p view; @p notModified when it matches @p ifNoneMatch (then body is empty).
     * Both views come from the same refresh, so an availability and a full map of one version agree.
     */
    Outcome render(qint64 showId, SeatMapView view, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified);
    /**
     * @brief The show's venue layout (seat ids, rows, numbers, positions, tiers, attributes — no statuses, no
     * prices). Seats of a show never change, so it is loaded once per show and process and never invalidated; its
     * tag is a digest of the body, the same on every instance and after a restart.
     */
    Outcome layout(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified);
    /** @brief This process changed seats of the show: the next read fetches fresh statuses. */
    void markChanged(qint64 showId);
    /**
     * @brief This process has just committed a write that set @p seatIds of @p showId to @p status (a hold, a
     * sale, a free): subscribers get the delta at once from here (SeatFeed::applyLocalWrite) instead of from
     * a re-read of the whole show, and the next seat-map read fetches fresh statuses (as markChanged()). A free
     * also asks for a prompt re-read: a hold committed just after it may have reached the feed first.
     * Called only through store::SeatWrites, the one path of every committed seat write.
     */
    void applyLocalWrite(qint64 showId, const QStringList &seatIds, SeatStatus status);
    /**
     * @brief A committed seat write told by the database (channel `marquee_seats`, store::ChangeListener): another
     * instance's, marquee-admin's, a manual UPDATE's, or this process's own heard back. Reaches subscribers by the
     * path of a local write (SeatFeed::applyNotifiedWrite: a seat this process wrote itself lately is left to a
     * re-read, see there); the next seat-map read fetches fresh statuses. A notification without seats (too many
     * for one payload) re-reads the show. This process's own notifications change nothing it already has.
     */
    void applyNotification(const store::SeatNotification &notification);
    /**
     * @brief Whether this process hears every seat write (its listener is subscribed). While not, a new subscriber
     * always gets a fresh read (SeatFeed::distrust()); when it listens again, every seat map and every followed
     * show is re-read, since notifications may have been missed meanwhile. Without a listener (no call) the feed is
     * trusted as it is: only this process's own writes and its polls keep it current.
     */
    void setCoherent(bool listening);
    /// A notification about a seat this process wrote itself within this many milliseconds is checked by a re-read.
    static constexpr int kLocalGuardMs = 1000;
    /** @brief Forget a show's cached layout (after a manager edited prices). */
    void invalidate(qint64 showId);
    /** @brief Forget every show's cached layout (price edits may have been missed). */
    void invalidateAll();

    /** @brief The live statuses of followed shows: the WebSocket delta stream and refusals from memory. */
    SeatFeed &feed() { return m_feed; }
    /**
     * @brief Someone is trying to hold seats of @p showId: keep its statuses fresh in the feed for a few seconds
     * (a refresh right after each local change, at least every kLivePollMs otherwise), so that obvious losers
     * can be refused from memory. Cheap; called on every hold request.
     */
    void noteHoldTraffic(qint64 showId);
    /** @brief Make sure the feed knows @p showId (reads its statuses now if not); NotFound for an unknown show. */
    Outcome ensureLive(qint64 showId);

    static constexpr int kLiveTickMs = 10;     ///< how often the refresher looks for due live refreshes
    /// A followed show is re-read at least this often: for lapses and for writes that reached the feed neither
    /// locally (applyLocalWrite) nor by notification (applyNotification), so this can be slow.
    static constexpr int kLivePollMs = 500;
    static constexpr int kLiveMinGapMs = 40;   ///< and at most this often, however many local changes arrive
    static constexpr int kHoldTrafficKeepMs = 5000; ///< followed this long after its last hold request

    /// The full map is rendered by refreshes while it was read this recently (or for the reader that asks for it).
    static constexpr int kFullMapKeepMs = 5000;

private:
    /** @brief The parts of a show's seat map that change only with a price edit (invalidate()). */
    struct Layout {
        QByteArray headAfterVersion; ///< `,"currency":..,"layout":..,"seats":[`
        std::vector<QByteArray> seatPrefixes; ///< `{"seat_id":..,...,"status":"`
        QStringList seatIds; ///< canonical order
        QByteArray availabilityHead; ///< `,"layout_etag":..,"currency":..,"tiers":..,"seat_count":..,"statuses":"`
    };
    /** @brief What never changes for a show: its seats. */
    struct VenueLayout {
        QStringList seatIds; ///< canonical order, the order of the status letters
        RenderedSeatMap rendered; ///< the body of `GET …/layout`, its tag and (once compressed) its deflated copy
    };
    struct Snapshot {
        std::shared_ptr<const Layout> layout;
        RenderedSeatMap rendered;     ///< the full map; lags statusesEtag while nobody reads the full map
        RenderedSeatMap availability; ///< always of the last refresh's statuses
        QByteArray statusesEtag;      ///< tagFor() the last refresh's statuses and prices
        qint64 fullReadAtMs = 0;      ///< the last full-map read (see kFullMapKeepMs)
        qint64 fetchedAtMs = 0;
        quint64 generation = 0; ///< tells a refresh whether invalidate() replaced this entry meanwhile
        quint64 changes = 0;    ///< markChanged() calls so far
        quint64 covered = 0;    ///< the changes included in `rendered`
        quint64 runningCovers = 0; ///< the changes the running refresh will include
        bool refreshing = false;   ///< a refresh runs (or is queued for the background thread)
    };
    /**
     * @brief The entity tag of both views of one refresh: `"<version>.<digest>"`, the digest over the statuses and
     * the prices (which a manager may edit without a seat write), so a revalidation after a price edit gets a 200.
     */
    static QByteArray tagFor(const store::SeatStatuses &statuses, const Layout &layout);
    /**
     * @brief Query and render (the availability always, the full map when @p view is Full or it was read lately);
     * stores the result if the entry is still generation @p generation and gives @p view's body in @p out.
     */
    Outcome refresh(qint64 showId, quint64 generation, SeatMapView view, RenderedSeatMap *out);
    std::shared_ptr<const Layout> loadLayout(qint64 showId);
    /** @brief The show's venue layout, loaded and rendered on first use; nullopt for an unknown show or an error. */
    std::optional<VenueLayout> venueLayout(qint64 showId, Outcome *outcome);
    /** @brief Render @p layout's venue part and keep it (unless kept already); returns the kept one. */
    VenueLayout keepVenueLayout(const store::ShowLayout &layout);
    /** @brief Whether a snapshot holds a current body for @p view; called with m_mutex held. */
    static bool hasCurrent(const Snapshot &snapshot, SeatMapView view);
    void backgroundLoop();
    /** @brief Read the statuses of @p showId and publish them to the feed (no rendering). */
    Outcome refreshLive(qint64 showId);
    /** @brief Shows whose live refresh is due now; called with m_mutex held. */
    QList<qint64> dueLiveRefreshes(qint64 nowMs);
    /** @brief The seat ids of a show in canonical order, loaded once. */
    std::optional<QStringList> seatIdsOf(qint64 showId);

    store::CatalogRepository &m_catalog;
    const int m_refreshIntervalMs;
    QMutex m_mutex;
    QWaitCondition m_refreshed; ///< woken whenever a refresh ends
    QWaitCondition m_queued;    ///< wakes the background thread
    QHash<qint64, Snapshot> m_snapshots;
    quint64 m_generations = 0;
    struct Job {
        enum Kind {
            Refresh,        ///< re-read the statuses and render
            Compress,       ///< compress the bodies of the last refresh
            CompressLayout, ///< compress the venue layout
        };
        qint64 showId;
        quint64 generation;
        Kind kind;
    };
    std::deque<Job> m_queue; ///< work for the background thread
    bool m_stopping = false;
    SeatFeed m_feed;
    struct LiveShow {
        qint64 lastHoldTrafficMs = 0;
        qint64 lastRefreshMs = 0;
        quint64 changes = 0;       ///< markChanged() calls seen while followed
        quint64 covered = 0;       ///< changes included in the feed's statuses
        quint64 runningCovers = 0;
        bool refreshing = false;
        /// Local time at which the first hold the last read saw lapses (0: none held): re-read then, so that a lapse
        /// reaches subscribers when it happens rather than at the next poll or reaper sweep.
        qint64 lapseDueMs = 0;
    };
    QHash<qint64, LiveShow> m_live;
    QHash<qint64, VenueLayout> m_venueLayouts; ///< never invalidated: seats of a show never change
    QMutex m_venueLoading; ///< one venue layout load at a time (concurrent first readers share it)
    std::unique_ptr<QThread> m_background;
};

} // namespace marquee
