// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The card was approved but the server has not confirmed the booking within the customer's patience: the
    confirm stays queued. Should it go through while this screen is up, the tickets print at once. */
Rectangle {
    color: Theme.background
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Your payment is safe")
            font.pixelSize: Theme.fontDisplay; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            wrapMode: Text.WordWrap
            Accessible.role: Accessible.Heading
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: Kiosk.message
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.textMuted
            Accessible.role: Accessible.AlertMessage
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: qsTr("If you wait here a moment, your tickets print as soon as the booking is finished.")
            font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
            color: Theme.gold
        }
        KButton { Layout.alignment: Qt.AlignHCenter; primary: true; text: qsTr("Done"); onClicked: Kiosk.resetToAttract() }
    }
}
