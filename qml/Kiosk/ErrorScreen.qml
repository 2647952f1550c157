// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Something could not be finished (seats lost during payment, terminal broken): what happened and what next. */
Rectangle {
    color: Theme.background
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Sorry!")
            font.pixelSize: Theme.fontDisplay; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            Accessible.role: Accessible.Heading
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: Kiosk.message
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        KButton { Layout.alignment: Qt.AlignHCenter; primary: true; text: qsTr("Start again"); onClicked: Kiosk.resetToAttract() }
    }
}
