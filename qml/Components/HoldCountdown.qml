// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.App
import Marquee.Ui

/*! How long the seats stay held: a pill with m:ss that turns amber in the last minute. */
Rectangle {
    id: badge
    readonly property int seconds: Kiosk.holdSecondsLeft
    implicitWidth: label.implicitWidth + 2 * Theme.spaceL
    implicitHeight: Theme.touchMin + Theme.spaceS
    radius: height / 2
    color: Kiosk.holdWarning ? Theme.warning : Theme.surfaceRaised
    border.color: Kiosk.holdWarning ? Theme.warning : Theme.outline
    border.width: 2
    Accessible.role: Accessible.StaticText
    Accessible.name: label.text

    Text {
        id: label
        anchors.centerIn: parent
        text: qsTr("Seats held %1").arg(Math.floor(badge.seconds / 60) + ":" + String(badge.seconds % 60).padStart(2, "0"))
        font.pixelSize: Theme.fontBody
        font.bold: true
        font.family: Theme.fontFamily
        color: Kiosk.holdWarning ? "#1A1200" : Theme.text
    }
    SequentialAnimation on opacity {
        running: Kiosk.holdWarning
        loops: Animation.Infinite
        NumberAnimation { to: 0.55; duration: 600 }
        NumberAnimation { to: 1.0; duration: 600 }
        onRunningChanged: if (!running) badge.opacity = 1
    }
}
