// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/reportrepository.h"

#include <QHash>
#include <QMutex>
#include <QThread>
#include <QThreadPool>

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
 * only its held and booked seats (store::ReportRepository::occupancyStates) and joins them in memory with its
 * layout — seats in report order, rows, numbers, tiers — which never changes and is kept once per layout for
 * every show on a screen (read on the first request of any of them). What neither the stamp nor the pass covers
 * never changes once written: a show's seats and layout, the creation time of a booking, the owner of a hold. The
 * bytes equal those of store::ReportRepository::occupancy(), the from-scratch statement (tests compare them after
 * every kind of change).
 *
 * Shows and layouts share one bound on the memory kept (maxKeptBytes): a layout counts once however many shows
 * use it; when over, the least recently used other shows and layouts no kept show uses are forgotten.
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

    /**
     * @brief Starts the layout reader: a thread with its own prepared database connection that reads the layout of a
     * show being loaded while the request's thread reads the show's seat states, so that on two cores PostgreSQL
     * answers one while the server parses the other. Without it (tests that build the reports alone) both are read
     * one after the other on the request's thread.
     */
    void startLayoutReader();
    /** @brief Stops the layout reader after what it is reading and closes its connection (the destructor too). */
    void stopLayoutReader();
    /** @brief startWarming()'s thread has finished (for tests and benchmarks). */
    bool warmingDone() const;
    /** @brief Shows the warming loaded and kept. */
    int warmedShows() const;

    /**
     * @brief Opens the calling thread's database connection and runs the statements of a show's first report on it
     * once (store::ReportRepository::prepareOccupancy), so that the first report served on this thread pays neither
     * the connection's start nor the new backend's catalog reads. Each HTTP worker thread calls it as it starts.
     */
    void prepareThisThread();

    /** @brief Reports written (not sent from memory) so far, from scratch or from changes: for tests and benchmarks. */
    quint64 computed() const;
    /** @brief Of those, the ones that read every held and booked seat of the show (not only the changed ones). */
    quint64 loadedFromScratch() const;
    /** @brief Layouts read from the database so far (once per layout while it is kept). */
    quint64 layoutsLoaded() const;
    /** @brief Of those, the ones read from the layout's stored copy (store::OccupancyLayout::Source::Copy). */
    quint64 layoutsFromCopy() const;
    /** @brief The memory counted against the bound now: kept shows and kept layouts, each layout once. */
    qsizetype keptBytes() const;

private:
    class Layout;
    class Show;
    enum class Room { ForgetOthers, OnlyIfFree };
    Outcome compute(qint64 showId, QByteArray *json, Room room);
    Outcome load(Show &show, qint64 showId, store::ReportRepository &reports, qint64 *nowUs);
    std::shared_ptr<Layout> layoutOf(qint64 layoutId, store::ReportRepository &reports);
    /** @brief The layout is loaded or being loaded (then layoutOf() waits for it). */
    bool layoutKept(qint64 layoutId);
    Outcome keep(qint64 showId, const std::shared_ptr<Show> &show, qsizetype showBytes, const std::shared_ptr<Layout> &layout,
                 bool fromScratch, Room room);
    void warm(int maxShows);
    // With m_mutex held:
    void forgetShow(QHash<qint64, std::shared_ptr<Show>>::iterator show);
    void makeRoom(qint64 keepShowId);

    const store::Database &m_database;
    const qsizetype m_maxKeptBytes;
    mutable QMutex m_mutex;
    QHash<qint64, std::shared_ptr<Show>> m_shows;
    QHash<qint64, std::shared_ptr<Layout>> m_layouts;
    qsizetype m_keptBytes = 0;
    quint64 m_uses = 0;
    quint64 m_computed = 0;
    quint64 m_loadedFromScratch = 0;
    quint64 m_layoutsLoaded = 0;
    quint64 m_layoutsFromCopy = 0;
    QThreadPool m_layoutReader; ///< one thread, kept: startLayoutReader()
    std::atomic<bool> m_layoutReaderOn = false;
    std::unique_ptr<QThread> m_warming;
    std::atomic<bool> m_stopWarming = false;
    bool m_warmingDone = false;
    int m_warmed = 0;
};

} // namespace marquee
