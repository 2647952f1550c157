// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace marquee::app {

/**
 * @brief A table of JSON rows for the staff screens (reports, fleet, audit, shows): declared columns, sort by
 * any column, a free-text filter over every column, and CSV export of exactly what is shown. Cells are typed by
 * their column so that money sorts as an integer and is shown with its currency.
 *
 * Rows are also reachable by column key as a role (`title`, `revenue_minor`...), so a ListView can use it too.
 */
class JsonTableModel : public QAbstractTableModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the till or desk controller")
    /** @brief Column titles for the header, in column order. */
    Q_PROPERTY(QStringList titles READ titles NOTIFY columnsChanged)
    /** @brief Column keys, in column order. */
    Q_PROPERTY(QStringList keys READ keys NOTIFY columnsChanged)
    /** @brief Rows after the filter. */
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /** @brief Rows before the filter. */
    Q_PROPERTY(int totalCount READ totalCount NOTIFY countChanged)
    Q_PROPERTY(QString filterText READ filterText WRITE setFilterText NOTIFY filterTextChanged)
    Q_PROPERTY(int sortColumn READ sortColumn NOTIFY sortChanged)
    Q_PROPERTY(bool sortAscending READ sortAscending NOTIFY sortChanged)
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
public:
    /** @brief How a column's values are shown and sorted. */
    enum class Kind { Text, Integer, Money, Time, Percent, Bool };
    struct Column {
        QString key;
        QString title;
        Kind kind = Kind::Text;
        int width = 140; ///< a hint for the view, pixels
    };
    enum Roles { SortValueRole = Qt::UserRole + 1, RawRole, KeyRoleBase = Qt::UserRole + 100 };

    explicit JsonTableModel(QObject *parent = nullptr);
    void setColumns(const QList<Column> &columns);
    /** @brief Replace all rows; money columns use each row's `currency` (or @p currency when a row has none). */
    void setRows(const QJsonArray &rows, const QString &currency = {});
    void setLoading(bool loading);
    void setErrorString(const QString &error);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    QStringList titles() const;
    QStringList keys() const;
    int count() const { return int(m_visible.size()); }
    int totalCount() const { return int(m_rows.size()); }
    QString filterText() const { return m_filter; }
    void setFilterText(const QString &text);
    int sortColumn() const { return m_sortColumn; }
    bool sortAscending() const { return m_ascending; }
    bool loading() const { return m_loading; }
    QString errorString() const { return m_errorString; }

    /** @brief Sort by @p column; sorting the same column again flips the order. */
    Q_INVOKABLE void sortBy(int column);
    /** @brief The visible row @p row as an object (for detail panels and actions). */
    Q_INVOKABLE QVariantMap rowAt(int row) const;
    /** @brief The raw values of @p key over the visible rows (charts). */
    Q_INVOKABLE QVariantList values(const QString &key) const;
    /** @brief A column's width hint. */
    Q_INVOKABLE int columnWidth(int column) const;
    /** @brief The visible rows as CSV (RFC 4180: header line, quoted where needed, CRLF), raw values. */
    Q_INVOKABLE QString csv() const;
    /** @brief Write csv() to @p path (a path or a file:// URL); false and errorString on failure. */
    Q_INVOKABLE bool exportCsv(const QString &path);
    /** @brief The text a cell shows. */
    QString cellText(int row, int column) const;

Q_SIGNALS:
    void columnsChanged();
    void countChanged();
    void filterTextChanged();
    void sortChanged();
    void loadingChanged();
    void errorStringChanged();

private:
    void rebuildVisible();
    QVariant sortValue(const QJsonObject &row, const Column &column) const;
    QString formatted(const QJsonObject &row, const Column &column) const;

    QList<Column> m_columns;
    QList<QJsonObject> m_rows;
    QList<int> m_visible; // indices into m_rows, filtered and sorted
    QString m_currency;
    QString m_filter;
    int m_sortColumn = -1;
    bool m_ascending = true;
    bool m_loading = false;
    QString m_errorString;
};

/** @brief One CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
QString csvField(const QString &value);

} // namespace marquee::app
