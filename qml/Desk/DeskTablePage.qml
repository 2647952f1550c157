// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*!
    A page that is one big table (audit log, shifts). When the server sent only part of the range (`notice` set),
    a bar above the table says so and, with `canLoadMore`, offers the next page.
*/
Card {
    id: page
    required property JsonTableModel model
    property string exportName: "table"
    property string notice: ""
    property bool canLoadMore: false
    property string loadMoreText: qsTr("Load more")
    signal loadMoreRequested()

    ColumnLayout {
        anchors.fill: parent
        spacing: Pos.gap
        Rectangle {
            objectName: "cutNotice_" + page.exportName
            visible: page.notice.length > 0
            Layout.fillWidth: true
            implicitHeight: cutRow.implicitHeight + Pos.pad
            radius: Pos.radius
            color: Qt.rgba(Theme.warning.r, Theme.warning.g, Theme.warning.b, 0.14)
            border.width: 1
            border.color: Theme.warning
            RowLayout {
                id: cutRow
                anchors.fill: parent
                anchors.leftMargin: Pos.pad
                anchors.rightMargin: Pos.pad / 2
                spacing: Pos.gap
                Text {
                    objectName: "cutNoticeText_" + page.exportName
                    Layout.fillWidth: true
                    text: page.notice
                    wrapMode: Text.WordWrap
                    font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
                    color: Theme.text
                }
                SButton {
                    objectName: "loadMore_" + page.exportName
                    visible: page.canLoadMore
                    enabled: !page.model.loading
                    text: page.loadMoreText
                    onClicked: page.loadMoreRequested()
                }
            }
        }
        DataTable {
            Layout.fillWidth: true
            Layout.fillHeight: true
            model: page.model
            exportName: page.exportName
            onExportRequested: Desk.exportTable(page.model, page.exportName)
        }
    }
}
