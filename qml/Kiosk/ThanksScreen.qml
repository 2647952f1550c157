// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Done: take the tickets. Returns to the attract screen by itself. */
Rectangle {
    color: Theme.background
    Timer { interval: 20000; running: true; onTriggered: Kiosk.finish() }
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: "✓"
            font.pixelSize: 140; font.family: Theme.fontFamily
            color: Theme.success
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: qsTr("Enjoy the show!")
            font.pixelSize: Theme.fontDisplay; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            Accessible.role: Accessible.Heading
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: qsTr("Please take your tickets and receipt below.")
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Booking reference %1").arg(Kiosk.bookingRef)
            font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
            color: Theme.gold
        }
        KButton { Layout.alignment: Qt.AlignHCenter; primary: true; text: qsTr("Done"); implicitWidth: 320; onClicked: Kiosk.finish() }
    }
}
