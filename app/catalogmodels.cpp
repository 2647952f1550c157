// SPDX-License-Identifier: AGPL-3.0-or-later
#include "catalogmodels.h"
#include "core/isotime.h"
#include "core/money.h"
#include "venueclock.h"

#include <QDateTime>
#include <QLocale>
#include <limits>

namespace marquee::app {

void JsonListModel::setLoading(bool loading)
{
    if (m_loading != loading) {
        m_loading = loading;
        Q_EMIT loadingChanged();
    }
}

void JsonListModel::setErrorString(const QString &error)
{
    if (m_errorString != error) {
        m_errorString = error;
        Q_EMIT errorStringChanged();
    }
}

void JsonListModel::setItems(const QJsonArray &items)
{
    beginResetModel();
    m_items = items;
    endResetModel();
    Q_EMIT countChanged();
}

int JsonListModel::find(const QString &key, qint64 id) const
{
    for (qsizetype i = 0; i < m_items.size(); ++i)
        if (m_items[i].toObject().value(key).toInteger() == id)
            return int(i);
    return -1;
}

QVariant MoviesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= count())
        return {};
    const QJsonObject movie = at(index.row());
    switch (role) {
    case MovieIdRole:
        return movie.value(QStringLiteral("movie_id")).toInteger();
    case Qt::DisplayRole:
    case TitleRole:
        return movie.value(QStringLiteral("title")).toString();
    case RuntimeRole:
        return tr("%n min", nullptr, movie.value(QStringLiteral("runtime_min")).toInt());
    case RatingRole:
        return movie.value(QStringLiteral("rating")).toString();
    case GenresRole:
        return movie.value(QStringLiteral("genres")).toVariant().toStringList().join(QStringLiteral(" · "));
    case SynopsisRole:
        return movie.value(QStringLiteral("synopsis")).toString();
    case NextShowRole: {
        const QDateTime next = QDateTime::fromString(movie.value(QStringLiteral("next_show_at")).toString(), Qt::ISODate);
        if (!next.isValid())
            return QString();
        // A movie plays in the kiosk's city: its zone.
        return tr("Next: %1").arg(venueDayAndTime(next, appVenueZone()));
    }
    case ArtSeedRole:
        // Generated artwork: a stable number from the title picks colours and shapes.
        return int(qHash(movie.value(QStringLiteral("title")).toString()) % 100000);
    }
    return {};
}

QHash<int, QByteArray> MoviesModel::roleNames() const
{
    return {{MovieIdRole, "movieId"},   {TitleRole, "title"},       {RuntimeRole, "runtime"}, {RatingRole, "rating"},
            {GenresRole, "genres"},     {SynopsisRole, "synopsis"}, {NextShowRole, "nextShow"}, {ArtSeedRole, "artSeed"}};
}

QVariant ShowsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= count())
        return {};
    const QJsonObject show = at(index.row());
    const QDateTime startsAt = fromIso(show.value(QStringLiteral("starts_at")).toString());
    const QTimeZone zone = showZone(show);
    switch (role) {
    case ShowIdRole:
        return show.value(QStringLiteral("show_id")).toInteger();
    case Qt::DisplayRole:
    case TimeRole:
        return venueShortTime(startsAt, zone);
    case DayRole:
        return venueDayText(startsAt, zone);
    case VenueRole:
        return show.value(QStringLiteral("venue")).toObject().value(QStringLiteral("name")).toString();
    case ScreenRole:
        return show.value(QStringLiteral("screen")).toObject().value(QStringLiteral("name")).toString();
    case PriceFromRole: {
        qint64 lowest = std::numeric_limits<qint64>::max();
        const QJsonObject tiers = show.value(QStringLiteral("price_tiers")).toObject();
        for (auto it = tiers.begin(); it != tiers.end(); ++it)
            lowest = std::min(lowest, it.value().toInteger());
        if (tiers.isEmpty())
            return QString();
        return tr("from %1").arg(formatMoney(lowest, show.value(QStringLiteral("currency")).toString()));
    }
    case WaitingRoomRole:
        return show.value(QStringLiteral("waiting_room")).toBool();
    }
    return {};
}

QHash<int, QByteArray> ShowsModel::roleNames() const
{
    return {{ShowIdRole, "showId"},   {TimeRole, "time"},          {DayRole, "day"}, {VenueRole, "venue"},
            {ScreenRole, "screen"},   {PriceFromRole, "priceFrom"}, {WaitingRoomRole, "waitingRoom"}};
}

} // namespace marquee::app
