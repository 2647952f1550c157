// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.Ui

/*! A keycap: shows which key does this. */
Rectangle {
    id: cap
    property alias text: label.text
    property bool inverted: false
    implicitWidth: Math.max(22, label.implicitWidth + 10)
    implicitHeight: 20
    radius: 5
    color: inverted ? Qt.rgba(0, 0, 0, 0.18) : "#0B1020"
    border.width: 1
    border.color: inverted ? Qt.rgba(1, 1, 1, 0.35) : Pos.line
    Text {
        id: label
        anchors.centerIn: parent
        font.pixelSize: 11
        font.bold: true
        font.family: Theme.fontFamily
        color: cap.inverted ? Pos.textOnAccent : Theme.textMuted
    }
}
