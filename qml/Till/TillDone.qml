// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The sale is booked: change due in big type, the booking reference, what printed. Enter starts the next sale;
    P asks to print the tickets again and P once more prints them (reissued: the first codes stop admitting);
    Esc or Enter while it asks keeps them. */
Item {
    id: screen
    focus: true
    readonly property var sale: Till.lastSale
    Keys.onPressed: event => {
        const asking = Till.reprintQuestion.length > 0
        if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter || event.key === Qt.Key_Escape || event.key === Qt.Key_Space) {
            // While it asks, these keep the printed tickets: never a reprint by a key meant for the next sale.
            if (asking)
                Till.cancelReprint()
            else
                Till.newSale()
            event.accepted = true
        } else if (event.key === Qt.Key_P) {
            Till.printAgain(); event.accepted = true
        }
    }

    Rectangle {
        width: 760
        height: column.implicitHeight + 80
        anchors.centerIn: parent
        radius: 22
        color: Pos.panel
        border.width: 1
        border.color: Pos.line
        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 40
            spacing: 14
            Row {
                spacing: 14
                Rectangle {
                    width: 48; height: 48; radius: 24; color: "#123326"
                    Text { anchors.centerIn: parent; text: "✓"; font.pixelSize: 26; font.bold: true; color: Theme.success }
                }
                Column {
                    anchors.verticalCenter: parent.verticalCenter
                    Text { text: qsTr("Sold · %n ticket(s)", "", screen.sale.count || 0); font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                    Text { text: (screen.sale.title || "") + " · " + (screen.sale.show || ""); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                }
            }
            Rectangle {
                visible: (screen.sale.cash_part_minor || 0) > 0
                Layout.fillWidth: true
                Layout.topMargin: 10
                Layout.preferredHeight: 170
                radius: Pos.radiusLarge
                color: "#10261C"
                border.width: 1
                border.color: "#1F6B47"
                Column {
                    anchors.centerIn: parent
                    spacing: 2
                    Text { anchors.horizontalCenter: parent.horizontalCenter; text: qsTr("GIVE CHANGE"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1.5; font.family: Theme.fontFamily; color: "#7FD9A8" }
                    Text { objectName: "doneChange"; anchors.horizontalCenter: parent.horizontalCenter; text: screen.sale.change || ""; font.pixelSize: 80; font.bold: true; font.family: Theme.fontFamily; color: Theme.success }
                    Text { anchors.horizontalCenter: parent.horizontalCenter; text: qsTr("%1 tendered for %2").arg(screen.sale.tendered || "").arg(screen.sale.method === "split" ? qsTr("the cash part %1").arg(screen.sale.cash_part || "") : (screen.sale.total || "")); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: "#7FD9A8" }
                }
            }
            GridLayout {
                Layout.fillWidth: true
                Layout.topMargin: 8
                columns: 2
                columnSpacing: 24
                rowSpacing: 8
                Text { text: qsTr("Booking"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text { objectName: "doneRef"; text: screen.sale.booking_ref || ""; font.pixelSize: Pos.fontTitle; font.bold: true; font.letterSpacing: 2; font.family: Theme.fontFamily; color: Theme.text }
                Text { text: qsTr("Seats"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text { text: screen.sale.seats || ""; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                Text { text: qsTr("Paid"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text { text: (screen.sale.total || "") + " · " + (screen.sale.paid_with || ""); font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.text }
                Text { text: qsTr("Printed"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                Text {
                    Layout.fillWidth: true
                    text: Till.printMessage.length > 0 ? Till.printMessage : qsTr("Tickets and receipt")
                    wrapMode: Text.Wrap
                    font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
                    color: Till.printMessage.length > 0 ? Theme.danger : Theme.success
                }
            }
            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: 16
                spacing: 12
                SButton { objectName: "printAgainButton"; text: qsTr("Print again"); keyHint: "P"; enabled: !Till.busy; onClicked: Till.printAgain() }
                Item { Layout.fillWidth: true }
                SButton { objectName: "newSaleButton"; large: true; primary: true; text: qsTr("Next sale"); keyHint: "Enter"; onClicked: Till.newSale() }
            }
            // An offline sale: journaled and printed here, booked on the server when the link is back.
            StatusBar {
                objectName: "doneOffline"
                Layout.fillWidth: true
                text: screen.sale.offline ? qsTr("Sold offline from this till's leased seats (sale %1): it is reported to the server, and booked, when the link is back.").arg(screen.sale.device_seq) : ""
            }
            // Printing again revokes the customer's codes: asked first, naming the tickets.
            StatusBar {
                objectName: "reprintQuestion"
                Layout.fillWidth: true
                visible: Till.reprintQuestion.length > 0
                text: Till.reprintQuestion
                error: true
            }
            RowLayout {
                Layout.fillWidth: true
                visible: Till.reprintQuestion.length > 0
                spacing: 12
                Item { Layout.fillWidth: true }
                SButton { objectName: "keepTicketsButton"; text: qsTr("Keep the tickets"); keyHint: "Esc"; onClicked: Till.cancelReprint() }
                SButton { objectName: "confirmReprintButton"; primary: true; text: qsTr("Print again"); keyHint: "P"; enabled: !Till.busy; onClicked: Till.printAgain() }
            }
            // What printing again did: a reprint reissues the tickets, so the first codes stop admitting.
            StatusBar { objectName: "doneMessage"; Layout.fillWidth: true; text: Till.message; error: Till.messageIsError }
        }
    }
}
