// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.Ui

/*! One line of news for the person at the screen; red when something went wrong. */
Rectangle {
    id: bar
    property string text: ""
    property bool error: false
    visible: text.length > 0
    implicitHeight: visible ? Math.max(40, label.implicitHeight + 16) : 0
    radius: Pos.radius
    color: error ? "#3A1820" : "#14283A"
    border.width: 1
    border.color: error ? Qt.darker(Theme.danger, 1.2) : "#1F4E6E"
    Accessible.role: Accessible.AlertMessage
    Accessible.name: text
    Rectangle { width: 8; height: 8; radius: 4; x: 14; anchors.verticalCenter: parent.verticalCenter; color: bar.error ? Theme.danger : Pos.cyan }
    Text {
        id: label
        anchors.verticalCenter: parent.verticalCenter
        x: 32
        width: parent.width - 44
        text: bar.text
        wrapMode: Text.Wrap
        font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
        color: bar.error ? "#FFB4AE" : "#BFE6FF"
    }
}
