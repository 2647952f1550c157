// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.Ui

/*! A friendly sentence about what just happened, with an icon so it does not rely on colour. */
Rectangle {
    id: banner
    property string text
    property bool warning: true
    visible: text.length > 0
    implicitHeight: visible ? label.implicitHeight + 2 * Theme.spaceM : 0
    radius: Theme.radiusSmall
    color: warning ? "#3A2A10" : "#10302A"
    border.color: warning ? Theme.warning : Theme.success
    border.width: 2
    Accessible.role: Accessible.AlertMessage
    Accessible.name: text

    Text {
        id: label
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.verticalCenter: parent.verticalCenter
        anchors.margins: Theme.spaceM
        text: (banner.warning ? "⚠  " : "✓  ") + banner.text
        wrapMode: Text.WordWrap
        font.pixelSize: Theme.fontBody
        font.family: Theme.fontFamily
        color: Theme.text
    }
}
