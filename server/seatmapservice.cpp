// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatmapservice.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>

namespace marquee {

SeatMapService::SeatMapService(store::CatalogRepository &catalog)
    : m_catalog(catalog)
{
}

QByteArray SeatMapService::etagFor(const store::SeatStatuses &statuses)
{
    // The version sum only grows with writes, but a hold that lapses changes a status without a write, so
    // the tag also covers the status letters themselves.
    const QByteArray digest = QCryptographicHash::hash(statuses.codes, QCryptographicHash::Md5).toHex().left(12);
    return '"' + QByteArray::number(statuses.version) + '.' + digest + '"';
}

void SeatMapService::invalidate(qint64 showId)
{
    QMutexLocker lock(&m_mutex);
    m_cache.remove(showId);
}

std::shared_ptr<const SeatMapService::Rendered> SeatMapService::renderedLayout(qint64 showId, Outcome *outcome)
{
    {
        QMutexLocker lock(&m_mutex);
        if (auto cached = m_cache.value(showId)) {
            *outcome = Outcome::Ok;
            return cached;
        }
    }
    const std::optional<store::ShowLayout> layout = m_catalog.showLayout(showId);
    if (!layout) {
        // showLayout() cannot tell an unknown show from an error; the status query below decides for 404.
        *outcome = Outcome::NotFound;
        return nullptr;
    }
    auto rendered = std::make_shared<Rendered>();
    QJsonObject layoutJson = layout->layout;
    QJsonArray tiers;
    for (auto it = layout->prices.constBegin(); it != layout->prices.constEnd(); ++it)
        tiers.append(QJsonObject{{QStringLiteral("tier"), it.key()}, {QStringLiteral("price_minor"), it.value()}});
    layoutJson.insert(QStringLiteral("tiers"), tiers);
    rendered->headAfterVersion = ",\"currency\":" + QJsonDocument(QJsonArray{layout->currency}).toJson(QJsonDocument::Compact).mid(1).chopped(1)
        + ",\"layout\":" + QJsonDocument(layoutJson).toJson(QJsonDocument::Compact) + ",\"seats\":[";
    rendered->seatPrefixes.reserve(layout->seats.size());
    for (const store::LayoutSeat &seat : layout->seats) {
        QJsonObject object{{QStringLiteral("seat_id"), seat.seatId},
                           {QStringLiteral("row"), seat.row},
                           {QStringLiteral("number"), seat.number},
                           {QStringLiteral("x"), seat.x},
                           {QStringLiteral("y"), seat.y},
                           {QStringLiteral("tier"), seat.tier},
                           {QStringLiteral("price_minor"), layout->prices.value(seat.tier).toInteger()},
                           {QStringLiteral("attributes"), QJsonArray::fromStringList(seat.attributes)}};
        QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
        json.chop(1); // drop the closing brace; status and brace are appended per request
        rendered->seatPrefixes.push_back(json + ",\"status\":\"");
    }
    QMutexLocker lock(&m_mutex);
    m_cache.insert(showId, rendered);
    *outcome = Outcome::Ok;
    return rendered;
}

SeatMapService::Outcome SeatMapService::render(qint64 showId, RenderedSeatMap *out, const QByteArray &ifNoneMatch, bool *notModified)
{
    *notModified = false;
    const std::optional<store::SeatStatuses> statuses = m_catalog.seatStatuses(showId);
    if (!statuses)
        return m_catalog.show(showId) ? Outcome::Error : Outcome::NotFound;
    out->version = statuses->version;
    out->etag = etagFor(*statuses);
    if (!ifNoneMatch.isEmpty() && (ifNoneMatch == out->etag || ifNoneMatch == "W/" + out->etag)) {
        *notModified = true;
        return Outcome::Ok;
    }
    Outcome outcome = Outcome::Ok;
    const auto rendered = renderedLayout(showId, &outcome);
    if (!rendered)
        return outcome;
    if (rendered->seatPrefixes.size() != size_t(statuses->codes.size())) {
        // The layout changed under the cache (should not happen: seats are fixed per show); re-render once.
        invalidate(showId);
        return Outcome::Error;
    }
    static const QByteArray names[] = {"available\"}", "held\"}", "booked\"}"};
    QByteArray &body = out->body;
    body.reserve(qsizetype(rendered->seatPrefixes.size()) * 140 + 4096);
    body = "{\"show_id\":" + QByteArray::number(showId) + ",\"version\":" + QByteArray::number(statuses->version);
    body += rendered->headAfterVersion;
    for (size_t i = 0; i < rendered->seatPrefixes.size(); ++i) {
        if (i)
            body += ',';
        body += rendered->seatPrefixes[i];
        const char code = statuses->codes[qsizetype(i)];
        body += names[code == 'h' ? 1 : code == 'b' ? 2 : 0];
    }
    body += "]}";
    return Outcome::Ok;
}

} // namespace marquee
