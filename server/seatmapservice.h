// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/catalogrepository.h"

#include <QHash>
#include <QMutex>
#include <memory>

namespace marquee {

/** @brief A rendered seat map body with its version and entity tag. */
struct RenderedSeatMap {
    QByteArray body;
    QByteArray etag;
    qint64 version = 0;
};

/**
 * @brief Serves seat maps quickly: the immutable part of each show (layout, seats, prices) is rendered to JSON
 * fragments once and cached; a request only fetches the compact live status string (one row) and splices it in.
 */
class SeatMapService
{
public:
    explicit SeatMapService(store::CatalogRepository &catalog);

    /** @brief The ETag of the current statuses (cheap: no rendering); empty for an unknown show. */
    enum class Outcome { Ok, NotFound, Error };
    Outcome render(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified);
    /** @brief Forget a show's cached layout (after a manager edited prices). */
    void invalidate(qint64 showId);

    static QByteArray etagFor(const store::SeatStatuses &statuses);

private:
    struct Rendered {
        QByteArray headAfterVersion; ///< `,"currency":..,"layout":..,"seats":[`
        std::vector<QByteArray> seatPrefixes; ///< `{"seat_id":..,...,"status":"`
    };
    std::shared_ptr<const Rendered> renderedLayout(qint64 showId, Outcome *outcome);

    store::CatalogRepository &m_catalog;
    QMutex m_mutex;
    QHash<qint64, std::shared_ptr<const Rendered>> m_cache;
};

} // namespace marquee
