// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jsontablemodel.h"
#include "core/money.h"
#include "venueclock.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QLocale>
#include <QSaveFile>
#include <QUrl>
#include <algorithm>

namespace marquee::app {

QString csvField(const QString &value)
{
    if (!value.contains(QLatin1Char(',')) && !value.contains(QLatin1Char('"')) && !value.contains(QLatin1Char('\n'))
        && !value.contains(QLatin1Char('\r')))
        return value;
    QString quoted = value;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

namespace {
QString rawText(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        return number == double(qint64(number)) ? QString::number(qint64(number)) : QString::number(number, 'g', 12);
    }
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    }
    return {};
}
} // namespace

JsonTableModel::JsonTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void JsonTableModel::setColumns(const QList<Column> &columns)
{
    beginResetModel();
    m_columns = columns;
    m_sortColumn = -1;
    rebuildVisible();
    endResetModel();
    Q_EMIT columnsChanged();
    Q_EMIT sortChanged();
}

void JsonTableModel::setRows(const QJsonArray &rows, const QString &currency)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(rows.size());
    for (const QJsonValue &row : rows)
        m_rows.append(row.toObject());
    m_currency = currency;
    rebuildVisible();
    endResetModel();
    Q_EMIT countChanged();
}

void JsonTableModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    Q_EMIT loadingChanged();
}

void JsonTableModel::setErrorString(const QString &error)
{
    if (m_errorString == error)
        return;
    m_errorString = error;
    Q_EMIT errorStringChanged();
}

int JsonTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_visible.size());
}

int JsonTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant JsonTableModel::sortValue(const QJsonObject &row, const Column &column) const
{
    const QJsonValue value = row.value(column.key);
    switch (column.kind) {
    case Kind::Integer:
    case Kind::Money:
        return value.toInteger();
    case Kind::Percent:
        return value.toDouble();
    case Kind::Bool:
        return value.toBool();
    case Kind::Time:
        return QDateTime::fromString(value.toString(), Qt::ISODateWithMs).toMSecsSinceEpoch();
    case Kind::Text:
        break;
    }
    return rawText(value).toLower();
}

QString JsonTableModel::formatted(const QJsonObject &row, const Column &column) const
{
    const QJsonValue value = row.value(column.key);
    if (value.isNull() || value.isUndefined())
        return QStringLiteral("—");
    QLocale locale;
    switch (column.kind) {
    case Kind::Integer:
        return locale.toString(value.toInteger());
    case Kind::Money:
        return formatMoney(value.toInteger(), row.value(QStringLiteral("currency")).toString(m_currency), locale);
    case Kind::Percent:
        return locale.toString(value.toDouble() * 100, 'f', 0) + QLatin1Char('%');
    case Kind::Bool:
        return value.toBool() ? tr("yes") : tr("no");
    case Kind::Time: {
        // A show's row names its zone; anything else happened at this app's venue.
        return wireTimeText(value.toString(), tr("dd MMM yyyy HH:mm", "date format"), showZone(row));
    }
    case Kind::Text:
        break;
    }
    return rawText(value);
}

QString JsonTableModel::cellText(int row, int column) const
{
    if (row < 0 || row >= m_visible.size() || column < 0 || column >= m_columns.size())
        return {};
    return formatted(m_rows[m_visible[row]], m_columns[column]);
}

namespace {
int alignmentOf(const JsonTableModel::Column &column)
{
    // Numbers right-aligned so their digits line up; the header of a column aligns like its values.
    using Kind = JsonTableModel::Kind;
    return column.kind == Kind::Text || column.kind == Kind::Time ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
}
} // namespace

QVariant JsonTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_visible.size())
        return {};
    const QJsonObject &row = m_rows[m_visible[index.row()]];
    if (role >= KeyRoleBase) {
        const int column = role - KeyRoleBase;
        return column < m_columns.size() ? row.value(m_columns[column].key).toVariant() : QVariant();
    }
    if (index.column() >= m_columns.size())
        return {};
    const Column &column = m_columns[index.column()];
    switch (role) {
    case Qt::DisplayRole:
        return formatted(row, column);
    case SortValueRole:
        return sortValue(row, column);
    case RawRole:
        return row.value(column.key).toVariant();
    case Qt::TextAlignmentRole:
        return alignmentOf(column);
    default:
        return {};
    }
}

QVariant JsonTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section >= 0 && section < m_columns.size()) {
        if (role == Qt::DisplayRole)
            return m_columns[section].title;
        if (role == Qt::TextAlignmentRole)
            return alignmentOf(m_columns[section]);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

QHash<int, QByteArray> JsonTableModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(SortValueRole, "sortValue");
    names.insert(RawRole, "raw");
    names.insert(Qt::TextAlignmentRole, "alignment");
    for (int i = 0; i < m_columns.size(); ++i)
        names.insert(KeyRoleBase + i, m_columns[i].key.toUtf8());
    return names;
}

void JsonTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= m_columns.size())
        return;
    beginResetModel();
    m_sortColumn = column;
    m_ascending = order == Qt::AscendingOrder;
    rebuildVisible();
    endResetModel();
    Q_EMIT sortChanged();
}

void JsonTableModel::sortBy(int column)
{
    const bool ascending = column == m_sortColumn ? !m_ascending : true;
    sort(column, ascending ? Qt::AscendingOrder : Qt::DescendingOrder);
}

void JsonTableModel::setFilterText(const QString &text)
{
    if (m_filter == text)
        return;
    beginResetModel();
    m_filter = text;
    rebuildVisible();
    endResetModel();
    Q_EMIT filterTextChanged();
    Q_EMIT countChanged();
}

void JsonTableModel::rebuildVisible()
{
    m_visible.clear();
    const QString needle = m_filter.trimmed();
    for (int i = 0; i < m_rows.size(); ++i) {
        if (!needle.isEmpty()) {
            // The filter matches what people see (formatted) and what the server sent (raw ids).
            bool match = false;
            for (const Column &column : std::as_const(m_columns)) {
                if (formatted(m_rows[i], column).contains(needle, Qt::CaseInsensitive)
                    || rawText(m_rows[i].value(column.key)).contains(needle, Qt::CaseInsensitive)) {
                    match = true;
                    break;
                }
            }
            if (!match)
                continue;
        }
        m_visible.append(i);
    }
    if (m_sortColumn >= 0 && m_sortColumn < m_columns.size()) {
        const Column column = m_columns[m_sortColumn];
        std::stable_sort(m_visible.begin(), m_visible.end(), [&](int a, int b) {
            const QVariant left = sortValue(m_rows[a], column);
            const QVariant right = sortValue(m_rows[b], column);
            const auto order = QVariant::compare(left, right);
            return m_ascending ? order == QPartialOrdering::Less : order == QPartialOrdering::Greater;
        });
    }
}

QStringList JsonTableModel::titles() const
{
    QStringList result;
    for (const Column &column : m_columns)
        result.append(column.title);
    return result;
}

QStringList JsonTableModel::keys() const
{
    QStringList result;
    for (const Column &column : m_columns)
        result.append(column.key);
    return result;
}

QVariantMap JsonTableModel::rowAt(int row) const
{
    if (row < 0 || row >= m_visible.size())
        return {};
    return m_rows[m_visible[row]].toVariantMap();
}

QVariantList JsonTableModel::values(const QString &key) const
{
    QVariantList result;
    for (int index : m_visible)
        result.append(m_rows[index].value(key).toVariant());
    return result;
}

int JsonTableModel::columnWidth(int column) const
{
    return column >= 0 && column < m_columns.size() ? m_columns[column].width : 120;
}

QString JsonTableModel::csv() const
{
    // Raw values (minor units, ISO times) so a spreadsheet gets numbers, not formatted text.
    QStringList lines;
    QStringList header;
    for (const Column &column : m_columns)
        header.append(csvField(column.key));
    lines.append(header.join(QLatin1Char(',')));
    for (int index : m_visible) {
        QStringList fields;
        for (const Column &column : m_columns)
            fields.append(csvField(rawText(m_rows[index].value(column.key))));
        lines.append(fields.join(QLatin1Char(',')));
    }
    return lines.join(QStringLiteral("\r\n")) + QStringLiteral("\r\n");
}

bool JsonTableModel::exportCsv(const QString &path)
{
    const QString local = path.startsWith(QLatin1String("file:")) ? QUrl(path).toLocalFile() : path;
    QSaveFile file(local);
    if (!file.open(QIODevice::WriteOnly) || file.write(csv().toUtf8()) < 0 || !file.commit()) {
        setErrorString(tr("Could not write %1: %2").arg(local, file.errorString()));
        return false;
    }
    setErrorString({});
    return true;
}

} // namespace marquee::app
