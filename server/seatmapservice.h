// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/catalogrepository.h"

#include <QHash>
#include <QMutex>
#include <memory>

namespace marquee {

/** @brief A rendered seat map body with its version and entity tag. */
struct RenderedSeatMap {
    QByteArray body; ///< implicitly shared: many responses send the same bytes without copying
    QByteArray etag;
    qint64 version = 0;
};

/**
 * @brief Serves seat maps from a per-show in-memory snapshot.
 *
 * The immutable part of each show (layout, seats, prices) is rendered to JSON fragments once. The live part
 * is one compact status string fetched in a single query; the rendered body is kept and served to every
 * reader until it is older than the refresh interval or this process changed the show (a hold or release
 * here invalidates it, so a client always sees its own writes). Only one thread refreshes a show at a time;
 * the others keep serving the previous snapshot meanwhile. A snapshot may thus be up to the refresh interval
 * old for changes made by other server instances — harmless, because the hold itself is decided by PostgreSQL.
 */
class SeatMapService
{
public:
    SeatMapService(store::CatalogRepository &catalog, int refreshIntervalMs = 200);

    enum class Outcome { Ok, NotFound, Error };
    /** @brief The current seat map; @p notModified when it matches @p ifNoneMatch (then body is empty). */
    Outcome render(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified);
    /** @brief This process changed seats of the show: the next read fetches fresh statuses. */
    void markChanged(qint64 showId);
    /** @brief Forget a show's cached layout (after a manager edited prices). */
    void invalidate(qint64 showId);

    static QByteArray etagFor(const store::SeatStatuses &statuses);

private:
    struct Layout {
        QByteArray headAfterVersion; ///< `,"currency":..,"layout":..,"seats":[`
        std::vector<QByteArray> seatPrefixes; ///< `{"seat_id":..,...,"status":"`
    };
    struct Snapshot {
        std::shared_ptr<const Layout> layout;
        RenderedSeatMap rendered;
        qint64 fetchedAtMs = 0;
        bool stale = true;
        bool refreshing = false;
    };
    Outcome refresh(qint64 showId, std::shared_ptr<const Layout> layout, RenderedSeatMap *out);
    std::shared_ptr<const Layout> loadLayout(qint64 showId);

    store::CatalogRepository &m_catalog;
    const int m_refreshIntervalMs;
    QMutex m_mutex;
    QHash<qint64, Snapshot> m_snapshots;
};

} // namespace marquee
