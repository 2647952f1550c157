// SPDX-License-Identifier: AGPL-3.0-or-later
#include "reports/occupancyreports.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <vector>

namespace marquee {

namespace {
using SeatRow = store::OccupancySeatRow;

// A pass must come back within 2^31 transactions of the previous one (see kOccupancyPass); past a quarter of that
// the show is read from scratch instead.
constexpr qint64 kMaxTransactionsBetweenPasses = qint64(1) << 29;
} // namespace

/**
 * @brief One layout's part of the reports of all its shows: its seats in report order with their JSON heads and
 * tiers, and where each seat id is. Never changes once loaded.
 */
class OccupancyReports::Layout
{
public:
    explicit Layout(qint64 id)
        : id(id)
    {
    }

    /** @brief 0 for a show's own layout (not kept in m_layouts). */
    const qint64 id;

    /** @brief Held while it is loaded: one load per layout, the shows that need it meanwhile wait. */
    QMutex mutex;
    bool loaded = false; ///< guarded by mutex; the rest is read without it once loaded

    store::OccupancyLayout seats;
    qsizetype bytes = 0; ///< memory it keeps, roughly: for the bound

    // Guarded by OccupancyReports::m_mutex.
    quint64 lastUse = 0;
    qsizetype countedBytes = 0;
    int keptShows = 0; ///< kept shows counted without this layout's bytes (it is counted once, here)

    /** @brief The place in report order of the seat @p seatId; -1 when the layout has no such seat. */
    qsizetype indexOf(QByteArrayView seatId) const
    {
        for (size_t slot = qHash(seatId) & m_mask;; slot = (slot + 1) & m_mask) {
            const qint32 index = m_slots[slot];
            if (index < 0 || seats.seatIds[index] == seatId)
                return index;
        }
    }

    void set(store::OccupancyLayout layout)
    {
        seats = std::move(layout);
        // Seat id → place: an open-addressing table of places, at most half full, probed linearly. A QHash of
        // 40,000 QByteArray keys took ~20 ms to build for the stadium (a node each), this one allocation ~2 ms.
        size_t capacity = 16;
        while (capacity < size_t(seats.seatIds.size()) * 2)
            capacity *= 2;
        m_mask = capacity - 1;
        m_slots.assign(capacity, -1);
        for (qsizetype i = 0; i < seats.seatIds.size(); ++i) {
            size_t slot = qHash(QByteArrayView(seats.seatIds[i])) & m_mask;
            while (m_slots[slot] >= 0 && seats.seatIds[m_slots[slot]] != seats.seatIds[i])
                slot = (slot + 1) & m_mask;
            m_slots[slot] = qint32(i); // a repeated id keeps its last place, as QHash::insert did
        }
        // A seat: its id (QByteArray and bytes), its head's end, its tier, two slots of the index.
        constexpr qsizetype perSeat = sizeof(QByteArray) + 24 + sizeof(qsizetype) + sizeof(int) + 2 * sizeof(qint32);
        bytes = seats.heads.size() + seats.seatIds.size() * perSeat;
        for (const QByteArray &id : std::as_const(seats.seatIds))
            bytes += id.size();
        loaded = true;
    }

private:
    std::vector<qint32> m_slots; ///< places in report order; -1: empty
    size_t m_mask = 0;
};

/**
 * @brief One show's report as kept between requests: its layout (shared with the other shows on its screen), every
 * seat's state as of the last pass, the sales its booked seats belong to, and the document written from them.
 */
class OccupancyReports::Show
{
public:
    /** @brief Held while a request reads a pass and applies it: a pass is applied to the states it was read after. */
    QMutex mutex;

    bool loaded = false;
    store::OccupancyStamp stamp;
    qint64 snapshotXmin = 0;
    QByteArray json;

    // Guarded by OccupancyReports::m_mutex.
    quint64 lastUse = 0;
    qsizetype countedBytes = 0;
    Layout *countedLayout = nullptr; ///< the kept layout whose bytes countedBytes leaves out; nullptr: none left out

    /** @brief Every seat of @p layout available, no sales. */
    void load(std::shared_ptr<Layout> layout)
    {
        m_layout = std::move(layout);
        m_seats = QList<Seat>(m_layout->seats.seatIds.size());
        m_sales.clear();
        m_ranksStale = true;
        loaded = true;
    }

    const std::shared_ptr<Layout> &layout() const { return m_layout; }

    void apply(const SeatRow &row)
    {
        // A seat outside the layout is in no report (the reference joins the show's seats with its layout's).
        const qsizetype found = m_layout->indexOf(row.seatId);
        if (found < 0)
            return;
        Seat &seat = m_seats[found];
        if (seat.status == SeatRow::Status::Booked) {
            const auto sale = m_sales.find(seat.bookingId);
            if (sale != m_sales.end() && --sale->seats == 0) {
                m_sales.erase(sale);
                m_ranksStale = true;
            }
        }
        seat = Seat{row.status, row.house, row.holdExpiresUs, {}};
        if (row.status == SeatRow::Status::Booked) {
            seat.bookingId = row.bookingId;
            Sale &sale = m_sales[row.bookingId];
            if (sale.seats++ == 0) {
                sale.known = row.saleKnown;
                sale.soldUs = row.soldUs;
                sale.soldAt = row.soldAt;
                m_ranksStale = true;
            }
        }
    }

    /** @brief The document as ReportRepository::occupancy() writes it, with holds expired at @p nowUs free. */
    QByteArray write(qint64 showId, qint64 nowUs)
    {
        if (m_ranksStale)
            rerank();
        const store::OccupancyLayout &layout = m_layout->seats;
        struct Counts {
            qint64 capacity = 0, sold = 0, held = 0, house = 0, free = 0;
        };
        QList<Counts> tiers(layout.tiers.size());
        Counts total;
        for (qsizetype i = 0; i < m_seats.size(); ++i) {
            Counts &tier = tiers[layout.seatTiers[i]];
            ++tier.capacity;
            switch (state(m_seats[i], nowUs)) {
            case State::Sold: ++tier.sold; break;
            case State::Held: ++tier.held; break;
            case State::House: ++tier.house; break;
            case State::Free: ++tier.free; break;
            }
        }
        for (const Counts &tier : std::as_const(tiers)) {
            total.capacity += tier.capacity;
            total.sold += tier.sold;
            total.held += tier.held;
            total.house += tier.house;
            total.free += tier.free;
        }

        // Written into one buffer sized for the longest the document can be (every seat sold, at the longest sale
        // time and tier): ten QByteArray::append()s per seat cost more than the copying itself.
        qsizetype longestTier = 0;
        for (const QByteArray &tier : layout.tiers)
            longestTier = std::max(longestTier, tier.size());
        qsizetype longestSoldAt = 0;
        for (const Sale &sale : std::as_const(m_sales))
            longestSoldAt = std::max(longestSoldAt, sale.soldAt.size());
        constexpr qsizetype kNumber = 20; // digits of a qint64 and its sign
        const qsizetype perSeat = std::size(", \"sell_order\" : ") + kNumber + std::size(", \"sold_at\" : \"\"") + longestSoldAt
                                + std::size(", \"state\" : \"house\"") + std::size(", \"tier\" : }") + longestTier + std::size(", ");
        const qsizetype perTier = 6 * kNumber + std::size("{\"capacity\" : , \"free\" : , \"held\" : , \"house_held\" : , \"sold\" : , \"tier\" : }, ")
                                + longestTier;
        QByteArray out(layout.heads.size() + m_seats.size() * perSeat + tiers.size() * perTier + 256 + 7 * kNumber, Qt::Uninitialized);
        char *p = out.data();
        const auto put = [&p](QByteArrayView text) {
            std::memcpy(p, text.data(), size_t(text.size()));
            p += text.size();
        };
        const auto number = [&p](qint64 value) { p = std::to_chars(p, p + kNumber, value).ptr; };

        put("{\"capacity\" : ");
        number(total.capacity);
        put(", \"free\" : ");
        number(total.free);
        put(", \"held\" : ");
        number(total.held);
        put(", \"house_held\" : ");
        number(total.house);
        put(", \"seats\" : [");
        qsizetype headStart = 0;
        for (qsizetype i = 0; i < m_seats.size(); ++i) {
            const Seat &seat = m_seats[i];
            if (i > 0)
                put(", ");
            put(QByteArrayView(layout.heads.constData() + headStart, layout.headEnds[i] - headStart));
            headStart = layout.headEnds[i];
            const Sale *sale = nullptr;
            if (seat.status == SeatRow::Status::Booked) {
                const auto found = m_sales.constFind(seat.bookingId);
                if (found != m_sales.constEnd() && found->known)
                    sale = &*found;
            }
            if (sale) {
                put(", \"sell_order\" : ");
                number(sale->rank);
                put(", \"sold_at\" : \"");
                put(sale->soldAt);
                put("\"");
            } else {
                put(", \"sell_order\" : null, \"sold_at\" : null");
            }
            switch (state(seat, nowUs)) {
            case State::Sold: put(", \"state\" : \"sold\""); break;
            case State::Held: put(", \"state\" : \"held\""); break;
            case State::House: put(", \"state\" : \"house\""); break;
            case State::Free: put(", \"state\" : \"free\""); break;
            }
            put(", \"tier\" : ");
            put(layout.tiers[layout.seatTiers[i]]);
            put("}");
        }
        put("], \"show_id\" : ");
        number(showId);
        put(", \"sold\" : ");
        number(total.sold);
        put(", \"tiers\" : [");
        for (qsizetype t = 0; t < tiers.size(); ++t) {
            if (t > 0)
                put(", ");
            put("{\"capacity\" : ");
            number(tiers[t].capacity);
            put(", \"free\" : ");
            number(tiers[t].free);
            put(", \"held\" : ");
            number(tiers[t].held);
            put(", \"house_held\" : ");
            number(tiers[t].house);
            put(", \"sold\" : ");
            number(tiers[t].sold);
            put(", \"tier\" : ");
            put(layout.tiers[t]);
            put("}");
        }
        put("]}");
        out.truncate(p - out.constData());
        out.squeeze();
        return out;
    }

    /** @brief Memory this show keeps, roughly, without its layout's: for the bound on what all shows keep. */
    qsizetype bytes() const
    {
        constexpr qsizetype perSale = sizeof(Sale) + 96;
        return json.size() + m_seats.size() * qsizetype(sizeof(Seat)) + m_sales.size() * perSale;
    }

private:
    struct Seat {
        SeatRow::Status status = SeatRow::Status::Available;
        bool house = false;
        qint64 holdExpiresUs = 0;
        QByteArray bookingId;
    };
    /** @brief A booking with booked seats of this show. */
    struct Sale {
        bool known = false; ///< one of the show's bookings: it has a sale time and a place in the sell order
        qint64 soldUs = 0;
        QByteArray soldAt;
        qsizetype seats = 0;
        qint64 rank = 0; ///< dense rank by soldUs among the known sales, 1 = sold first
    };
    enum class State { Free, Held, House, Sold };

    static State state(const Seat &seat, qint64 nowUs)
    {
        switch (seat.status) {
        case SeatRow::Status::Booked:
            return State::Sold;
        case SeatRow::Status::Held:
            // A hold that expired is free whether or not anything has written the seat free yet.
            if (seat.holdExpiresUs > nowUs)
                return seat.house ? State::House : State::Held;
            return State::Free;
        case SeatRow::Status::Available:
            break;
        }
        return State::Free;
    }

    void rerank()
    {
        QList<qint64> times;
        times.reserve(m_sales.size());
        for (const Sale &sale : std::as_const(m_sales))
            if (sale.known)
                times.append(sale.soldUs);
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        for (Sale &sale : m_sales)
            if (sale.known)
                sale.rank = std::lower_bound(times.cbegin(), times.cend(), sale.soldUs) - times.cbegin() + 1;
        m_ranksStale = false;
    }

    std::shared_ptr<Layout> m_layout;
    QList<Seat> m_seats; ///< in report order, like m_layout->seats.seatIds
    QHash<QByteArray, Sale> m_sales;
    bool m_ranksStale = true;
};

OccupancyReports::OccupancyReports(const store::Database &database, qsizetype maxKeptBytes)
    : m_database(database)
    , m_maxKeptBytes(maxKeptBytes)
{
}

OccupancyReports::~OccupancyReports()
{
    stopWarming();
    stopLayoutReader();
}

void OccupancyReports::startLayoutReader()
{
    if (m_layoutReaderOn)
        return;
    m_layoutReader.setMaxThreadCount(1);
    m_layoutReader.setExpiryTimeout(-1); // its connection lives as long as the thread
    m_layoutReader.start([this] { prepareThisThread(); });
    m_layoutReaderOn = true;
}

void OccupancyReports::stopLayoutReader()
{
    if (!m_layoutReaderOn.exchange(false))
        return;
    m_layoutReader.start([this] { m_database.closeThreadConnection(); });
    m_layoutReader.waitForDone();
}

void OccupancyReports::prepareThisThread()
{
    store::ReportRepository reports(m_database);
    reports.prepareOccupancy(); // on failure the first report opens and prepares what it needs itself
}

quint64 OccupancyReports::computed() const
{
    QMutexLocker lock(&m_mutex);
    return m_computed;
}

quint64 OccupancyReports::loadedFromScratch() const
{
    QMutexLocker lock(&m_mutex);
    return m_loadedFromScratch;
}

quint64 OccupancyReports::layoutsLoaded() const
{
    QMutexLocker lock(&m_mutex);
    return m_layoutsLoaded;
}

quint64 OccupancyReports::layoutsFromCopy() const
{
    QMutexLocker lock(&m_mutex);
    return m_layoutsFromCopy;
}

qsizetype OccupancyReports::keptBytes() const
{
    QMutexLocker lock(&m_mutex);
    return m_keptBytes;
}

OccupancyReports::Outcome OccupancyReports::report(qint64 showId, QByteArray *json)
{
    return compute(showId, json, Room::ForgetOthers);
}

OccupancyReports::Outcome OccupancyReports::compute(qint64 showId, QByteArray *json, Room room)
{
    std::shared_ptr<Show> show;
    {
        QMutexLocker lock(&m_mutex);
        std::shared_ptr<Show> &kept = m_shows[showId];
        if (!kept)
            kept = std::make_shared<Show>();
        show = kept;
    }
    // An entry that holds nothing is not left behind (requests for unknown shows would pile them up).
    const auto forget = [&] {
        QMutexLocker lock(&m_mutex);
        const auto it = m_shows.find(showId);
        if (it != m_shows.end() && *it == show)
            forgetShow(it);
    };

    // Readers of one show take turns (each pass is applied to the states the previous one left, and a show is
    // never loaded twice at once: a request for a show being warmed waits for that load); readers of other shows
    // do not wait.
    QMutexLocker showLock(&show->mutex);
    store::ReportRepository reports(m_database);
    bool fromScratch = !show->loaded;
    std::optional<store::OccupancyPass> pass;
    if (!fromScratch) {
        pass = reports.occupancyPass(showId, show->snapshotXmin);
        if (!pass)
            return Outcome::Error; // the kept show is still right as of its last pass
        if (pass->stamp == show->stamp) {
            *json = show->json;
            showLock.unlock();
            QMutexLocker lock(&m_mutex);
            show->lastUse = ++m_uses;
            return Outcome::Ok;
        }
        if (pass->stamp.seats != show->stamp.seats || pass->snapshotXmin - show->snapshotXmin > kMaxTransactionsBetweenPasses)
            fromScratch = true;
    }
    qint64 nowUs = 0;
    if (fromScratch) {
        show->loaded = false;
        const Outcome loaded = load(*show, showId, reports, &nowUs);
        if (loaded != Outcome::Ok) {
            showLock.unlock();
            forget();
            if (loaded == Outcome::NotFound) {
                QMutexLocker lock(&m_mutex);
                ++m_computed;
            }
            return loaded;
        }
    } else {
        for (const store::OccupancySeatRow &row : std::as_const(pass->changed))
            show->apply(row);
        show->stamp = pass->stamp;
        show->snapshotXmin = pass->snapshotXmin;
        nowUs = pass->nowUs;
    }
    show->json = show->write(showId, nowUs);
    *json = show->json;
    const qsizetype bytes = show->bytes();
    const std::shared_ptr<Layout> layout = show->layout();
    showLock.unlock();
    return keep(showId, show, bytes, layout, fromScratch, room);
}

OccupancyReports::Outcome OccupancyReports::load(Show &show, qint64 showId, store::ReportRepository &reports, qint64 *nowUs)
{
    // The layout is read on the layout reader's thread meanwhile, when it is not kept yet: layoutOf() below then
    // waits for that read (one read per layout) or finds it done. The layout is another snapshot's: it never changes.
    if (m_layoutReaderOn) {
        const std::optional<qint64> layoutId = reports.occupancyLayoutIdOf(showId);
        if (layoutId && *layoutId > 0 && !layoutKept(*layoutId)) {
            m_layoutReader.start([this, id = *layoutId] {
                store::ReportRepository readerReports(m_database);
                layoutOf(id, readerReports);
            });
        }
    }
    // One statement: the held and booked seats with the stamp and snapshot xmin of the same snapshot, so that the
    // next pass finds everything written after it.
    std::optional<store::OccupancyStates> states = reports.occupancyStates(showId);
    if (!states)
        return Outcome::Error;
    if (states->stamp.seats == 0)
        return Outcome::NotFound;
    std::shared_ptr<Layout> layout = layoutOf(states->layoutId, reports);
    if (!layout)
        return Outcome::Error;
    if (layout->seats.seatIds.size() != states->stamp.seats || layout->seats.seatDigest != states->seatDigest) {
        // The show's seats are not its layout's (show_seats edited by hand): a layout of its own seats, not shared.
        std::optional<store::OccupancyLayout> own = reports.occupancyShowLayout(showId);
        if (!own)
            return Outcome::Error;
        if (own->seatIds.isEmpty())
            return Outcome::NotFound; // none of its seats is in the layout: the reference has no report either
        layout = std::make_shared<Layout>(0);
        layout->set(std::move(*own));
    }
    show.load(std::move(layout));
    for (const store::OccupancySeatRow &row : std::as_const(states->rows))
        show.apply(row);
    show.stamp = states->stamp;
    show.snapshotXmin = states->snapshotXmin;
    *nowUs = states->nowUs;
    return Outcome::Ok;
}

bool OccupancyReports::layoutKept(qint64 layoutId)
{
    std::shared_ptr<Layout> layout;
    {
        QMutexLocker lock(&m_mutex);
        layout = m_layouts.value(layoutId);
    }
    if (!layout)
        return false;
    // Being read right now counts as kept: layoutOf() waits for that read.
    if (!layout->mutex.tryLock())
        return true;
    const bool loaded = layout->loaded;
    layout->mutex.unlock();
    return loaded;
}

std::shared_ptr<OccupancyReports::Layout> OccupancyReports::layoutOf(qint64 layoutId, store::ReportRepository &reports)
{
    std::shared_ptr<Layout> layout;
    {
        QMutexLocker lock(&m_mutex);
        std::shared_ptr<Layout> &kept = m_layouts[layoutId];
        if (!kept)
            kept = std::make_shared<Layout>(layoutId);
        layout = kept;
    }
    QMutexLocker loading(&layout->mutex);
    if (layout->loaded)
        return layout;
    std::optional<store::OccupancyLayout> seats = reports.occupancyLayout(layoutId);
    QMutexLocker lock(&m_mutex);
    const auto it = m_layouts.find(layoutId);
    const bool kept = it != m_layouts.end() && *it == layout;
    if (!seats || seats->seatIds.isEmpty()) {
        if (kept)
            m_layouts.erase(it);
        // No seats: an empty layout, which no show's seats match (load() then reads the show's own).
        return seats ? std::make_shared<Layout>(0) : nullptr;
    }
    if (seats->source == store::OccupancyLayout::Source::Copy)
        ++m_layoutsFromCopy;
    layout->set(std::move(*seats));
    ++m_layoutsLoaded;
    if (kept) {
        layout->lastUse = ++m_uses;
        layout->countedBytes = layout->bytes;
        m_keptBytes += layout->bytes;
    }
    return layout;
}

OccupancyReports::Outcome OccupancyReports::keep(qint64 showId, const std::shared_ptr<Show> &show, qsizetype showBytes,
                                                 const std::shared_ptr<Layout> &layout, bool fromScratch, Room room)
{
    QMutexLocker lock(&m_mutex);
    ++m_computed;
    if (fromScratch)
        ++m_loadedFromScratch;
    const auto it = m_shows.find(showId);
    if (it == m_shows.end() || *it != show)
        return Outcome::Ok; // forgotten meanwhile (another show needed the room): not counted any more
    show->lastUse = ++m_uses;
    // A layout kept in m_layouts is counted there, once for all its shows; one that is not (a show's own, or one
    // forgotten meanwhile) is counted with the show.
    Layout *const kept = layout->id != 0 && m_layouts.value(layout->id) == layout ? layout.get() : nullptr;
    if (show->countedLayout != kept) {
        if (show->countedLayout)
            --show->countedLayout->keptShows;
        if (kept)
            ++kept->keptShows;
        show->countedLayout = kept;
    }
    if (kept)
        kept->lastUse = m_uses;
    const qsizetype bytes = showBytes + (kept ? 0 : layout->bytes);
    m_keptBytes += bytes - show->countedBytes;
    show->countedBytes = bytes;
    if (room == Room::ForgetOthers)
        makeRoom(showId);
    if (m_keptBytes > m_maxKeptBytes) {
        // Warming never makes room; a request's show does not fit even alone.
        forgetShow(m_shows.find(showId));
        if (kept && kept->keptShows == 0 && m_keptBytes > m_maxKeptBytes) {
            m_keptBytes -= kept->countedBytes;
            m_layouts.remove(kept->id);
        }
        return room == Room::OnlyIfFree ? Outcome::NoRoom : Outcome::Ok;
    }
    return Outcome::Ok;
}

void OccupancyReports::forgetShow(QHash<qint64, std::shared_ptr<Show>>::iterator show)
{
    m_keptBytes -= (*show)->countedBytes;
    (*show)->countedBytes = 0;
    if ((*show)->countedLayout)
        --(*show)->countedLayout->keptShows;
    (*show)->countedLayout = nullptr;
    m_shows.erase(show);
}

void OccupancyReports::makeRoom(qint64 keepShowId)
{
    // The least recently used first: other shows, and layouts that no kept show needs (the show being kept needs
    // its own). A layout still being loaded counts nothing yet and is left alone.
    while (m_keptBytes > m_maxKeptBytes) {
        auto oldestShow = m_shows.end();
        for (auto other = m_shows.begin(); other != m_shows.end(); ++other)
            if (other.key() != keepShowId && (oldestShow == m_shows.end() || (*other)->lastUse < (*oldestShow)->lastUse))
                oldestShow = other;
        auto oldestLayout = m_layouts.end();
        for (auto layout = m_layouts.begin(); layout != m_layouts.end(); ++layout)
            if ((*layout)->keptShows == 0 && (*layout)->countedBytes > 0
                && (oldestLayout == m_layouts.end() || (*layout)->lastUse < (*oldestLayout)->lastUse))
                oldestLayout = layout;
        if (oldestLayout != m_layouts.end() && (oldestShow == m_shows.end() || (*oldestLayout)->lastUse < (*oldestShow)->lastUse)) {
            m_keptBytes -= (*oldestLayout)->countedBytes;
            m_layouts.erase(oldestLayout);
        } else if (oldestShow != m_shows.end()) {
            forgetShow(oldestShow);
        } else {
            break;
        }
    }
}

void OccupancyReports::startWarming(int maxShows)
{
    if (maxShows <= 0 || m_warming)
        return;
    m_warming.reset(QThread::create([this, maxShows] { warm(maxShows); }));
    m_warming->setObjectName(QStringLiteral("occupancy-warm"));
    m_warming->start();
}

void OccupancyReports::stopWarming()
{
    if (!m_warming)
        return;
    m_stopWarming = true;
    m_warming->wait();
    m_warming.reset();
}

void OccupancyReports::warm(int maxShows)
{
    store::ReportRepository reports(m_database);
    const std::optional<QList<qint64>> shows = reports.showsOnSale(maxShows);
    int warmed = 0;
    if (shows) {
        for (const qint64 showId : *shows) {
            if (m_stopWarming)
                break;
            QByteArray json;
            const Outcome outcome = compute(showId, &json, Room::OnlyIfFree);
            if (outcome == Outcome::NoRoom)
                break; // the bound is full: the rest is loaded by requests, which may forget older shows
            if (outcome == Outcome::Ok)
                ++warmed;
        }
    }
    {
        QMutexLocker lock(&m_mutex);
        m_warmed = warmed;
        m_warmingDone = true;
    }
    m_database.closeThreadConnection();
}

bool OccupancyReports::warmingDone() const
{
    QMutexLocker lock(&m_mutex);
    return m_warmingDone;
}

int OccupancyReports::warmedShows() const
{
    QMutexLocker lock(&m_mutex);
    return m_warmed;
}

} // namespace marquee
