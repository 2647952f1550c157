// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QAbstractListModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QtQml/qqmlregistration.h>

namespace marquee::app {

/**
 * @brief A list model over a JSON array from the server, with loading/errorString. The subclasses name the
 * roles and turn fields into text for people.
 */
class JsonListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ANONYMOUS
    /** @brief True while the list is being fetched. */
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    /** @brief Why the list could not be fetched, or empty. */
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    using QAbstractListModel::QAbstractListModel;
    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_items.size()); }
    bool loading() const { return m_loading; }
    QString errorString() const { return m_errorString; }
    int count() const { return int(m_items.size()); }
    void setLoading(bool loading);
    void setErrorString(const QString &error);
    void setItems(const QJsonArray &items);
    QJsonObject at(int row) const { return m_items.at(row).toObject(); }
    /** @brief The row whose @p key equals @p id, or -1. */
    int find(const QString &key, qint64 id) const;

Q_SIGNALS:
    void loadingChanged();
    void errorStringChanged();
    void countChanged();

protected:
    QJsonArray m_items;
    bool m_loading = false;
    QString m_errorString;
};

/** @brief The movies now showing in the kiosk's city, soonest first. */
class MoviesModel : public JsonListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the kiosk controller")
public:
    enum Roles { MovieIdRole = Qt::UserRole + 1, TitleRole, RuntimeRole, RatingRole, GenresRole, SynopsisRole, NextShowRole, ArtSeedRole };
    Q_ENUM(Roles)
    using JsonListModel::JsonListModel;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
};

/** @brief The shows of one movie, soonest first. */
class ShowsModel : public JsonListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the kiosk controller")
public:
    enum Roles { ShowIdRole = Qt::UserRole + 1, TimeRole, DayRole, VenueRole, ScreenRole, PriceFromRole, WaitingRoomRole };
    Q_ENUM(Roles)
    using JsonListModel::JsonListModel;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
};

} // namespace marquee::app
