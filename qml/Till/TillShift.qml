// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The shift, as the server counts it (/api/v1/shifts): open with the float in the drawer; the running totals; cash
    in and out with a reason; close with the counted cash, which prints the server's Z-report (sales by payment
    method, refunds, voids, expected against counted cash, over/short). */
Item {
    id: screen
    focus: true
    onActiveFocusChanged: if (activeFocus) (Till.shiftOpen ? counted : floatField).forceActiveFocus()
    readonly property var shift: Till.shift
    readonly property var report: Till.zReport
    Keys.onEscapePressed: Till.back()
    // Opening the shift moves the cursor to the count, closing it back to the float.
    // A figure typed for the last open or close is not the next one's: both fields start empty.
    Connections {
        target: Till
        function onShiftChanged() {
            if (Till.shiftOpen) {
                floatField.clear()
                counted.forceActiveFocus()
            } else {
                counted.clear()
                floatField.forceActiveFocus()
            }
        }
    }

    component Line: RowLayout {
        property string label
        property string value
        property bool strong: false
        property color valueColor: Theme.text
        Layout.fillWidth: true
        Text { text: parent.label; Layout.fillWidth: true; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
        Text { text: parent.value; font.pixelSize: parent.strong ? Pos.fontHeading : Pos.fontBody; font.bold: parent.strong; font.family: Theme.fontFamily; color: parent.valueColor }
    }

    component Paper: RowLayout {
        property string label
        property string value
        property bool strong: false
        Layout.fillWidth: true
        Text { text: parent.label; Layout.fillWidth: true; font.pixelSize: Pos.fontBody; font.bold: parent.strong; font.family: "DejaVu Sans Mono"; color: "#111" }
        Text { text: parent.value; font.pixelSize: Pos.fontBody; font.bold: parent.strong; font.family: "DejaVu Sans Mono"; color: "#111" }
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: 20
        spacing: 20

        Card {
            Layout.preferredWidth: 620
            Layout.fillHeight: true
            title: Till.shiftOpen ? qsTr("Shift open since %1").arg(screen.shift.opened_at) : qsTr("Open a shift")
            subtitle: Till.shiftOpen ? qsTr("Count the drawer and close to print the Z-report.") : qsTr("Count the float into the drawer, type it and press Enter.")
            ColumnLayout {
                anchors.fill: parent
                spacing: 14
                StatusBar { Layout.fillWidth: true; text: Till.message; error: Till.messageIsError }
                ColumnLayout {
                    visible: !Till.shiftOpen
                    Layout.fillWidth: true
                    spacing: 10
                    Text { text: qsTr("OPENING FLOAT"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    SField { id: floatField; objectName: "floatField"; Layout.fillWidth: true; large: true; placeholderText: "150.00"; onAccepted: Till.openShift(text) }
                    SButton { objectName: "openShiftButton"; Layout.fillWidth: true; large: true; primary: true; text: qsTr("Open shift"); keyHint: "Enter"; onClicked: Till.openShift(floatField.text) }
                }
                ColumnLayout {
                    visible: Till.shiftOpen
                    Layout.fillWidth: true
                    spacing: 8
                    Line { label: qsTr("Opening float"); value: screen.shift.float || "" }
                    Line { label: qsTr("Cash sales"); value: screen.shift.cash_sales || "" }
                    Line { label: qsTr("Card sales"); value: screen.shift.card_sales || "" }
                    Line { label: qsTr("Cash refunds"); value: screen.shift.cash_refunds || "" }
                    Line { label: qsTr("Card refunds"); value: screen.shift.card_refunds || "" }
                    Line { label: qsTr("Cash in · out"); value: (screen.shift.cash_in || "") + " · " + (screen.shift.cash_out || "") }
                    Line { label: qsTr("Sales · refunds · voids"); value: (screen.shift.sales_count || 0) + " · " + (screen.shift.refund_count || 0) + " · " + (screen.shift.void_count || 0) }
                    Rectangle { Layout.fillWidth: true; height: 1; color: Pos.line }
                    Line { label: qsTr("Expected cash in the drawer"); value: screen.shift.expected_cash || ""; strong: true; valueColor: Theme.gold }
                    Text { Layout.topMargin: 14; text: qsTr("COUNTED CASH"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    SField { id: counted; objectName: "countedField"; Layout.fillWidth: true; large: true; placeholderText: "0.00"; onAccepted: Till.closeShift(text) }
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 12
                        SButton { text: qsTr("Open drawer"); keyHint: "F10"; onClicked: Till.openDrawer() }
                        Item { Layout.fillWidth: true }
                        SButton { objectName: "closeShiftButton"; large: true; primary: true; text: qsTr("Close shift"); keyHint: "Enter"; onClicked: Till.closeShift(counted.text) }
                    }
                    Text { Layout.topMargin: 14; text: qsTr("CASH IN OR OUT"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 10
                        SField { id: moveAmount; objectName: "moveAmountField"; Layout.preferredWidth: 120; placeholderText: "50.00" }
                        SField { id: moveReason; objectName: "moveReasonField"; Layout.fillWidth: true; placeholderText: qsTr("reason, e.g. float top-up") }
                        SButton { objectName: "cashInButton"; text: qsTr("In"); onClicked: Till.moveCash(true, moveAmount.text, moveReason.text) }
                        SButton { objectName: "cashOutButton"; text: qsTr("Out"); onClicked: Till.moveCash(false, moveAmount.text, moveReason.text) }
                    }
                }
                // Offline sales (Till.offline): those the server has not counted yet, and those it refused.
                Line {
                    objectName: "offlineWaiting"
                    visible: Till.offline.waitingCount > 0
                    label: qsTr("Offline sales not on the server's shift yet")
                    value: String(Till.offline.waitingCount)
                    valueColor: Theme.warning
                }
                Repeater {
                    model: Till.offline.refusals
                    Line {
                        required property var modelData
                        label: qsTr("Offline sale %1 refused (%2)").arg(modelData.device_seq).arg(modelData.seats)
                        value: modelData.amount + " · " + modelData.reason
                        valueColor: Theme.danger
                    }
                }
                Item { Layout.fillHeight: true }
            }
        }

        Card {
            Layout.fillWidth: true
            Layout.fillHeight: true
            title: qsTr("Z-report")
            subtitle: screen.report.closed_at ? qsTr("%1 · closed %2").arg(screen.report.staff).arg(screen.report.closed_at) : qsTr("Printed when the shift closes.")
            actions: [ SButton { text: qsTr("Print again"); enabled: screen.report.closed_at !== undefined; onClicked: Till.printZReport() } ]
            Rectangle {
                anchors.fill: parent
                visible: screen.report.closed_at !== undefined
                radius: Pos.radius
                color: "#F7F7F2"
                ColumnLayout {
                    width: Math.min(parent.width - 60, 520)
                    anchors.horizontalCenter: parent.horizontalCenter
                    anchors.top: parent.top
                    anchors.topMargin: 30
                    spacing: 6
                    Text { Layout.alignment: Qt.AlignHCenter; text: qsTr("Z-REPORT"); font.pixelSize: 24; font.bold: true; font.family: "DejaVu Sans Mono"; color: "#111" }
                    Text { Layout.alignment: Qt.AlignHCenter; Layout.bottomMargin: 12; text: (screen.report.opened_at || "") + " – " + (screen.report.closed_at || ""); font.pixelSize: Pos.fontCaption; font.family: "DejaVu Sans Mono"; color: "#444" }
                    Paper { label: qsTr("Sales"); value: screen.report.sales_count !== undefined ? String(screen.report.sales_count) : "" }
                    Paper { label: qsTr("Cash sales"); value: screen.report.cash_sales || "" }
                    Paper { label: qsTr("Card sales"); value: screen.report.card_sales || "" }
                    Paper { label: qsTr("Total sales"); value: screen.report.total_sales || ""; strong: true }
                    Paper { label: qsTr("Refunds"); value: screen.report.refund_count !== undefined ? String(screen.report.refund_count) : "" }
                    Paper { label: qsTr("Cash refunds"); value: screen.report.cash_refunds || "" }
                    Paper { label: qsTr("Card refunds"); value: screen.report.card_refunds || "" }
                    Paper { label: qsTr("Voids"); value: screen.report.void_count !== undefined ? String(screen.report.void_count) : "" }
                    Rectangle { Layout.fillWidth: true; height: 1; color: "#999"; Layout.topMargin: 6; Layout.bottomMargin: 6 }
                    Paper { label: qsTr("Opening float"); value: screen.report.float || "" }
                    Paper { label: qsTr("Cash in"); value: screen.report.cash_in || "" }
                    Paper { label: qsTr("Cash out"); value: screen.report.cash_out || "" }
                    Paper { label: qsTr("Expected cash"); value: screen.report.expected_cash || "" }
                    Paper { label: qsTr("Counted cash"); value: screen.report.counted || "" }
                    Paper { label: qsTr("Over / short"); value: screen.report.over_short || ""; strong: true }
                }
            }
            Text {
                anchors.centerIn: parent
                visible: screen.report.closed_at === undefined
                text: qsTr("No Z-report yet for this till.")
                font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: "#6B7597"
            }
        }
    }
}
