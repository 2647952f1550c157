// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Done: take the tickets. Says what was booked (film, show time in the venue's zone, screen, seats) and how many
    tickets came out of the printer, then returns to the attract screen by itself. */
Rectangle {
    color: Theme.background
    Timer { interval: 20000; running: true; onTriggered: Kiosk.finish() }
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceL
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: "✓"
            font.pixelSize: 120; font.family: Theme.fontFamily
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
        Rectangle {
            objectName: "thanksBooking"
            Layout.fillWidth: true
            Layout.preferredHeight: details.implicitHeight + 2 * Theme.spaceXl
            radius: Theme.radius
            color: Theme.surface
            border.color: Theme.outline
            border.width: 2
            GridLayout {
                id: details
                anchors.fill: parent
                anchors.margins: Theme.spaceXl
                columns: 2
                columnSpacing: Theme.spaceL
                rowSpacing: Theme.spaceM
                Text {
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    text: Kiosk.bookingTitle
                    wrapMode: Text.WordWrap
                    font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                }
                Text { text: qsTr("Show time"); font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text {
                    objectName: "thanksTime"
                    Layout.fillWidth: true
                    text: Kiosk.bookingTime
                    wrapMode: Text.WordWrap
                    font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                }
                Text { text: qsTr("Screen"); font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text {
                    objectName: "thanksScreen"
                    Layout.fillWidth: true
                    text: Kiosk.bookingScreen
                    wrapMode: Text.WordWrap
                    font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                }
                Text { text: qsTr("Seats"); font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text {
                    objectName: "thanksSeats"
                    Layout.fillWidth: true
                    text: Kiosk.bookingSeats
                    wrapMode: Text.WordWrap
                    font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                }
            }
        }
        Text {
            objectName: "thanksPrinted"
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            // Two messages, not one plural form: English has no catalogue, and "ticket(s)" is not how a cinema writes.
            text: Kiosk.ticketsPrinted === 1 ? qsTr("1 ticket printed. Please take it and your receipt below.")
                                             : qsTr("%1 tickets printed. Please take them and your receipt below.").arg(Kiosk.ticketsPrinted)
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
