// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Occupancy per show, and for the chosen show a heat map on its seat map: which seats sold first. */
RowLayout {
    id: page
    spacing: 20
    Component.onCompleted: if (Desk.occupancy.show_id === undefined && Desk.shows.count > 0) Desk.openOccupancy(Desk.shows.rowAt(0).show_id)

    Card {
        Layout.preferredWidth: 760
        Layout.fillHeight: true
        title: qsTr("Shows")
        subtitle: qsTr("Click a show for its heat map")
        DataTable {
            anchors.fill: parent
            model: Desk.shows
            exportName: "occupancy"
            // What occupancy needs, in the card's width (the Shows page has every column).
            visibleKeys: ["title", "starts_at", "sold", "capacity", "occupancy"]
            onRowClicked: row => Desk.openOccupancy(row.show_id)
            onExportRequested: Desk.exportTable(Desk.shows, "occupancy")
        }
    }
    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        title: Desk.occupancy.title || qsTr("Heat map")
        subtitle: Desk.occupancy.capacity !== undefined
                  ? qsTr("%1 of %2 seats sold (%3%) · %4 held · %5 house").arg(Desk.occupancy.sold).arg(Desk.occupancy.capacity).arg(Desk.occupancy.percent).arg(Desk.occupancy.held).arg(Desk.occupancy.house_held)
                  : qsTr("Choose a show")
        ColumnLayout {
            anchors.fill: parent
            spacing: 14
            Rectangle {
                Layout.fillWidth: true
                Layout.fillHeight: true
                radius: Pos.radius
                color: Pos.field
                SeatHeatMap {
                    objectName: "heatMap"
                    anchors.fill: parent
                    anchors.margins: 20
                    model: Desk.occupancyMap
                    heat: Desk.heat
                    emptyColor: "#232B45"
                    stageColor: Theme.stage
                }
                Text {
                    anchors.horizontalCenter: parent.horizontalCenter
                    anchors.top: parent.top
                    anchors.topMargin: 6
                    visible: Desk.occupancyMap.seatCount > 0
                    text: Desk.occupancyMap.stageLabel
                    font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 6; font.family: Theme.fontFamily; color: Theme.textMuted
                }
            }
            RowLayout {
                Layout.fillWidth: true
                spacing: 12
                Text { text: qsTr("Sold first"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                Rectangle {
                    Layout.preferredWidth: 280
                    height: 12
                    radius: 6
                    gradient: Gradient {
                        orientation: Gradient.Horizontal
                        GradientStop { position: 0.0; color: "#FF4F5A" }
                        GradientStop { position: 0.5; color: "#F5B82E" }
                        GradientStop { position: 1.0; color: "#3B82F6" }
                    }
                }
                Text { text: qsTr("sold last"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                Item { width: 24 }
                Rectangle { width: 12; height: 12; radius: 3; color: "#232B45" }
                Text { text: qsTr("free"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                Rectangle { width: 12; height: 12; radius: 3; color: "transparent"; border.width: 2; border.color: "#F5B82E" }
                Text { text: qsTr("held"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                Item { Layout.fillWidth: true }
            }
            // House holds: seats kept back for press, guests or a broken seat, until released.
            Rectangle { Layout.fillWidth: true; height: 1; color: Pos.line }
            Text { text: qsTr("HOUSE HOLDS"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
            RowLayout {
                Layout.fillWidth: true
                spacing: 10
                SField { id: houseSeats; objectName: "houseSeatsField"; Layout.preferredWidth: 200; placeholderText: qsTr("seats, e.g. A4 A5") }
                SField { id: houseReason; objectName: "houseReasonField"; Layout.fillWidth: true; placeholderText: qsTr("reason, e.g. director and guests") }
                SButton {
                    objectName: "houseHoldButton"
                    primary: true
                    text: qsTr("Hold for house")
                    enabled: Desk.occupancy.show_id !== undefined && houseSeats.text.length > 0 && houseReason.text.length > 0 && !Desk.busy
                    onClicked: { Desk.placeHouseHold(houseSeats.text, houseReason.text); houseSeats.text = "" }
                }
            }
            // A plain Column between the layout and the Repeater: the list is rebuilt on every change, and Qt 6.4's
            // ColumnLayout can rearrange with a just-destroyed delegate still in its item list (a crash seen when the
            // page was hidden right after a release). The layout sees one stable child instead.
            Column {
                Layout.fillWidth: true
                spacing: 6
                Repeater {
                    model: Desk.houseHolds
                    delegate: RowLayout {
                        required property var modelData
                        width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                        spacing: 12
                        Rectangle { width: 12; height: 12; radius: 3; color: "transparent"; border.width: 2; border.color: "#F5B82E" }
                        Text { text: modelData.seats; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                        Text { Layout.fillWidth: true; text: modelData.reason + " · " + modelData.created; elide: Text.ElideRight; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                        SButton { objectName: "releaseHouseHold"; text: qsTr("Release"); enabled: !Desk.busy; onClicked: Desk.releaseHouseHold(modelData.hold_id, qsTr("released at the desk")) }
                    }
                }
            }
            Text {
                visible: Desk.houseHolds.length === 0 && Desk.occupancy.show_id !== undefined
                text: qsTr("No seats are kept back for this show.")
                font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
            }
        }
    }
}
