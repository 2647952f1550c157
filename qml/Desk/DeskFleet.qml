// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Kiosk and till fleet: last heartbeat, offline queue length, printer state, version, what each kiosk's latest
    reconciliation with the server found (sent with its heartbeat), and the payments the server's own reconciler
    still has open (GET /api/v1/reports/reconciliation). */
ColumnLayout {
    id: screen
    spacing: 20
    /*! A reconciliation state as the kiosk reports it ("refund_due"), for the manager. */
    function stateText(state) {
        switch (state) {
        case "refund_due": return qsTr("refund due")
        case "voided": return qsTr("voided")
        case "unknown": return qsTr("unknown")
        case "pending": return qsTr("pending")
        case "confirmed": return qsTr("confirmed")
        default: return state.replace("_", " ")
        }
    }
    readonly property var healths: { Desk.devices.count; return Desk.devices.values("health") }
    RowLayout {
        Layout.fillWidth: true
        spacing: 20
        StatTile { Layout.fillWidth: true; label: qsTr("Healthy"); value: String(parent.parent.healths.filter(h => h === "healthy").length); accentColor: Theme.success }
        StatTile { Layout.fillWidth: true; label: qsTr("Need attention"); value: String(parent.parent.healths.filter(h => h === "attention").length); caption: qsTr("printer problem or queued sales"); accentColor: Theme.warning }
        StatTile { Layout.fillWidth: true; label: qsTr("Offline"); value: String(parent.parent.healths.filter(h => h === "offline").length); caption: qsTr("no heartbeat for 2 minutes"); accentColor: Theme.danger }
        StatTile { Layout.fillWidth: true; label: qsTr("Devices"); value: String(Desk.devices.count); accentColor: Pos.info }
        StatTile { objectName: "awaitingReconciliationTile"; Layout.fillWidth: true; label: qsTr("Awaiting reconciliation"); value: String(Desk.reconciliation.count); caption: qsTr("payments open on the server"); accentColor: Desk.reconciliation.count > 0 ? Theme.warning : Theme.success }
        StatTile { objectName: "reconciliationProblemsTile"; Layout.fillWidth: true; label: qsTr("Reconciliation problems"); value: String(Desk.reconciliationProblems.length); caption: qsTr("from the kiosks' own checks"); accentColor: Desk.reconciliationProblems.length > 0 ? Theme.warning : Theme.success }
    }
    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        title: qsTr("Devices")
        DataTable {
            anchors.fill: parent
            model: Desk.devices
            exportName: "fleet"
            emptyText: qsTr("No device has sent a heartbeat yet.")
            onExportRequested: Desk.exportTable(Desk.devices, "fleet")
        }
    }
    Card {
        objectName: "awaitingReconciliationCard"
        Layout.fillWidth: true
        Layout.preferredHeight: 240
        title: qsTr("Payments awaiting reconciliation — orders the server's reconciler has not settled yet")
        DataTable {
            anchors.fill: parent
            model: Desk.reconciliation
            exportName: "reconciliation"
            // This list is what is open now, whatever the date range.
            emptyText: qsTr("No payments awaiting reconciliation.")
            onExportRequested: Desk.exportTable(Desk.reconciliation, "reconciliation")
        }
    }
    Card {
        objectName: "reconciliationCard"
        Layout.fillWidth: true
        Layout.preferredHeight: 220
        title: qsTr("Reconciliation — what the kiosks' latest comparisons with the server left for a person")
        ColumnLayout {
            anchors.fill: parent
            spacing: 6
            Text {
                visible: Desk.reconciliationProblems.length === 0
                text: qsTr("Nothing to do: every printed ticket and approved payment the kiosks reported is confirmed.")
                font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
            }
            Flickable {
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                contentHeight: problemList.height
                // A plain Column between the layout and the Repeater (the Qt 6.4 layout use-after-free, see DeskOccupancy).
                Column {
                    id: problemList
                    width: parent.width
                    spacing: 6
                    Repeater {
                        model: Desk.reconciliationProblems
                        delegate: RowLayout {
                            required property var modelData
                            width: problemList.width
                            spacing: 12
                            Rectangle { width: 12; height: 12; radius: 3; color: modelData.state === "refund_due" || modelData.state === "voided" ? Theme.warning : Theme.textMuted }
                            Text { Layout.preferredWidth: 160; text: modelData.device; elide: Text.ElideRight; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                            Text { Layout.preferredWidth: 90; text: modelData.kind; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text }
                            Text { Layout.preferredWidth: 110; text: screen.stateText(modelData.state); font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                            Text { Layout.preferredWidth: 110; text: modelData.booking_ref; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text }
                            Text { Layout.fillWidth: true; text: modelData.reason + " · " + modelData.finished; elide: Text.ElideRight; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        }
                    }
                }
            }
        }
    }
}
