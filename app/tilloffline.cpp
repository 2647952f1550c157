// SPDX-License-Identifier: AGPL-3.0-or-later
#include "tilloffline.h"
#include "applogging.h"
#include "jsontablemodel.h"
#include "seatmapmodel.h"
#include "staffsession.h"
#include "tillsupport.h"
#include "core/money.h"

#include "sync/deviceticketsigner.h"

#include <QDir>
#include <QJsonArray>
#include <QSet>
#include <QStandardPaths>
#include <algorithm>

namespace marquee::app {

namespace {
QString joined(QStringList seats)
{
    std::sort(seats.begin(), seats.end());
    return seats.join(QStringLiteral(", "));
}
} // namespace

TillOffline::TillOffline(const AppConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
{
    if (config.token.isEmpty() || config.leaseWindowMinutes <= 0)
        return; // no device of its own, or leases turned off: the till sells online only
    QString path = config.journalPath;
    if (path.isEmpty()) {
        const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir().mkpath(dir);
        path = dir + QStringLiteral("/till.db");
    }
    if (!m_store.open(path)) {
        qCWarning(lcTill) << "the till's journal cannot be opened, so it sells online only:" << m_store.errorString();
        return;
    }
    m_enabled = true;
    m_api = std::make_unique<sync::ApiClient>(config.server);
    m_api->setToken(config.token);
    m_api->setTimeoutMs(config.requestTimeoutMs);
    m_engine = std::make_unique<sync::SyncEngine>(m_store, *m_api);
    sync::LeaseKeeper::Options keeperOptions;
    keeperOptions.windowSeconds = config.leaseWindowMinutes * 60;
    m_keeper = std::make_unique<sync::LeaseKeeper>(m_store, *m_api, keeperOptions);
    m_sales = std::make_unique<sync::OfflineSales>(m_store);
    m_signer = std::make_unique<sync::DeviceTicketSigner>(m_store);
    if (m_signer->open()) {
        // The device key goes with every lease request; the server's delegation in the answer lets it sign.
        m_keeper->setRequestDecorator([this](QJsonObject &body) { body.insert(QStringLiteral("device_public_key"), m_signer->publicKey()); });
        m_keeper->setLeaseGranted([this](const QJsonObject &) { followDelegations(); });
        connect(m_engine.get(), &sync::SyncEngine::feedsCaughtUp, this, &TillOffline::followDelegations);
        m_sales->setTicketSigner(sync::OfflineSales::deviceSigner(*m_signer));
    } else {
        qCWarning(lcTill) << "no device key, so no offline sales:" << m_signer->errorString();
    }
    connect(m_engine.get(), &sync::SyncEngine::onlineChanged, this, &TillOffline::setOnline);
    connect(m_keeper.get(), &sync::LeaseKeeper::leasesChanged, this, [this] {
        followDelegations();
        cacheLeasedShows();
        applyOverlay();
        Q_EMIT stateChanged();
    });
    connect(m_sales.get(), &sync::OfflineSales::changed, this, &TillOffline::stateChanged);
    connect(m_sales.get(), &sync::OfflineSales::saleAnswered, this, [this] {
        m_keeper->refresh(); // a lease whose last sale is booked may go back now
    });
    // Online until the probe says otherwise: a sale online needs the server's yes anyway, so a wrong guess sells
    // nothing; offline mode starts only once the server is known to be unreachable.
    m_engine->start();
}

TillOffline::~TillOffline() = default;

void TillOffline::setOnline(bool online)
{
    const bool wasOffline = offline();
    m_offline = !online;
    m_keeper->setOnline(online);
    m_sales->setOnline(online);
    if (m_session && m_session->api())
        m_session->api()->setOffline(!online);
    if (online)
        refreshUploader();
    if (wasOffline != offline()) {
        qCInfo(lcTill) << (online ? "the server is back: online sales" : "the server cannot be reached: offline sales of leased seats only");
        Q_EMIT offlineChanged();
    }
    applyOverlay();
    Q_EMIT stateChanged();
}

void TillOffline::watchShows(JsonTableModel *shows)
{
    if (!m_enabled || !shows)
        return;
    auto update = [this, shows] {
        QList<QJsonObject> list;
        for (int i = 0; i < shows->count(); ++i)
            list.append(QJsonObject::fromVariantMap(shows->rowAt(i)));
        m_keeper->setShows(list);
    };
    connect(shows, &QAbstractItemModel::modelReset, this, update);
    update();
}

void TillOffline::attachSeatMap(SeatMapModel *map)
{
    m_map = map;
    if (!m_enabled || !map)
        return;
    // Every copy the map takes (a load, a poll, the cache) is narrowed again while offline.
    connect(map, &SeatMapModel::layoutReset, this, &TillOffline::applyOverlay);
    connect(map, &SeatMapModel::statusesChanged, this, &TillOffline::applyOverlay);
    connect(map, &SeatMapModel::layoutReset, this, &TillOffline::stateChanged);
}

void TillOffline::attachSession(StaffSession *session)
{
    m_session = session;
    if (!m_enabled || !session)
        return;
    auto adopt = [this] {
        if (m_session->api()) {
            // The seat maps the cashier opens are kept for offline: the layout and the last availability.
            m_session->api()->setCache(&m_store);
            m_session->api()->setOffline(offline());
        }
        refreshUploader();
    };
    connect(session, &StaffSession::apiChanged, this, adopt);
    connect(session, &StaffSession::signedInChanged, this, adopt);
    adopt();
}

void TillOffline::refreshUploader()
{
    if (!m_session || !m_session->signedIn() || m_session->token().isEmpty()) {
        m_sales->setUploader(nullptr, {});
        m_uploader.reset();
        Q_EMIT stateChanged();
        return;
    }
    if (!m_uploader)
        m_uploader = std::make_unique<sync::ApiClient>(m_config.server);
    m_uploader->setToken(m_session->token());
    m_uploader->setTimeoutMs(m_config.requestTimeoutMs);
    m_sales->setUploader(m_uploader.get(), m_session->name());
    Q_EMIT stateChanged();
}

void TillOffline::followDelegations()
{
    if (!m_signer || !m_signer->isOpen())
        return;
    bool askForKeys = false;
    for (const QString &leaseId : m_signer->followLeases(m_store.leases())) {
        // Signed by a venue key younger than the last keys feed: the feeds once more (then this runs again).
        if (!m_keysAskedFor.contains(leaseId)) {
            m_keysAskedFor.insert(leaseId);
            askForKeys = true;
        }
    }
    if (askForKeys)
        m_engine->refreshFeeds();
}

void TillOffline::cacheLeasedShows()
{
    if (offline())
        return;
    // A show leased but never opened on this till is cached now, so that its seats can be sold offline.
    QList<qint64> shows;
    for (const sync::StoredLease &lease : m_store.leases())
        if (lease.state != QLatin1String("returned") && !shows.contains(lease.showId))
            shows.append(lease.showId);
    for (const qint64 showId : shows) {
        for (const QString &path : {QStringLiteral("/api/v1/shows/%1/layout").arg(showId), QStringLiteral("/api/v1/shows/%1/availability").arg(showId)}) {
            if (m_store.cached(QStringLiteral("GET ") + path))
                continue;
            m_api->request(QStringLiteral("GET"), path, {}, {}, [this, path](const sync::ApiResult &result) {
                if (result.ok() && result.status == 200)
                    m_store.putCache(QStringLiteral("GET ") + path, result.body);
            });
        }
    }
}

void TillOffline::applyOverlay()
{
    if (!offline() || !m_map || m_map->showId() == 0 || m_applying || m_map->seats().empty())
        return;
    const qint64 showId = m_map->showId();
    const QHash<QString, QString> sellable = m_keeper->sellableSeats(showId);
    QSet<QString> soldHere;
    for (const sync::StoredLease &lease : m_store.leases(showId))
        for (const QString &seat : m_store.seatsSoldOffline(lease.leaseId))
            soldHere.insert(seat);
    QJsonArray changes;
    for (const MapSeat &seat : m_map->seats()) {
        SeatStatus wanted = seat.status;
        if (sellable.contains(seat.seatId))
            wanted = SeatStatus::Available;
        else if (soldHere.contains(seat.seatId))
            wanted = SeatStatus::Booked;
        else if (seat.status == SeatStatus::Available)
            wanted = SeatStatus::Leased; // not leased to this till: greyed like a seat held elsewhere
        if (wanted != seat.status)
            changes.append(QJsonObject{{QStringLiteral("seat_id"), seat.seatId}, {QStringLiteral("status"), toString(wanted)}});
    }
    if (changes.isEmpty())
        return;
    m_applying = true;
    m_map->applyStatusChanges(changes);
    m_applying = false;
}

QString TillOffline::seatRefusal(const QString &seatId) const
{
    if (!offline() || !m_map)
        return {};
    const QHash<QString, QString> sellable = m_keeper->sellableSeats(m_map->showId());
    if (sellable.contains(seatId))
        return {};
    return tr("Seat %1 is not leased to this till: offline, only its leased seats can be sold.").arg(seatId);
}

QString TillOffline::leaseFor(qint64 showId, const QStringList &seatIds, QString *why) const
{
    const QHash<QString, QString> sellable = m_keeper->sellableSeats(showId);
    QStringList notLeased;
    QSet<QString> leases;
    for (const QString &seat : seatIds) {
        if (!sellable.contains(seat))
            notLeased.append(seat);
        else
            leases.insert(sellable.value(seat));
    }
    if (!notLeased.isEmpty()) {
        *why = tr("%1 not leased to this till: offline, only its leased seats can be sold.").arg(joined(notLeased));
        return {};
    }
    if (leases.size() != 1) {
        *why = tr("These seats belong to two leases of this till: sell them in two sales.");
        return {};
    }
    return *leases.begin();
}

TillOffline::Sale TillOffline::sellCash(const QJsonObject &show, const QStringList &seatIds, qint64 tenderedMinor, const QString &staff,
                                       const SeatMapModel *map, const QString &paidWith)
{
    Sale sale;
    const qint64 showId = show.value(QStringLiteral("show_id")).toInteger();
    QString why;
    const QString leaseId = leaseFor(showId, seatIds, &why);
    if (leaseId.isEmpty()) {
        sale.message = why;
        return sale;
    }
    // The price of each seat's tier as the till cached it while online (the map was built from that copy).
    qint64 amount = 0;
    for (const QString &seat : seatIds) {
        const int index = map ? map->indexOf(seat) : -1;
        if (index < 0 || map->showId() != showId || map->seats()[size_t(index)].priceMinor <= 0) {
            sale.message = tr("The price of seat %1 is not known on this till, so it cannot be sold offline.").arg(seat);
            return sale;
        }
        amount += map->seats()[size_t(index)].priceMinor;
    }
    const QString currency = map->currency().isEmpty() ? show.value(QStringLiteral("currency")).toString() : map->currency();
    sync::OfflineSales::Sale request;
    request.leaseId = leaseId;
    request.showId = showId;
    request.seatIds = seatIds;
    request.amountMinor = amount;
    request.currency = currency;
    request.tenderedMinor = tenderedMinor;
    request.staff = staff;
    const sync::OfflineSales::Journaled journaled = m_sales->journal(request, [&](const sync::OfflineSaleRecord &record) {
        QJsonArray tickets;
        for (const QJsonValue &ticket : record.body.value(QStringLiteral("tickets")).toArray())
            tickets.append(QJsonObject{{QStringLiteral("ticket_id"), ticket[QStringLiteral("ticket_id")]},
                                       {QStringLiteral("seat_id"), ticket[QStringLiteral("seat_id")]},
                                       {QStringLiteral("qr"), ticket[QStringLiteral("code")]}});
        const QJsonObject booking{{QStringLiteral("booking_ref"), QStringLiteral("OFFLINE-%1").arg(record.deviceSeq)},
                                  {QStringLiteral("amount_minor"), record.amountMinor},
                                  {QStringLiteral("currency"), record.currency},
                                  {QStringLiteral("tickets"), tickets}};
        BookingPrint print = bookingPrintFor(show, booking, map, paidWith);
        print.showId = showId;
        return toJson(print);
    });
    using Refusal = sync::OfflineSales::Refusal;
    switch (journaled.refusal) {
    case Refusal::None:
        break;
    case Refusal::InsufficientTender:
        sale.message = tr("%1 is less than the total %2.").arg(formatMoney(tenderedMinor, currency), formatMoney(amount, currency));
        return sale;
    case Refusal::CannotSign:
        sale.message = tr("This till cannot sign tickets offline (%1), so nothing was sold. Sell when the server is back.").arg(journaled.detail);
        return sale;
    case Refusal::AlreadySold:
        sale.message = tr("Seat %1 was already sold offline on this till.").arg(journaled.detail);
        return sale;
    case Refusal::StoreFailed:
        sale.message = tr("The sale could not be written to this till's journal (%1), so nothing was sold.").arg(journaled.detail);
        return sale;
    }
    sale.ok = true;
    sale.deviceSeq = journaled.sale.deviceSeq;
    sale.amountMinor = amount;
    sale.currency = currency;
    sale.print = bookingPrintFromJson(journaled.sale.printData);
    // Journaled and fsynced: only now do the tickets print (the drawer opens with them).
    sale.printed = m_printer && m_printer(sale.print, true);
    m_sales->markPrinted(sale.deviceSeq, sale.printed, sale.printed ? QString() : tr("the printer did not print"));
    applyOverlay();
    Q_EMIT stateChanged();
    return sale;
}

int TillOffline::printUnprinted()
{
    if (!m_enabled || !m_printer)
        return 0;
    int printed = 0;
    for (const sync::OfflineSaleRecord &sale : m_sales->unprinted()) {
        // Journaled before a crash and never printed: the customer paid for these tickets; the same codes print now.
        const bool ok = m_printer(bookingPrintFromJson(sale.printData), false);
        m_sales->markPrinted(sale.deviceSeq, ok, ok ? QString() : tr("the printer did not print"));
        qCInfo(lcTill) << "offline sale" << sale.deviceSeq << (ok ? "printed after a restart" : "still not printed after a restart");
        printed += ok;
    }
    return printed;
}

bool TillOffline::mayCloseShift(const QString &staff, QString *why) const
{
    if (!m_enabled)
        return true;
    const int waiting = m_sales->waitingCount(staff);
    if (waiting == 0)
        return true;
    *why = tr("%n offline sale(s) of yours are not reported to the server yet; the Z-report would miss them. Close the shift once they are.",
              nullptr, waiting);
    return false;
}

QString TillOffline::bannerText() const
{
    if (!m_enabled)
        return {};
    const int waiting = m_sales->waitingCount();
    const int refused = int(m_sales->refused().size());
    QStringList parts;
    if (offline()) {
        parts.append(tr("Offline: the server cannot be reached. Only the seats leased to this till can be sold, for cash."));
        if (waiting > 0)
            parts.append(tr("%n offline sale(s) will be reported when the server is back.", nullptr, waiting));
    } else if (waiting > 0) {
        parts.append(tr("Reporting %n offline sale(s) to the server…", nullptr, waiting));
    }
    if (refused > 0)
        parts.append(tr("%n offline sale(s) were refused by the server: a manager must settle them (Shift screen).", nullptr, refused));
    return parts.join(QLatin1Char(' '));
}

bool TillOffline::bannerIsWarning() const
{
    return offline() || (m_enabled && !m_sales->refused().isEmpty());
}

int TillOffline::waitingCount() const
{
    return m_enabled ? m_sales->waitingCount() : 0;
}

QVariantList TillOffline::refusals() const
{
    QVariantList list;
    if (!m_enabled)
        return list;
    for (const sync::OfflineSaleRecord &sale : m_sales->refused())
        list.append(QVariantMap{{QStringLiteral("device_seq"), sale.deviceSeq},
                                {QStringLiteral("seats"), joined(sale.seatIds)},
                                {QStringLiteral("amount"), formatMoney(sale.amountMinor, sale.currency)},
                                {QStringLiteral("reason"), sale.lastError}});
    return list;
}

QString TillOffline::leasedSeatsText() const
{
    if (!m_enabled || !m_map || m_map->showId() == 0)
        return {};
    return joined(m_keeper->sellableSeats(m_map->showId()).keys());
}

int TillOffline::leasedSeatCount() const
{
    if (!m_enabled || !m_map || m_map->showId() == 0)
        return 0;
    return int(m_keeper->sellableSeats(m_map->showId()).size());
}

} // namespace marquee::app
