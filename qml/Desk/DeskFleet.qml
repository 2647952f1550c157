// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Kiosk and till fleet: last heartbeat, offline queue length, printer state, version. */
ColumnLayout {
    spacing: 20
    readonly property var healths: { Desk.devices.count; return Desk.devices.values("health") }
    RowLayout {
        Layout.fillWidth: true
        spacing: 20
        StatTile { Layout.fillWidth: true; label: qsTr("Healthy"); value: String(parent.parent.healths.filter(h => h === "healthy").length); accentColor: Theme.success }
        StatTile { Layout.fillWidth: true; label: qsTr("Need attention"); value: String(parent.parent.healths.filter(h => h === "attention").length); caption: qsTr("printer problem or queued sales"); accentColor: Theme.warning }
        StatTile { Layout.fillWidth: true; label: qsTr("Offline"); value: String(parent.parent.healths.filter(h => h === "offline").length); caption: qsTr("no heartbeat for 2 minutes"); accentColor: Theme.danger }
        StatTile { Layout.fillWidth: true; label: qsTr("Devices"); value: String(Desk.devices.count); accentColor: Pos.info }
    }
    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        title: qsTr("Devices")
        DataTable {
            anchors.fill: parent
            model: Desk.devices
            exportName: "fleet"
            onExportRequested: Desk.exportTable(Desk.devices, "fleet")
        }
    }
}
