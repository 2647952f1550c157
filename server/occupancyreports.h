// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/reportrepository.h"

#include <QHash>
#include <QMutex>
#include <QThread>

#include <atomic>
#include <memory>

namespace marquee {

/**
 * @brief Serves GET /api/v1/reports/occupancy: each show's report kept in memory with the seat states it was
 * written from, brought up to date on every request by reading only the seats that changed.
 *
 * Every request makes one pass over the show's seats in PostgreSQL (store::ReportRepository::occupancyPass): the
 * show's stamp (store::OccupancyStamp) and the seats written since the previous pass, found by their row's
 * transaction id, so writes of any server instance count. Equal stamp → the kept document is sent; otherwise
 * the changed seats are applied to the kept states and the document is written again in C++ (sell order
 * re-ranked, held seats whose hold expired by the pass's now() shown free). The first request of a show reads
 * its layout once and every seat. What neither the stamp nor the pass covers never changes once written: a
 * show's seats and layout, the creation time of a booking, the owner of a hold. The bytes equal those of
 * store::ReportRepository::occupancy(), the from-scratch statement (tests compare them after every kind of
 * change).
 */
class OccupancyReports
{
public:
    explicit OccupancyReports(const store::Database &database, qsizetype maxKeptBytes = 64 * 1024 * 1024);
    ~OccupancyReports();

    enum class Outcome { Ok, NotFound, Error, NoRoom };
    /** @brief The current report of @p showId into @p json (implicitly shared bytes); never NoRoom. */
    Outcome report(qint64 showId, QByteArray *json);

    /**
     * @brief Loads the reports of up to @p maxShows shows on sale (soonest first) on a thread of its own, so that
     * their first request is answered like a repeated one: off the request path (a request for a show being
     * loaded waits for that one load, other requests do not wait at all). It never makes room: it stops at the
     * first show that does not fit in the bound next to what is kept. 0: nothing.
     */
    void startWarming(int maxShows);
    /** @brief Stops warming after the show being loaded (called by the destructor too). */
    void stopWarming();
    /** @brief startWarming()'s thread has finished (for tests and benchmarks). */
    bool warmingDone() const;
    /** @brief Shows the warming loaded and kept. */
    int warmedShows() const;

    /** @brief Reports written (not sent from memory) so far, from scratch or from changes: for tests and benchmarks. */
    quint64 computed() const;
    /** @brief Of those, the ones that read the show's layout and every seat (not only the changed ones). */
    quint64 loadedFromScratch() const;

private:
    class Show;
    enum class Room { ForgetOthers, OnlyIfFree };
    Outcome compute(qint64 showId, QByteArray *json, Room room);
    void warm(int maxShows);

    const store::Database &m_database;
    const qsizetype m_maxKeptBytes;
    mutable QMutex m_mutex;
    QHash<qint64, std::shared_ptr<Show>> m_shows;
    qsizetype m_keptBytes = 0;
    quint64 m_uses = 0;
    quint64 m_computed = 0;
    quint64 m_loadedFromScratch = 0;
    std::unique_ptr<QThread> m_warming;
    std::atomic<bool> m_stopWarming = false;
    bool m_warmingDone = false;
    int m_warmed = 0;
};

} // namespace marquee
