// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The server cannot be reached: nothing is sold. The kiosk keeps trying in the background. */
Rectangle {
    color: Theme.background
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: "⚠"
            font.pixelSize: 120; font.family: Theme.fontFamily
            color: Theme.warning
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: qsTr("This kiosk is offline, please visit the box office.")
            font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            Accessible.role: Accessible.AlertMessage
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: qsTr("We are sorry. No tickets can be sold here until the connection is back; we will keep trying.")
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        KButton { Layout.alignment: Qt.AlignHCenter; text: qsTr("Try again now"); onClicked: Kiosk.start() }
    }
}
