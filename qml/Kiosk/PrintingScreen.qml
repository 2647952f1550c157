// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Tickets on their way out, or what went wrong with the printer (the booking is safe either way). */
Rectangle {
    color: Theme.background
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        BusyIndicator { Layout.alignment: Qt.AlignHCenter; running: Kiosk.printState === "printing"; visible: running }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: Kiosk.printState === "failed" ? qsTr("Your booking is confirmed, but the tickets did not print")
                                                : qsTr("Printing your tickets…")
            font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Booking reference %1").arg(Kiosk.bookingRef)
            font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
            color: Theme.gold
        }
        MessageBanner { Layout.fillWidth: true; text: Kiosk.printMessage }
        RowLayout {
            visible: Kiosk.printState === "failed"
            Layout.alignment: Qt.AlignHCenter
            spacing: Theme.spaceL
            KButton { text: qsTr("Done"); onClicked: Kiosk.finish() }
            KButton { text: qsTr("Print again"); primary: true; onClicked: Kiosk.reprint() }
        }
    }
}
