// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatmapservice.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace marquee {

SeatMapService::SeatMapService(store::CatalogRepository &catalog, int refreshIntervalMs)
    : m_catalog(catalog)
    , m_refreshIntervalMs(refreshIntervalMs)
{
}

QByteArray SeatMapService::etagFor(const store::SeatStatuses &statuses)
{
    // The version sum only grows with writes, but a hold that lapses changes a status without a write, so
    // the tag also covers the status letters themselves.
    const QByteArray digest = QCryptographicHash::hash(statuses.codes, QCryptographicHash::Md5).toHex().left(12);
    return '"' + QByteArray::number(statuses.version) + '.' + digest + '"';
}

void SeatMapService::markChanged(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_snapshots.find(showId);
    if (it != m_snapshots.end())
        it->stale = true;
}

void SeatMapService::invalidate(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    m_snapshots.remove(showId);
}

std::shared_ptr<const SeatMapService::Layout> SeatMapService::loadLayout(qint64 showId)
{
    const std::optional<store::ShowLayout> layout = m_catalog.showLayout(showId);
    if (!layout)
        return nullptr;
    auto rendered = std::make_shared<Layout>();
    QJsonObject layoutJson = layout->layout;
    QJsonArray tiers;
    for (auto it = layout->prices.constBegin(); it != layout->prices.constEnd(); ++it)
        tiers.append(QJsonObject{{QStringLiteral("tier"), it.key()}, {QStringLiteral("price_minor"), it.value()}});
    layoutJson.insert(QStringLiteral("tiers"), tiers);
    const QByteArray currency = QJsonDocument(QJsonArray{layout->currency}).toJson(QJsonDocument::Compact); // ["EUR"]
    rendered->headAfterVersion = ",\"currency\":" + currency.mid(1, currency.size() - 2)
        + ",\"layout\":" + QJsonDocument(layoutJson).toJson(QJsonDocument::Compact) + ",\"seats\":[";
    rendered->seatPrefixes.reserve(layout->seats.size());
    for (const store::LayoutSeat &seat : layout->seats) {
        const QJsonObject object{{QStringLiteral("seat_id"), seat.seatId},
                                 {QStringLiteral("row"), seat.row},
                                 {QStringLiteral("number"), seat.number},
                                 {QStringLiteral("x"), seat.x},
                                 {QStringLiteral("y"), seat.y},
                                 {QStringLiteral("tier"), seat.tier},
                                 {QStringLiteral("price_minor"), layout->prices.value(seat.tier).toInteger()},
                                 {QStringLiteral("attributes"), QJsonArray::fromStringList(seat.attributes)}};
        QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
        json.chop(1); // the status and the closing brace are appended per snapshot
        rendered->seatPrefixes.push_back(json + ",\"status\":\"");
    }
    return rendered;
}

SeatMapService::Outcome SeatMapService::refresh(qint64 showId, std::shared_ptr<const Layout> layout, RenderedSeatMap *out)
{
    const std::optional<store::SeatStatuses> statuses = m_catalog.seatStatuses(showId);
    if (!statuses)
        return m_catalog.show(showId) ? Outcome::Error : Outcome::NotFound;
    if (!layout) {
        layout = loadLayout(showId);
        if (!layout)
            return Outcome::Error;
    }
    if (layout->seatPrefixes.size() != size_t(statuses->codes.size()))
        return Outcome::Error; // seats of a show never change; refuse to splice mismatched data

    static const QByteArray names[] = {"available\"}", "held\"}", "booked\"}"};
    QByteArray body;
    body.reserve(qsizetype(layout->seatPrefixes.size()) * 150 + 4096);
    body = "{\"show_id\":" + QByteArray::number(showId) + ",\"version\":" + QByteArray::number(statuses->version);
    body += layout->headAfterVersion;
    for (size_t i = 0; i < layout->seatPrefixes.size(); ++i) {
        if (i)
            body += ',';
        body += layout->seatPrefixes[i];
        const char code = statuses->codes[qsizetype(i)];
        body += names[code == 'h' ? 1 : code == 'b' ? 2 : 0];
    }
    body += "]}";
    out->body = std::move(body);
    out->version = statuses->version;
    out->etag = etagFor(*statuses);

    QMutexLocker lock(&m_mutex);
    Snapshot &snapshot = m_snapshots[showId];
    snapshot.layout = layout;
    snapshot.rendered = *out;
    snapshot.fetchedAtMs = QDateTime::currentMSecsSinceEpoch();
    snapshot.refreshing = false;
    // snapshot.stale is left alone: a change marked while this refresh ran may not be in it.
    return Outcome::Ok;
}

SeatMapService::Outcome SeatMapService::render(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified)
{
    *notModified = false;
    std::shared_ptr<const Layout> layout;
    {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end()) {
            const qint64 age = QDateTime::currentMSecsSinceEpoch() - it->fetchedAtMs;
            const bool fresh = !it->stale && age < m_refreshIntervalMs;
            // While another thread refreshes, serve the previous snapshot unless this process changed the show.
            if (fresh || (it->refreshing && !it->stale && !it->rendered.body.isEmpty())) {
                *out = it->rendered;
                if (!ifNoneMatch.isEmpty() && (ifNoneMatch == out->etag || ifNoneMatch == "W/" + out->etag)) {
                    *notModified = true;
                    out->body.clear();
                }
                return Outcome::Ok;
            }
            it->refreshing = true;
            it->stale = false;
            layout = it->layout;
        } else {
            // Created before the query runs, so that markChanged() during the first refresh is not lost.
            Snapshot &snapshot = m_snapshots[showId];
            snapshot.refreshing = true;
            snapshot.stale = false;
        }
    }
    const Outcome outcome = refresh(showId, layout, out);
    if (outcome != Outcome::Ok) {
        QMutexLocker lock(&m_mutex);
        const auto it = m_snapshots.find(showId);
        if (it != m_snapshots.end() && it->rendered.body.isEmpty())
            m_snapshots.erase(it); // never rendered: forget it (an unknown show must not stay cached)
        else if (it != m_snapshots.end())
            it->refreshing = false;
        return outcome;
    }
    if (!ifNoneMatch.isEmpty() && (ifNoneMatch == out->etag || ifNoneMatch == "W/" + out->etag)) {
        *notModified = true;
        out->body.clear();
    }
    return outcome;
}

} // namespace marquee
