// SPDX-License-Identifier: AGPL-3.0-or-later
#include "occupancyreports.h"

#include <algorithm>
#include <charconv>

namespace marquee {

namespace {
using SeatRow = store::OccupancySeatRow;

// A pass must come back within 2^31 transactions of the previous one (see kOccupancyPass); past a quarter of that
// the show is read from scratch instead.
constexpr qint64 kMaxTransactionsBetweenPasses = qint64(1) << 29;

void appendNumber(QByteArray &out, qint64 value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end - digits);
}
} // namespace

/**
 * @brief One show's report as kept between requests: its layout, every seat's state as of the last pass, the
 * sales its booked seats belong to, and the document written from them.
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

    void load(store::OccupancyLayout layout)
    {
        m_layout = std::move(layout);
        m_seats = QList<Seat>(m_layout.seatIds.size());
        m_indexOf.clear();
        m_indexOf.reserve(m_layout.seatIds.size());
        for (qsizetype i = 0; i < m_layout.seatIds.size(); ++i)
            m_indexOf.insert(m_layout.seatIds[i], i);
        m_sales.clear();
        m_ranksStale = true;
        loaded = true;
    }

    void apply(const SeatRow &row)
    {
        // A seat outside the layout is in no report (shows copy their layout's seats, so there is none).
        const auto found = m_indexOf.constFind(row.seatId);
        if (found == m_indexOf.constEnd())
            return;
        Seat &seat = m_seats[*found];
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
        struct Counts {
            qint64 capacity = 0, sold = 0, held = 0, house = 0, free = 0;
        };
        QList<Counts> tiers(m_layout.tiers.size());
        Counts total;
        for (qsizetype i = 0; i < m_seats.size(); ++i) {
            Counts &tier = tiers[m_layout.seatTiers[i]];
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

        QByteArray out;
        out.reserve(json.size() + 4096);
        out.append("{\"capacity\" : ");
        appendNumber(out, total.capacity);
        out.append(", \"free\" : ");
        appendNumber(out, total.free);
        out.append(", \"held\" : ");
        appendNumber(out, total.held);
        out.append(", \"house_held\" : ");
        appendNumber(out, total.house);
        out.append(", \"seats\" : [");
        qsizetype headStart = 0;
        for (qsizetype i = 0; i < m_seats.size(); ++i) {
            const Seat &seat = m_seats[i];
            if (i > 0)
                out.append(", ");
            out.append(m_layout.heads.constData() + headStart, m_layout.headEnds[i] - headStart);
            headStart = m_layout.headEnds[i];
            const Sale *sale = nullptr;
            if (seat.status == SeatRow::Status::Booked) {
                const auto found = m_sales.constFind(seat.bookingId);
                if (found != m_sales.constEnd() && found->known)
                    sale = &*found;
            }
            out.append(", \"sell_order\" : ");
            if (sale)
                appendNumber(out, sale->rank);
            else
                out.append("null");
            out.append(", \"sold_at\" : ");
            if (sale)
                out.append('"').append(sale->soldAt).append('"');
            else
                out.append("null");
            out.append(", \"state\" : ");
            switch (state(seat, nowUs)) {
            case State::Sold: out.append("\"sold\""); break;
            case State::Held: out.append("\"held\""); break;
            case State::House: out.append("\"house\""); break;
            case State::Free: out.append("\"free\""); break;
            }
            out.append(", \"tier\" : ").append(m_layout.tiers[m_layout.seatTiers[i]]).append('}');
        }
        out.append("], \"show_id\" : ");
        appendNumber(out, showId);
        out.append(", \"sold\" : ");
        appendNumber(out, total.sold);
        out.append(", \"tiers\" : [");
        for (qsizetype t = 0; t < tiers.size(); ++t) {
            if (t > 0)
                out.append(", ");
            out.append("{\"capacity\" : ");
            appendNumber(out, tiers[t].capacity);
            out.append(", \"free\" : ");
            appendNumber(out, tiers[t].free);
            out.append(", \"held\" : ");
            appendNumber(out, tiers[t].held);
            out.append(", \"house_held\" : ");
            appendNumber(out, tiers[t].house);
            out.append(", \"sold\" : ");
            appendNumber(out, tiers[t].sold);
            out.append(", \"tier\" : ").append(m_layout.tiers[t]).append('}');
        }
        out.append("]}");
        return out;
    }

    /** @brief Memory this show keeps, roughly: for the bound on what all shows keep. */
    qsizetype bytes() const
    {
        constexpr qsizetype perSeat = sizeof(Seat) + sizeof(qsizetype) + sizeof(int) + 64; // + id, hash node
        constexpr qsizetype perSale = sizeof(Sale) + 96;
        return json.size() + m_layout.heads.size() + m_seats.size() * perSeat + m_sales.size() * perSale;
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

    store::OccupancyLayout m_layout;
    QHash<QByteArray, qsizetype> m_indexOf;
    QList<Seat> m_seats; ///< in report order, like m_layout.seatIds
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
        if (it != m_shows.end() && *it == show) {
            m_keptBytes -= show->countedBytes;
            m_shows.erase(it);
        }
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
        // One statement: every seat with the stamp and snapshot xmin of the same snapshot, so that the next pass
        // finds everything written after it.
        show->loaded = false;
        std::optional<store::OccupancySeats> seats = reports.occupancySeats(showId);
        if (!seats) {
            showLock.unlock();
            forget();
            return Outcome::Error;
        }
        if (seats->rows.isEmpty()) {
            showLock.unlock();
            forget();
            QMutexLocker lock(&m_mutex);
            ++m_computed;
            return Outcome::NotFound;
        }
        show->load(std::move(seats->layout));
        for (const store::OccupancySeatRow &row : std::as_const(seats->rows))
            show->apply(row);
        show->stamp = seats->stamp;
        show->snapshotXmin = seats->snapshotXmin;
        nowUs = seats->nowUs;
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
    showLock.unlock();

    QMutexLocker lock(&m_mutex);
    ++m_computed;
    if (fromScratch)
        ++m_loadedFromScratch;
    const auto it = m_shows.find(showId);
    if (it == m_shows.end() || *it != show)
        return Outcome::Ok; // forgotten meanwhile (another show needed the room): not counted any more
    show->lastUse = ++m_uses;
    m_keptBytes += bytes - show->countedBytes;
    show->countedBytes = bytes;
    if (bytes > m_maxKeptBytes || (room == Room::OnlyIfFree && m_keptBytes > m_maxKeptBytes)) {
        m_keptBytes -= bytes;
        m_shows.erase(it);
        return room == Room::OnlyIfFree ? Outcome::NoRoom : Outcome::Ok;
    }
    // Over the bound: forget the least recently used other shows.
    while (m_keptBytes > m_maxKeptBytes && m_shows.size() > 1) {
        auto oldest = m_shows.end();
        for (auto other = m_shows.begin(); other != m_shows.end(); ++other)
            if (other.key() != showId && (oldest == m_shows.end() || (*other)->lastUse < (*oldest)->lastUse))
                oldest = other;
        m_keptBytes -= (*oldest)->countedBytes;
        m_shows.erase(oldest);
    }
    return Outcome::Ok;
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
