// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.Ui

/*! One show in the till's list: time, film, screen, seats left as a bar. */
Rectangle {
    id: row
    required property int index
    required property var time_text
    required property var title
    required property var screen_name
    required property var seats_left
    required property var seats_total
    property bool current: false
    signal picked()
    readonly property real fill: seats_total > 0 ? 1 - seats_left / seats_total : 0
    readonly property bool soldOut: seats_left === 0
    height: 84
    radius: Pos.radius
    color: current ? "#231B3A" : (mouse.containsMouse ? Pos.panelRaised : "transparent")
    border.width: current ? 2 : 0
    border.color: Theme.accent
    Accessible.role: Accessible.ListItem
    Accessible.name: qsTr("%1 %2, %3 seats left").arg(time_text).arg(title).arg(seats_left)

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: 14
        anchors.rightMargin: 14
        spacing: 14
        Text {
            Layout.preferredWidth: 70
            text: row.time_text
            font.pixelSize: 24; font.bold: true; font.family: Theme.fontFamily
            color: row.current ? Theme.text : Theme.textMuted
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 4
            Text { Layout.fillWidth: true; text: row.title; elide: Text.ElideRight; font.pixelSize: Pos.fontBody + 1; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
            Text { text: row.screen_name; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
            Rectangle {
                Layout.fillWidth: true
                height: 5; radius: 3
                color: "#0B1020"
                Rectangle {
                    width: parent.width * row.fill; height: parent.height; radius: 3
                    color: row.fill > 0.85 ? Theme.danger : row.fill > 0.6 ? Theme.warning : Theme.success
                }
            }
        }
        Column {
            Layout.preferredWidth: 64
            Text { anchors.right: parent.right; text: row.soldOut ? qsTr("Full") : row.seats_left; font.pixelSize: 20; font.bold: true; font.family: Theme.fontFamily; color: row.soldOut ? Theme.danger : Theme.text }
            Text { anchors.right: parent.right; text: qsTr("left"); visible: !row.soldOut; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
        }
    }
    MouseArea { id: mouse; anchors.fill: parent; hoverEnabled: true; onClicked: row.picked() }
}
