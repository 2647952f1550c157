// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/reportrepository.h"

#include <QHash>
#include <QMutex>

namespace marquee {

/**
 * @brief Serves GET /api/v1/reports/occupancy: the report of a show computed once and sent again for as long as
 * nothing it shows has changed.
 *
 * Every request first reads the show's stamp (store::OccupancyStamp: one cheap pass over its seats in
 * PostgreSQL, so writes of any server instance count), and sends the kept document only when it was computed
 * from an equal stamp; otherwise it computes the report and its stamp in one statement and keeps it. What the
 * stamp does not cover never changes once written: a show's seats and layout, the creation time of a booking,
 * the owner of a hold.
 */
class OccupancyReports
{
public:
    explicit OccupancyReports(const store::Database &database, qsizetype maxKeptBytes = 64 * 1024 * 1024);

    enum class Outcome { Ok, NotFound, Error };
    /** @brief The current report of @p showId into @p json (implicitly shared bytes). */
    Outcome report(qint64 showId, QByteArray *json);

    /** @brief Reports computed (not sent from memory) so far: for tests and benchmarks. */
    quint64 computed() const;

private:
    const store::Database &m_database;
    const qsizetype m_maxKeptBytes;
    mutable QMutex m_mutex;
    struct Kept {
        store::OccupancyStamp stamp;
        QByteArray json;
        quint64 lastUse = 0;
    };
    QHash<qint64, Kept> m_kept;
    qsizetype m_keptBytes = 0;
    quint64 m_uses = 0;
    quint64 m_computed = 0;
};

} // namespace marquee
