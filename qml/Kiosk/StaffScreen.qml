// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Staff only (after the PIN). Works offline: the connection and queue, the last reconciliation report, bookings
    waiting for their tickets, a booking lookup and reprint from the journal, and check-in at the door. */
Rectangle {
    id: screen
    property bool portrait: false
    color: Theme.background

    ScreenHeader {
        id: header
        anchors.left: parent.left
        anchors.right: parent.right
        title: qsTr("Staff")
        subtitle: Kiosk.online ? qsTr("Online · %n action(s) waiting", "", Kiosk.pendingActions)
                               : qsTr("Offline · %n action(s) waiting", "", Kiosk.pendingActions)
        onBackClicked: Kiosk.back()
    }

    Flickable {
        anchors.top: header.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        contentHeight: content.implicitHeight + 2 * Theme.spaceL
        clip: true

        GridLayout {
            id: content
            x: Theme.spaceL
            y: Theme.spaceL
            width: parent.width - 2 * Theme.spaceL
            columns: screen.portrait ? 1 : 2
            columnSpacing: Theme.spaceL
            rowSpacing: Theme.spaceL

            // --- reconciliation -------------------------------------------------------------------------
            Panel {
                title: qsTr("Reconciliation with the server")
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spaceS
                    Text {
                        Layout.fillWidth: true
                        wrapMode: Text.WordWrap
                        readonly property var r: Kiosk.reconciliation
                        readonly property var sum: r.summary || ({})
                        text: Kiosk.reconciling ? qsTr("Comparing the journals with the server…")
                              : r.finished_text === undefined ? qsTr("Not run yet: it runs after every reconnect.")
                              : qsTr("Last run %1%2.\nTickets: %3 confirmed, %4 voided, %5 unknown.\nPayments: %6 confirmed, %7 refund due, %8 pending.")
                                    .arg(r.finished_text).arg(r.complete ? "" : qsTr(" (incomplete: the server did not answer every question)"))
                                    .arg(sum.tickets_confirmed || 0).arg(sum.tickets_voided || 0).arg(sum.tickets_unknown || 0)
                                    .arg(sum.payments_confirmed || 0).arg(sum.payments_refund_due || 0).arg(sum.payments_pending || 0)
                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.text
                    }
                    // In a Column, not straight in the layout: Qt 6.4 layouts can rearrange with a destroyed delegate
                    Column {
                        Layout.fillWidth: true
                        spacing: Theme.spaceS
                        Repeater {
                            model: Kiosk.reconciliation.lines || []
                            Text {
                                required property var modelData
                                width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                                wrapMode: Text.WordWrap
                                text: "• " + modelData.what + " " + modelData.ref + " — " + modelData.state_text + (modelData.reason ? ": " + modelData.reason : "")
                                font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily
                                color: modelData.state === "voided" || modelData.state === "refund_due" ? Theme.warning : Theme.textMuted
                            }
                        }
                    }
                    KButton { text: qsTr("Run now"); enabled: Kiosk.online && !Kiosk.reconciling; onClicked: Kiosk.reconcileNow() }
                }
            }

            // --- tickets waiting for a print -----------------------------------------------------------------
            Panel {
                title: qsTr("Tickets waiting to be printed")
                Column {
                    Layout.fillWidth: true
                    spacing: Theme.spaceS
                    Text {
                        visible: Kiosk.uncollected.length === 0
                        text: qsTr("None.")
                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
                    }
                    Repeater {
                        model: Kiosk.uncollected
                        Item {
                            required property var modelData
                            width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                            height: Math.max(uncollectedText.implicitHeight, printButton.implicitHeight)
                            Text {
                                id: uncollectedText
                                anchors.left: parent.left
                                anchors.right: printButton.left
                                anchors.rightMargin: Theme.spaceS
                                anchors.verticalCenter: parent.verticalCenter
                                wrapMode: Text.WordWrap
                                text: modelData.ref + " · " + modelData.title + " · " + qsTr("%n seat(s)", "", modelData.seats) + "\n" + modelData.reason
                                font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.text
                            }
                            KButton {
                                id: printButton
                                anchors.right: parent.right
                                anchors.verticalCenter: parent.verticalCenter
                                text: qsTr("Print")
                                onClicked: Kiosk.reprintBooking(modelData.ref)
                            }
                        }
                    }
                }
            }

            // --- lookup and reprint --------------------------------------------------------------------------
            Panel {
                title: qsTr("Find a booking printed here")
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spaceS
                    RowLayout {
                        Layout.fillWidth: true
                        TextField {
                            id: ref
                            Layout.fillWidth: true
                            implicitHeight: Theme.touch
                            placeholderText: qsTr("Booking reference")
                            font.pixelSize: Theme.fontBody
                            inputMethodHints: Qt.ImhUppercaseOnly | Qt.ImhNoPredictiveText
                            Accessible.name: qsTr("Booking reference")
                            onAccepted: Kiosk.lookupBooking(text)
                        }
                        KButton { text: qsTr("Find"); onClicked: Kiosk.lookupBooking(ref.text) }
                    }
                    Text {
                        Layout.fillWidth: true
                        visible: Kiosk.lookup.ref !== undefined
                        wrapMode: Text.WordWrap
                        text: !Kiosk.lookup.found ? qsTr("No booking %1 in this kiosk's journal.").arg(Kiosk.lookup.ref)
                              : Kiosk.lookup.ref + " · " + (Kiosk.lookup.title || "") + " · " + (Kiosk.lookup.when || "") + "\n"
                                + (Kiosk.lookup.tickets || []).map(t => t.seat + " (" + t.state_text + (t.reprints > 0 ? ", " + qsTr("%n reprint(s)", "", t.reprints) : "") + ")").join(", ")
                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.text
                    }
                    KButton {
                        visible: Kiosk.lookup.found === true
                        text: qsTr("Reprint")
                        onClicked: Kiosk.reprintBooking(Kiosk.lookup.ref)
                    }
                    Text {
                        Layout.fillWidth: true
                        visible: text.length > 0
                        wrapMode: Text.WordWrap
                        text: Kiosk.printMessage
                        font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily; color: Theme.gold
                    }
                }
            }

            // --- check-in ------------------------------------------------------------------------------------
            Panel {
                title: qsTr("Check-in at the door")
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.spaceS
                    RowLayout {
                        Layout.fillWidth: true
                        TextField {
                            id: scan
                            Layout.fillWidth: true
                            implicitHeight: Theme.touch
                            placeholderText: qsTr("Scan or type a ticket code")
                            font.pixelSize: Theme.fontBody
                            inputMethodHints: Qt.ImhNoPredictiveText
                            Accessible.name: qsTr("Ticket code")
                            onAccepted: { Kiosk.checkIn(text); text = "" }
                        }
                        KButton { text: qsTr("Check"); onClicked: { Kiosk.checkIn(scan.text); scan.text = "" } }
                    }
                    Text {
                        Layout.fillWidth: true
                        visible: Kiosk.checkin.result !== undefined
                        wrapMode: Text.WordWrap
                        text: (Kiosk.checkin.admit ? "✔ " : "✖ ") + (Kiosk.checkin.text || "") + (Kiosk.checkin.seat ? " · " + Kiosk.checkin.seat : "")
                        font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
                        color: Kiosk.checkin.admit ? Theme.success : Theme.danger
                    }
                }
            }

            RowLayout {
                Layout.fillWidth: true
                Layout.columnSpan: screen.portrait ? 1 : 2
                KButton { text: qsTr("Back to customers"); primary: true; onClicked: Kiosk.resetToAttract() }
                Item { Layout.fillWidth: true }
                KButton { text: qsTr("Exit kiosk"); danger: true; onClicked: Kiosk.leaveKiosk() }
            }
        }
    }

    /*! A titled panel of the staff screen. */
    component Panel: Rectangle {
        id: card
        property string title
        default property alias content: body.data
        Layout.fillWidth: true
        Layout.alignment: Qt.AlignTop
        implicitHeight: body.implicitHeight + heading.implicitHeight + 3 * Theme.spaceM
        radius: Theme.radius
        color: Theme.surface
        border.color: Theme.outline
        border.width: 2
        Text {
            id: heading
            x: Theme.spaceM; y: Theme.spaceM
            text: card.title
            font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
        }
        ColumnLayout {
            id: body
            anchors.top: heading.bottom
            anchors.left: parent.left
            anchors.right: parent.right
            anchors.margins: Theme.spaceM
        }
    }
}
