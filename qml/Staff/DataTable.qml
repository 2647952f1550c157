// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import QtQuick.Controls.Basic
import Marquee.App
import Marquee.Ui

/*! A sortable, filterable table over a JsonTableModel with a CSV export button. Click a header to sort (again to
    reverse); type to filter every column; a row click emits rowClicked with the row's object. */
ColumnLayout {
    id: table
    required property JsonTableModel model
    property string exportName: "table"
    property bool showToolbar: true
    property int selectedRow: -1
    /** What an empty table says; a list that does not follow the date range says so in its own words. */
    property string emptyText: qsTr("Nothing here for this range.")
    /** Keys of the columns to show (empty: all); the others get no width, so a narrow card shows what fits. */
    property var visibleKeys: []
    function widthOf(column) {
        if (table.visibleKeys.length > 0 && table.visibleKeys.indexOf(table.model.keys[column]) < 0)
            return 0
        return table.model.columnWidth(column)
    }
    function lastShownColumn() {
        for (let c = table.model.titles.length - 1; c >= 0; --c)
            if (widthOf(c) > 0)
                return c
        return -1
    }
    signal rowClicked(var row, int index)
    signal exportRequested()
    spacing: 10

    RowLayout {
        visible: table.showToolbar
        Layout.fillWidth: true
        spacing: 10
        SField {
            id: filter
            objectName: "filter_" + table.exportName
            Layout.preferredWidth: 280
            placeholderText: qsTr("Filter…")
            text: table.model.filterText
            onTextChanged: table.model.filterText = text
        }
        Text {
            text: table.model.count === table.model.totalCount ? qsTr("%n row(s)", "", table.model.count)
                                                               : qsTr("%1 of %2 rows").arg(table.model.count).arg(table.model.totalCount)
            font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        Item { Layout.fillWidth: true }
        SButton {
            objectName: "export_" + table.exportName
            text: qsTr("Export CSV")
            onClicked: table.exportRequested()
        }
    }

    Rectangle {
        Layout.fillWidth: true
        Layout.fillHeight: true
        radius: Pos.radius
        color: Pos.field
        border.width: 1
        border.color: Pos.line
        clip: true

        HorizontalHeaderView {
            id: header
            objectName: "header_" + table.exportName
            anchors.left: parent.left
            anchors.right: parent.right
            anchors.top: parent.top
            syncView: view
            clip: true
            delegate: Rectangle {
                required property int index
                implicitHeight: 38
                implicitWidth: table.widthOf(index)
                color: Pos.panelRaised
                Text {
                    anchors.fill: parent
                    anchors.leftMargin: 12
                    anchors.rightMargin: 12
                    verticalAlignment: Text.AlignVCenter
                    // Aligned like the column's values; on a right-aligned column the sort arrow goes first so
                    // the title's right edge stays in line with the numbers.
                    readonly property bool alignsRight: { table.model.titles; return (table.model.headerData(index, Qt.Horizontal, Qt.TextAlignmentRole) & Qt.AlignRight) !== 0 }
                    readonly property string arrow: table.model.sortColumn === index ? (table.model.sortAscending ? "▲" : "▼") : ""
                    horizontalAlignment: alignsRight ? Text.AlignRight : Text.AlignLeft
                    text: {
                        const title = table.model.titles[index] || ""
                        if (arrow.length === 0)
                            return title
                        return alignsRight ? arrow + "  " + title : title + "  " + arrow
                    }
                    // A title wider than its column goes on to a second line before anything is cut off.
                    wrapMode: Text.WordWrap
                    maximumLineCount: 2
                    lineHeight: 0.9
                    elide: Text.ElideRight
                    font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 0.6; font.family: Theme.fontFamily
                    color: table.model.sortColumn === index ? Theme.text : Theme.textMuted
                }
                Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Pos.line }
                MouseArea {
                    anchors.fill: parent
                    cursorShape: Qt.PointingHandCursor
                    onClicked: table.model.sortBy(index)
                }
            }
        }
        TableView {
            id: view
            objectName: "view_" + table.exportName
            anchors.left: parent.left
            anchors.right: parent.right
            anchors.top: header.bottom
            anchors.bottom: parent.bottom
            clip: true
            model: table.model
            boundsBehavior: Flickable.StopAtBounds
            // The last column shown takes what is left, so a narrow table still reaches the right edge.
            columnWidthProvider: function (column) {
                const base = table.widthOf(column)
                if (base === 0 || column !== table.lastShownColumn())
                    return base
                let before = 0
                for (let c = 0; c < column; ++c)
                    before += table.widthOf(c)
                return Math.max(base, view.width - before)
            }
            onWidthChanged: forceLayout()
            Connections { target: table.model; function onColumnsChanged() { view.forceLayout() } }
            // Shown only when the rows or columns do not fit, and then visibly (a narrow window, a long log).
            ScrollBar.vertical: SScrollBar { objectName: "vbar_" + table.exportName }
            ScrollBar.horizontal: SScrollBar { objectName: "hbar_" + table.exportName }
            delegate: Rectangle {
                required property string display
                required property int row
                required property int column
                required property int alignment
                implicitHeight: 36
                color: row === table.selectedRow ? "#25305A" : (row % 2 === 0 ? "transparent" : "#121A2C")
                Text {
                    anchors.fill: parent
                    anchors.leftMargin: 12
                    anchors.rightMargin: 12
                    verticalAlignment: Text.AlignVCenter
                    horizontalAlignment: (parent.alignment & Qt.AlignRight) ? Text.AlignRight : Text.AlignLeft
                    text: parent.display
                    elide: Text.ElideRight
                    font.pixelSize: Pos.fontBody - 1; font.family: Theme.fontFamily
                    color: Theme.text
                }
                MouseArea {
                    anchors.fill: parent
                    onClicked: { table.selectedRow = parent.row; table.rowClicked(table.model.rowAt(parent.row), parent.row) }
                }
            }
        }
        Text {
            objectName: "empty_" + table.exportName
            anchors.centerIn: parent
            visible: table.model.count === 0
            text: table.model.loading ? qsTr("Loading…") : table.model.errorString.length > 0 ? table.model.errorString : table.emptyText
            font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
    }
}
