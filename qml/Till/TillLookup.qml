// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Find a booking by its reference, by the customer's phone or e-mail, or scan a ticket (a USB scanner types the
    MQ1… code and Enter: the ticket is checked in at the door). Refund (F8) within policy, or with a manager's authorisation and a reason; reprint (F7). */
Item {
    id: screen
    focus: true
    onActiveFocusChanged: if (activeFocus) search.forceActiveFocus()
    readonly property var booking: Till.booking
    readonly property bool found: booking.booking_ref !== undefined
    Keys.onPressed: event => {
        if (event.key === Qt.Key_F7) { Till.reprintBooking(); event.accepted = true }
        else if (event.key === Qt.Key_F8) { Till.cancelBooking(reason.text); event.accepted = true }
        else if (event.key === Qt.Key_Escape) { Till.back(); event.accepted = true }
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: 20
        spacing: 20

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 20
            Card {
                Layout.fillWidth: true
                Layout.preferredHeight: Till.matches.length > 0 ? 250 : 190
                title: qsTr("Find a booking")
                subtitle: qsTr("Type the booking reference, the customer's phone or e-mail, or scan a ticket's QR code, then Enter.")
                ColumnLayout {
                    anchors.fill: parent
                    spacing: 10
                    SField {
                        id: search
                        objectName: "lookupField"
                        Layout.fillWidth: true
                        large: true
                        placeholderText: qsTr("Reference, phone, e-mail or scan…")
                        // Cleared after every Enter: the next scan or reference starts on an empty field.
                        onAccepted: { Till.find(text); text = "" }
                        Keys.onPressed: event => {
                            if (event.key === Qt.Key_F7) { Till.reprintBooking(); event.accepted = true }
                            else if (event.key === Qt.Key_F8) { Till.cancelBooking(reason.text); event.accepted = true }
                            else if (event.key === Qt.Key_Escape) { Till.back(); event.accepted = true }
                        }
                    }
                    StatusBar { Layout.fillWidth: true; text: Till.message; error: Till.messageIsError }
                    // Several bookings for one phone or e-mail: pick one.
                    Flow {
                        Layout.fillWidth: true
                        visible: Till.matches.length > 0
                        spacing: 8
                        Repeater {
                            model: Till.matches
                            SButton {
                                required property var modelData
                                required property int index
                                objectName: "match" + index
                                text: modelData.label
                                onClicked: Till.openBooking(modelData.booking_id)
                            }
                        }
                    }
                }
            }
            Card {
                Layout.fillWidth: true
                Layout.fillHeight: true
                title: screen.found ? qsTr("Booking %1").arg(screen.booking.booking_ref) : qsTr("Booking")
                subtitle: screen.found ? qsTr("Booked %1").arg(screen.booking.created) : ""
                ColumnLayout {
                    anchors.fill: parent
                    spacing: 14
                    visible: screen.found
                    RowLayout {
                        spacing: 12
                        Rectangle {
                            radius: 13; height: 26; width: stateLabel.implicitWidth + 24
                            color: screen.booking.cancelled ? "#3A1820" : "#123326"
                            Text { id: stateLabel; anchors.centerIn: parent; text: screen.booking.cancelled ? qsTr("CANCELLED") : qsTr("VALID"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: screen.booking.cancelled ? Theme.danger : Theme.success }
                        }
                        Text { text: screen.booking.title || ""; font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                    }
                    GridLayout {
                        columns: 2
                        columnSpacing: 30
                        rowSpacing: 10
                        Text { text: qsTr("Show"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        Text { text: screen.booking.show || ""; font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.text }
                        Text { text: qsTr("Seats"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        Text { text: screen.booking.seats || ""; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                        Text { text: qsTr("Paid"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        Text { text: screen.booking.amount || ""; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold }
                        Text { text: qsTr("Tickets"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        Text { text: screen.booking.cancelled ? qsTr("revoked") : qsTr("%n valid", "", screen.booking.tickets || 0); font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.text }
                        Text { visible: screen.booking.cancelled === true; text: qsTr("Reason"); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        Text { visible: screen.booking.cancelled === true; text: screen.booking.cancel_reason || "—"; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text }
                    }
                    Rectangle { Layout.fillWidth: true; height: 1; color: Pos.line; visible: !screen.booking.cancelled }
                    Text { visible: !screen.booking.cancelled; text: qsTr("REFUND"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    SField {
                        id: reason
                        objectName: "refundReason"
                        visible: !screen.booking.cancelled
                        Layout.fillWidth: true
                        placeholderText: screen.booking.needs_override ? qsTr("Reason (required for a manager override)") : qsTr("Reason (optional)")
                    }
                    RowLayout {
                        visible: screen.booking.needs_override === true && !screen.booking.cancelled
                        Layout.fillWidth: true
                        spacing: 10
                        Rectangle { width: 4; Layout.fillHeight: true; radius: 2; color: Theme.warning }
                        SField { id: managerName; objectName: "managerName"; Layout.preferredWidth: 200; placeholderText: qsTr("Manager name") }
                        SField { id: managerPassword; objectName: "managerPassword"; Layout.preferredWidth: 200; placeholderText: qsTr("Manager password"); echoMode: TextInput.Password
                                 onAccepted: Till.overrideCancel(managerName.text, text, reason.text) }
                        SButton { objectName: "overrideButton"; primary: true; accentColor: Theme.warning; text: qsTr("Authorise refund"); onClicked: Till.overrideCancel(managerName.text, managerPassword.text, reason.text) }
                    }
                    RowLayout {
                        visible: !screen.booking.cancelled
                        spacing: 12
                        SButton { objectName: "refundButton"; danger: true; text: qsTr("Cancel and refund"); keyHint: "F8"; enabled: !Till.busy; onClicked: Till.cancelBooking(reason.text) }
                        SButton { objectName: "reprintButton"; text: qsTr("Reprint tickets"); keyHint: "F7"; enabled: !Till.busy; onClicked: Till.reprintBooking() }
                    }
                    Item { Layout.fillHeight: true }
                }
                Text {
                    anchors.centerIn: parent
                    visible: !screen.found
                    text: qsTr("Nothing looked up yet.")
                    font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: "#6B7597"
                }
            }
        }

        Card {
            Layout.preferredWidth: 520
            Layout.fillHeight: true
            title: qsTr("Door check-in")
            subtitle: qsTr("Scan tickets into the field on the left; the answer shows here.")
            readonly property var scan: Till.checkin
            ColumnLayout {
                anchors.fill: parent
                spacing: 16
                Rectangle {
                    Layout.fillWidth: true
                    Layout.preferredHeight: 260
                    radius: Pos.radiusLarge
                    readonly property var scan: Till.checkin
                    readonly property bool has: scan.result !== undefined
                    color: !has ? Pos.field : scan.ok ? "#10261C" : "#2E1820"
                    border.width: has ? 2 : 1
                    border.color: !has ? Pos.line : scan.ok ? Theme.success : Theme.danger
                    Column {
                        anchors.centerIn: parent
                        spacing: 10
                        Text {
                            anchors.horizontalCenter: parent.horizontalCenter
                            text: !parent.parent.has ? "—" : parent.parent.scan.ok ? "✓" : "✕"
                            font.pixelSize: 72; font.bold: true
                            color: !parent.parent.has ? "#3B4566" : parent.parent.scan.ok ? Theme.success : Theme.danger
                        }
                        Text {
                            objectName: "checkinText"
                            anchors.horizontalCenter: parent.horizontalCenter
                            text: parent.parent.has ? parent.parent.scan.text : qsTr("Waiting for a scan")
                            font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily
                            color: Theme.text
                        }
                        Text {
                            anchors.horizontalCenter: parent.horizontalCenter
                            visible: parent.parent.has && (parent.parent.scan.seat || "").length > 0
                            text: qsTr("Seat %1 · %2").arg(parent.parent.scan.seat || "").arg(parent.parent.scan.show || "")
                            font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.textMuted
                        }
                        Text {
                            anchors.horizontalCenter: parent.horizontalCenter
                            visible: parent.parent.has && parent.parent.scan.result === "already_redeemed"
                            text: qsTr("First scanned at %1").arg(parent.parent.scan.first_scanned || "")
                            font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.warning
                        }
                    }
                }
                Text {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("A scanner types like a keyboard: keep the cursor in the search field. Each code is checked by the server once; a second scan of the same ticket shows when it was first used.")
                    font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted
                }
                Item { Layout.fillHeight: true }
            }
        }
    }
}
