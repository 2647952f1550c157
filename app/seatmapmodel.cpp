// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatmapmodel.h"
#include "applogging.h"
#include "core/money.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>

namespace marquee::app {

namespace {
// Distinct in hue and in lightness, so tiers stay apart for most colour-vision deficiencies too.
const QColor kTierPalette[] = {QColor(0xE8B730), QColor(0x3FB6A8), QColor(0x7C8CF8), QColor(0xE5717A), QColor(0x8FC25A), QColor(0xC77DDB)};
} // namespace

SeatMapModel::SeatMapModel(QObject *parent)
    : QAbstractListModel(parent)
{
    connect(&m_poll, &QTimer::timeout, this, [this] { refresh(); });
    connect(&m_live, &LiveSeatFeed::snapshotReceived, this, [this](const QString &letters) {
        if (!applyStatusLetters(letters))
            refresh(); // the layout changed under us: fetch it again
    });
    connect(&m_live, &LiveSeatFeed::deltaReceived, this, [this](const QJsonArray &changes) { applyStatusChanges(changes); });
    connect(&m_live, &LiveSeatFeed::liveChanged, this, [this](bool live) {
        // Pushed or polled, never both: polling resumes (at once, to catch up) whenever the socket is down.
        if (live) {
            m_poll.stop();
        } else if (m_showId != 0 && m_pollMs > 0) {
            refresh();
            m_poll.start(m_pollMs);
        }
        Q_EMIT liveChanged();
    });
}

void SeatMapModel::setLiveSource(const QUrl &server, const QString &token)
{
    m_liveServer = server;
    m_liveToken = token;
}

bool SeatMapModel::applyStatusLetters(const QString &letters)
{
    if (m_seats.empty() || size_t(letters.size()) != m_seats.size())
        return false;
    int available = 0;
    for (size_t i = 0; i < m_seats.size(); ++i) {
        // A letter this app does not know (a newer server's) is shown as taken: never offered for sale.
        const SeatStatus status = seatStatusFromCode(char(letters[qsizetype(i)].toLatin1())).value_or(SeatStatus::Held);
        m_seats[i].status = status;
        available += status == SeatStatus::Available;
    }
    m_availableCount = available;
    Q_EMIT statusesChanged();
    Q_EMIT dataChanged(index(0), index(int(m_seats.size()) - 1), {StatusRole});
    dropLostSelection();
    return true;
}

int SeatMapModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_seats.size());
}

QVariant SeatMapModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_seats.size()))
        return {};
    const MapSeat &seat = m_seats[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case SeatIdRole:
        return seat.seatId;
    case RowRole:
        return seat.row;
    case NumberRole:
        return seat.number;
    case TierRole:
        return seat.tier;
    case StatusRole:
        return toString(seat.status);
    case PriceRole:
        return formatMoney(seat.priceMinor, m_currency);
    case WheelchairRole:
        return seat.wheelchair;
    }
    return {};
}

QHash<int, QByteArray> SeatMapModel::roleNames() const
{
    return {{SeatIdRole, "seatId"}, {RowRole, "row"},       {NumberRole, "number"},         {TierRole, "tier"},
            {StatusRole, "status"}, {PriceRole, "price"}, {WheelchairRole, "wheelchair"}};
}

QColor SeatMapModel::tierColor(int tier) const
{
    return kTierPalette[size_t(tier) % std::size(kTierPalette)];
}

QVariantList SeatMapModel::tiers() const
{
    QVariantList list;
    for (int i = 0; i < m_tierNames.size(); ++i)
        list.append(QVariantMap{{QStringLiteral("name"), m_tierNames[i]},
                                {QStringLiteral("price"), formatMoney(m_tierPrices[i], m_currency)},
                                {QStringLiteral("color"), tierColor(i)}});
    return list;
}

void SeatMapModel::setLoading(bool loading)
{
    if (m_loading != loading) {
        m_loading = loading;
        Q_EMIT loadingChanged();
    }
}

void SeatMapModel::setErrorString(const QString &error)
{
    if (m_errorString != error) {
        m_errorString = error;
        Q_EMIT errorStringChanged();
    }
}

void SeatMapModel::load(KioskApi *api, qint64 showId, int pollMs)
{
    clear();
    m_api = api;
    m_showId = showId;
    m_pollMs = pollMs;
    setLoading(true);
    // The live feed starts once the layout is here: its snapshot is letters in the layout's seat order.
    refresh([this, showId](bool ok) {
        if (ok && showId == m_showId && !m_liveServer.isEmpty() && !m_api->offline())
            m_live.start(m_liveServer, m_liveToken, showId);
    });
    if (pollMs > 0)
        m_poll.start(pollMs);
}

void SeatMapModel::clear()
{
    m_poll.stop();
    m_live.stop();
    m_showId = 0;
    m_etag.clear();
    m_layoutBody.clear();
    m_layoutEtag.clear();
    m_pricesSignature.clear();
    beginResetModel();
    m_seats.clear();
    m_index.clear();
    m_selected.clear();
    m_highlighted.clear();
    m_ownHold = false;
    m_tierNames.clear();
    m_tierPrices.clear();
    m_rowLabels.clear();
    m_sections.clear();
    endResetModel();
    Q_EMIT layoutReset();
    Q_EMIT selectionChanged();
    Q_EMIT highlightChanged();
}

void SeatMapModel::refresh(std::function<void(bool)> done)
{
    if (!m_api || m_showId == 0) {
        if (done)
            done(false);
        return;
    }
    if (m_inFlight && !done)
        return; // a poll is on its way; its answer will do
    m_inFlight = true;
    ++m_fetches;
    const qint64 showId = m_showId;
    if (m_layoutBody.isEmpty())
        fetchLayout(showId, std::move(done), false);
    else
        fetchAvailability(showId, std::move(done), false);
}

void SeatMapModel::fetchLayout(qint64 showId, std::function<void(bool)> done, bool retry)
{
    // The layout once (5 MB for a stadium, cached for browsing offline), then only the availability (one letter a
    // seat). What a cached map shows is never sold (the kiosk refuses holds offline).
    ++m_layoutFetches;
    m_api->getCached(QStringLiteral("/api/v1/shows/%1/layout").arg(showId), this, [this, showId, done, retry](const ApiReply &reply) {
        if (showId != m_showId) {
            m_inFlight = false;
            if (done)
                done(false);
            return;
        }
        if (!reply.ok() || reply.status != 200) {
            m_inFlight = false;
            setLoadFailure(reply);
            setLoading(false);
            if (done)
                done(false);
            return;
        }
        m_layoutBody = reply.body;
        m_layoutEtag = reply.etag; // empty for a copy from the offline cache
        fetchAvailability(showId, done, retry);
    });
}

void SeatMapModel::setLoadFailure(const ApiReply &reply)
{
    setErrorString(reply.kind == ApiErrorKind::Offline ? tr("The seat map could not be loaded: the kiosk is offline.")
                                                       : tr("The seat map could not be loaded."));
}

void SeatMapModel::fetchAvailability(qint64 showId, std::function<void(bool)> done, bool layoutRetried)
{
    m_api->getCached(QStringLiteral("/api/v1/shows/%1/availability").arg(showId), this, [this, showId, done, layoutRetried](const ApiReply &reply) {
        m_inFlight = false;
        if (showId != m_showId) {
            if (done)
                done(false);
            return;
        }
        bool ok = reply.ok();
        if (reply.fromCache && !m_seats.empty()) {
            // A blip while a fresh map is on screen: keep it rather than step back to an older copy.
            setLoading(false);
            if (done)
                done(false);
            return;
        }
        if (reply.status == 304) {
            setErrorString({});
        } else if (ok) {
            const AvailabilityResult result = applyAvailability(reply.body, reply.etag);
            if (result == AvailabilityResult::LayoutChanged && !layoutRetried) {
                // Not the layout we keep (never expected: seats of a show are not edited): fetch both again, once.
                m_layoutBody.clear();
                m_layoutEtag.clear();
                m_etag.clear();
                m_inFlight = true;
                fetchLayout(showId, done, true);
                return;
            }
            ok = result == AvailabilityResult::Applied;
            setErrorString(ok ? QString() : tr("The seat map could not be read."));
        } else {
            setLoadFailure(reply);
        }
        setLoading(false);
        if (done)
            done(ok);
    }, m_etag);
}

SeatMapModel::AvailabilityResult SeatMapModel::applyAvailability(const QByteArray &body, const QByteArray &etag)
{
    QJsonParseError parseError;
    const QJsonObject availability = QJsonDocument::fromJson(body, &parseError).object();
    const QString letters = availability.value(QStringLiteral("statuses")).toString();
    if (parseError.error != QJsonParseError::NoError || letters.isEmpty() || m_layoutBody.isEmpty()) {
        qCWarning(lcSeatMap) << "unreadable availability" << parseError.errorString();
        return AvailabilityResult::Unreadable;
    }
    const QByteArray layoutEtag = availability.value(QStringLiteral("layout_etag")).toString().toLatin1();
    if (!m_layoutEtag.isEmpty() && layoutEtag != m_layoutEtag)
        return AvailabilityResult::LayoutChanged;
    const QJsonArray tiers = availability.value(QStringLiteral("tiers")).toArray();
    const QByteArray pricesSignature = availability.value(QStringLiteral("currency")).toString().toUtf8() + QJsonDocument(tiers).toJson(QJsonDocument::Compact);
    if (!m_seats.empty() && pricesSignature == m_pricesSignature) {
        // The usual poll: only statuses changed.
        if (!applyStatusLetters(letters))
            return AvailabilityResult::LayoutChanged;
        m_etag = etag;
        return AvailabilityResult::Applied;
    }
    // First availability for this layout, or new prices: the full map's shape from the two, built once.
    const QJsonObject layoutRoot = QJsonDocument::fromJson(m_layoutBody).object();
    QJsonArray seats = layoutRoot.value(QStringLiteral("seats")).toArray();
    if (seats.size() != letters.size())
        return AvailabilityResult::LayoutChanged;
    QHash<QString, qint64> prices;
    for (const QJsonValue &tier : tiers)
        prices.insert(tier[QStringLiteral("tier")].toString(), tier[QStringLiteral("price_minor")].toInteger());
    for (qsizetype i = 0; i < seats.size(); ++i) {
        QJsonObject seat = seats[i].toObject();
        seat.insert(QStringLiteral("price_minor"), prices.value(seat.value(QStringLiteral("tier")).toString()));
        const SeatStatus status = seatStatusFromCode(char(letters[i].toLatin1())).value_or(SeatStatus::Held);
        seat.insert(QStringLiteral("status"), toString(status));
        seats[i] = seat;
    }
    QJsonObject layout = layoutRoot.value(QStringLiteral("layout")).toObject();
    layout.insert(QStringLiteral("tiers"), tiers);
    const QJsonObject root{{QStringLiteral("currency"), availability.value(QStringLiteral("currency"))},
                           {QStringLiteral("layout"), layout},
                           {QStringLiteral("seats"), seats}};
    if (!m_seats.empty()) {
        // New prices: rebuild rather than update in place (applyMap keeps the seats when the layout is the same).
        beginResetModel();
        m_seats.clear();
        endResetModel();
    }
    if (!applyMap(root, etag))
        return AvailabilityResult::Unreadable;
    m_pricesSignature = pricesSignature;
    return AvailabilityResult::Applied;
}

bool SeatMapModel::applyBody(const QByteArray &body, const QByteArray &etag)
{
    QJsonParseError parseError;
    const QJsonObject root = QJsonDocument::fromJson(body, &parseError).object();
    if (parseError.error != QJsonParseError::NoError) {
        qCWarning(lcSeatMap) << "unreadable seat map" << parseError.errorString();
        return false;
    }
    return applyMap(root, etag);
}

bool SeatMapModel::applyMap(const QJsonObject &root, const QByteArray &etag)
{
    const QJsonArray seats = root.value(QStringLiteral("seats")).toArray();
    if (seats.isEmpty()) {
        qCWarning(lcSeatMap) << "a seat map without seats";
        return false;
    }
    m_etag = etag;
    const bool sameLayout = size_t(seats.size()) == m_seats.size()
        && m_seats.front().seatId == seats.first().toObject().value(QStringLiteral("seat_id")).toString();
    if (sameLayout) {
        // Only statuses change between polls: update in place, keep the geometry.
        int available = 0;
        for (qsizetype i = 0; i < seats.size(); ++i) {
            const SeatStatus status = statusOf(seats[i].toObject().value(QStringLiteral("status")).toString());
            m_seats[size_t(i)].status = status;
            available += status == SeatStatus::Available;
        }
        m_availableCount = available;
        Q_EMIT statusesChanged();
        Q_EMIT dataChanged(index(0), index(int(m_seats.size()) - 1), {StatusRole});
        dropLostSelection();
        return true;
    }

    beginResetModel();
    m_seats.clear();
    m_index.clear();
    m_selected.clear();
    m_currency = root.value(QStringLiteral("currency")).toString();
    const QJsonObject layout = root.value(QStringLiteral("layout")).toObject();
    // Tiers, dearest first: "best" means the most expensive seats.
    QList<QPair<qint64, QString>> tierList;
    for (const QJsonValue &tier : layout.value(QStringLiteral("tiers")).toArray()) {
        const QJsonObject object = tier.toObject();
        tierList.append({object.value(QStringLiteral("price_minor")).toInteger(), object.value(QStringLiteral("tier")).toString()});
    }
    std::sort(tierList.begin(), tierList.end(), [](auto &a, auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    m_tierNames.clear();
    m_tierPrices.clear();
    for (const auto &[price, name] : tierList) {
        m_tierNames.append(name);
        m_tierPrices.append(price);
    }
    m_seats.reserve(size_t(seats.size()));
    int available = 0;
    double minX = 1e9, minY = 1e9, maxX = -1e9, maxY = -1e9;
    for (const QJsonValue &value : seats) {
        const QJsonObject object = value.toObject();
        MapSeat seat;
        static_cast<Seat &>(seat) = seatFromJson(object);
        seat.tierIndex = int(m_tierNames.indexOf(seat.tier));
        if (seat.tierIndex < 0) {
            m_tierNames.append(seat.tier);
            m_tierPrices.append(object.value(QStringLiteral("price_minor")).toInteger());
            seat.tierIndex = int(m_tierNames.size()) - 1;
        }
        seat.priceMinor = object.value(QStringLiteral("price_minor")).toInteger();
        seat.wheelchair = seat.isWheelchair();
        seat.companion = seat.isCompanion();
        seat.status = statusOf(object.value(QStringLiteral("status")).toString());
        available += seat.status == SeatStatus::Available;
        minX = std::min(minX, seat.x), maxX = std::max(maxX, seat.x);
        minY = std::min(minY, seat.y), maxY = std::max(maxY, seat.y);
        m_index.insert(seat.seatId, int(m_seats.size()));
        m_seats.push_back(std::move(seat));
    }
    m_availableCount = available;
    // The typical (median) distance to the neighbour in the same row.
    std::vector<float> gaps;
    for (size_t i = 1; i < m_seats.size() && gaps.size() < 2000; ++i)
        if (m_seats[i].row == m_seats[i - 1].row)
            gaps.push_back(std::hypot(m_seats[i].x - m_seats[i - 1].x, m_seats[i].y - m_seats[i - 1].y));
    m_pitch = 10;
    if (!gaps.empty()) {
        std::nth_element(gaps.begin(), gaps.begin() + long(gaps.size() / 2), gaps.end());
        m_pitch = std::max(gaps[gaps.size() / 2], 1.0f);
    }
    const QJsonObject stage = layout.value(QStringLiteral("stage")).toObject();
    m_stageLabel = stage.value(QStringLiteral("label")).toString();
    m_stageEllipse = stage.value(QStringLiteral("shape")).toString() == QLatin1String("ellipse");
    m_stage = QRectF(QPointF(stage.value(QStringLiteral("x1")).toDouble(), stage.value(QStringLiteral("y1")).toDouble()),
                     QPointF(stage.value(QStringLiteral("x2")).toDouble(), stage.value(QStringLiteral("y2")).toDouble()))
                  .normalized();
    m_rowLabels = layout.value(QStringLiteral("rows")).toArray().toVariantList();
    buildSections();
    m_bounds = QRectF(QPointF(minX, minY), QPointF(maxX, maxY)).adjusted(-10, -10, 10, 10);
    for (const QVariant &row : std::as_const(m_rowLabels)) {
        const QVariantMap map = row.toMap();
        m_bounds = m_bounds.united(QRectF(map.value(QStringLiteral("x")).toDouble() - 10, map.value(QStringLiteral("y")).toDouble() - 5, 20, 10));
    }
    if (!m_stage.isNull() || m_stage.width() > 0)
        m_bounds = m_bounds.united(m_stage.adjusted(0, -8, 0, 8));
    endResetModel();
    Q_EMIT layoutReset();
    Q_EMIT statusesChanged();
    Q_EMIT selectionChanged();
    return true;
}

SeatStatus SeatMapModel::statusOf(QStringView status)
{
    // As with status letters: a status this app does not know is shown as taken, never offered for sale.
    return seatStatusFromString(status.toString()).value_or(SeatStatus::Held);
}

void SeatMapModel::dropLostSelection()
{
    // A selected seat that is no longer free is not ours to sell any more.
    if (m_ownHold)
        return;
    QStringList lost;
    for (auto it = m_selected.begin(); it != m_selected.end();) {
        if (m_seats[size_t(*it)].status != SeatStatus::Available) {
            lost.append(m_seats[size_t(*it)].seatId);
            it = m_selected.erase(it);
        } else {
            ++it;
        }
    }
    if (!lost.isEmpty()) {
        Q_EMIT selectionChanged();
        Q_EMIT selectionLost(lost);
    }
}

int SeatMapModel::applyStatusChanges(const QJsonArray &changes)
{
    int changed = 0;
    int first = int(m_seats.size());
    int last = -1;
    for (const QJsonValue &value : changes) {
        const QJsonObject change = value.toObject();
        const int i = m_index.value(change.value(QLatin1String("seat_id")).toString(), -1);
        if (i < 0)
            continue;
        const SeatStatus status = statusOf(change.value(QLatin1String("status")).toString());
        MapSeat &seat = m_seats[size_t(i)];
        if (seat.status == status)
            continue;
        m_availableCount += int(status == SeatStatus::Available) - int(seat.status == SeatStatus::Available);
        seat.status = status;
        ++changed;
        first = std::min(first, i);
        last = std::max(last, i);
    }
    if (changed == 0)
        return 0;
    Q_EMIT statusesChanged();
    Q_EMIT dataChanged(index(first), index(last), {StatusRole});
    dropLostSelection();
    return changed;
}

QStringList SeatMapModel::selectedSeats() const
{
    QStringList ids;
    for (int i : m_selected)
        ids.append(m_seats[size_t(i)].seatId);
    return ids;
}

QString SeatMapModel::selectionText() const
{
    QList<int> sorted = m_selected;
    std::sort(sorted.begin(), sorted.end(), [this](int a, int b) {
        const MapSeat &x = m_seats[size_t(a)], &y = m_seats[size_t(b)];
        return x.row != y.row ? x.row < y.row : x.number < y.number;
    });
    QStringList parts;
    for (int i : sorted)
        parts.append(tr("Row %1 Seat %2").arg(m_seats[size_t(i)].row).arg(m_seats[size_t(i)].number));
    return parts.join(QStringLiteral(" · "));
}

qint64 SeatMapModel::selectedTotalMinor() const
{
    qint64 total = 0;
    for (int i : m_selected)
        total += m_seats[size_t(i)].priceMinor;
    return total;
}

QString SeatMapModel::selectedTotalText() const
{
    return formatMoney(selectedTotalMinor(), m_currency);
}

bool SeatMapModel::toggle(const QString &seatId)
{
    const int i = indexOf(seatId);
    if (i < 0)
        return false;
    if (m_selected.removeOne(i)) {
        Q_EMIT selectionChanged();
        return true;
    }
    if (m_seats[size_t(i)].status != SeatStatus::Available || m_selected.size() >= m_maxSelection)
        return false;
    m_selected.append(i);
    Q_EMIT selectionChanged();
    return true;
}

void SeatMapModel::clearSelection()
{
    if (m_selected.isEmpty())
        return;
    m_selected.clear();
    Q_EMIT selectionChanged();
}

QList<BestAvailableSeat> SeatMapModel::bestAvailableInput() const
{
    QList<BestAvailableSeat> input;
    input.reserve(qsizetype(m_seats.size()));
    for (const MapSeat &seat : m_seats)
        input.append({seat, seat.status == SeatStatus::Available});
    return input;
}

void SeatMapModel::buildSections()
{
    m_sections.clear();
    QHash<QString, int> byName;
    for (MapSeat &seat : m_seats) {
        const qsizetype dash = seat.row.lastIndexOf(QLatin1Char('-'));
        if (dash <= 0) {
            seat.section = -1;
            continue;
        }
        const QString name = seat.row.left(dash);
        auto it = byName.find(name);
        if (it == byName.end()) {
            it = byName.insert(name, int(m_sections.size()));
            m_sections.push_back({name, QRectF(seat.x, seat.y, 0, 0), 0});
        }
        MapSection &section = m_sections[size_t(*it)];
        // QRectF::united() skips empty rectangles, and a section's first seat is one: grow by hand.
        section.bounds.setCoords(std::min<qreal>(section.bounds.left(), seat.x), std::min<qreal>(section.bounds.top(), seat.y),
                                 std::max<qreal>(section.bounds.right(), seat.x), std::max<qreal>(section.bounds.bottom(), seat.y));
        ++section.seats;
        seat.section = *it;
    }
    if (m_sections.size() < 2) {
        m_sections.clear();
        for (MapSeat &seat : m_seats)
            seat.section = -1;
    }
}

QVariantList SeatMapModel::sectionList() const
{
    QVariantList list;
    for (const MapSection &section : m_sections)
        list.append(QVariantMap{{QStringLiteral("name"), section.name}, {QStringLiteral("x"), section.bounds.x()}, {QStringLiteral("y"), section.bounds.y()},
                                {QStringLiteral("width"), section.bounds.width()}, {QStringLiteral("height"), section.bounds.height()},
                                {QStringLiteral("seats"), section.seats}});
    return list;
}

bool SeatMapModel::selectBestAvailable(int count, bool wheelchair)
{
    BestAvailableRequest request;
    request.count = std::clamp(count, 1, m_maxSelection);
    request.tierOrder = m_tierNames;
    request.wheelchair = wheelchair;
    const QStringList best = bestAvailable(bestAvailableInput(), request);
    if (best.isEmpty())
        return false;
    m_selected.clear();
    for (const QString &id : best)
        m_selected.append(indexOf(id));
    Q_EMIT selectionChanged();
    Q_EMIT seatsPicked(best);
    return true;
}

void SeatMapModel::markTaken(const QStringList &seatIds, int wantedCount)
{
    m_highlighted = QSet<QString>(seatIds.begin(), seatIds.end());
    double sx = 0, sy = 0;
    int n = 0;
    for (const QString &id : seatIds) {
        const int i = indexOf(id);
        if (i >= 0) {
            sx += m_seats[size_t(i)].x, sy += m_seats[size_t(i)].y, ++n;
            if (m_seats[size_t(i)].status == SeatStatus::Available)
                m_seats[size_t(i)].status = SeatStatus::Held; // the server said so; the next poll brings the truth
        }
    }
    // The customer's party size, not what is left of the selection (a poll may already have dropped the taken seat).
    const int wanted = std::max(1, wantedCount > 0 ? wantedCount : int(m_selected.size()));
    m_selected.clear();
    QStringList suggested;
    if (n > 0) {
        BestAvailableRequest request;
        request.count = wanted;
        request.near = QPointF(sx / n, sy / n);
        request.exclude = seatIds;
        suggested = bestAvailable(bestAvailableInput(), request);
        for (const QString &id : std::as_const(suggested))
            m_selected.append(indexOf(id));
    }
    Q_EMIT statusesChanged();
    Q_EMIT highlightChanged();
    Q_EMIT selectionChanged();
    if (!suggested.isEmpty())
        Q_EMIT seatsPicked(suggested + seatIds); // the suggestion next to the seats it replaces
}

void SeatMapModel::clearHighlight()
{
    if (m_highlighted.isEmpty())
        return;
    m_highlighted.clear();
    Q_EMIT highlightChanged();
}

void SeatMapModel::setOwnHold(bool held)
{
    m_ownHold = held;
}

} // namespace marquee::app
