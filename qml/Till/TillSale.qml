// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Selling: today's shows (↑↓), the seat map (click or tap seats, or type a seat such as F7 and Space to pick it,
    or 1–9 for the best N together), the basket, and Enter to hold the seats and take the money. Esc clears the
    selection. */
Item {
    id: screen
    readonly property SeatMapModel seats: Till.seatMap
    /*! A seat being typed: a row letter first (so 1–9 alone still mean "best N"), then its number. */
    property string seatCode: ""
    focus: true

    Keys.onPressed: event => {
        const plain = (event.modifiers & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier)) === 0
        const letter = plain && event.key >= Qt.Key_A && event.key <= Qt.Key_Z
        const digit = plain && event.key >= Qt.Key_0 && event.key <= Qt.Key_9
        if (letter && (screen.seatCode.length === 0 || !/[0-9]/.test(screen.seatCode))) {
            screen.seatCode += String.fromCharCode(event.key) // Qt.Key_A… are the upper-case letters' codes
            event.accepted = true
        } else if (digit && screen.seatCode.length > 0) {
            screen.seatCode += String(event.key - Qt.Key_0)
            event.accepted = true
        } else if (screen.seatCode.length > 0 && (event.key === Qt.Key_Space || event.key === Qt.Key_Return || event.key === Qt.Key_Enter)) {
            Till.pickSeat(screen.seatCode)
            screen.seatCode = ""
            event.accepted = true
        } else if (screen.seatCode.length > 0 && event.key === Qt.Key_Backspace) {
            screen.seatCode = screen.seatCode.slice(0, -1)
            event.accepted = true
        } else if (screen.seatCode.length > 0 && event.key === Qt.Key_Escape) {
            screen.seatCode = ""
            event.accepted = true
        } else if (digit && event.key !== Qt.Key_0) {
            Till.bestAvailable(event.key - Qt.Key_0)
            event.accepted = true
        } else if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter) {
            Till.holdSelection()
            event.accepted = true
        } else if (event.key === Qt.Key_Up || event.key === Qt.Key_Down) {
            Till.moveShow(event.key === Qt.Key_Up ? -1 : 1)
            event.accepted = true
        } else if (event.key === Qt.Key_Escape) {
            Till.clearSelection()
            event.accepted = true
        } else if (event.key === Qt.Key_R && (event.modifiers & Qt.ControlModifier)) {
            Till.refreshShows()
            event.accepted = true
        }
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: 20
        spacing: 20

        Card {
            Layout.preferredWidth: 420
            Layout.fillHeight: true
            title: qsTr("Today")
            subtitle: Till.shows.loading ? qsTr("Loading…") : qsTr("%n show(s) on sale · ↑ ↓ to choose", "", Till.shows.count)
            ListView {
                id: showList
                objectName: "showList"
                anchors.fill: parent
                clip: true
                spacing: 6
                model: Till.shows
                currentIndex: Till.currentShow
                delegate: ShowRow {
                    width: showList.width
                    current: index === Till.currentShow
                    onPicked: Till.selectShow(index)
                }
                highlightFollowsCurrentItem: false
                onCurrentIndexChanged: positionViewAtIndex(currentIndex, ListView.Contain)
            }
        }

        Card {
            Layout.fillWidth: true
            Layout.fillHeight: true
            title: Till.showTitle.length > 0 ? Till.showTitle : qsTr("No show chosen")
            subtitle: Till.showText
            actions: [
                Text {
                    text: qsTr("%1 of %2 free").arg(screen.seats.availableCount).arg(screen.seats.seatCount)
                    font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
                }
            ]
            ColumnLayout {
                anchors.fill: parent
                spacing: 12
                StatusBar { Layout.fillWidth: true; text: Till.message; error: Till.messageIsError }
                StatusBar {
                    objectName: "seatCodeBar"
                    Layout.fillWidth: true
                    text: screen.seatCode.length > 0 ? qsTr("Seat %1 — Space to pick it, Esc to drop it").arg(screen.seatCode) : ""
                }
                Rectangle {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    radius: Pos.radius
                    color: Pos.field
                    clip: true
                    SeatMap {
                        id: map
                        objectName: "tillSeatMap"
                        // A cashier's mouse or counter touchscreen, not a customer's finger at arm's length: smaller
                        // seats may be clicked than on the kiosk (48 px there).
                        minimumSeatPixels: 32
                        anchors.fill: parent
                        anchors.margins: 10
                        model: screen.seats
                        stageColor: Theme.stage
                        selectedColor: Theme.accent
                        onSeatTapped: seatId => Till.toggleSeat(seatId)
                        Accessible.role: Accessible.Graphic
                        Accessible.name: qsTr("Seat map")
                    }
                    Repeater {
                        model: map.viewScale * 14 > 18 || screen.seats.rowLabels.length < 60 ? screen.seats.rowLabels : []
                        Text {
                            required property var modelData
                            x: map.x + map.viewX + modelData.x * map.viewScale - width / 2
                            y: map.y + map.viewY + modelData.y * map.viewScale - height / 2
                            text: modelData.label
                            font.pixelSize: Math.max(10, Math.min(16, map.viewScale * 6)); font.bold: true; font.family: Theme.fontFamily
                            color: Theme.textMuted
                        }
                    }
                    Text {
                        visible: screen.seats.stageLabel.length > 0 && screen.seats.seatCount > 0
                        anchors.horizontalCenter: parent.horizontalCenter
                        y: Math.max(4, map.y + map.viewY + screen.seats.stageBottom * map.viewScale + 6)
                        text: screen.seats.stageLabel
                        font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 6; font.family: Theme.fontFamily
                        color: Theme.textMuted
                    }
                    Column {
                        anchors.right: parent.right
                        anchors.bottom: parent.bottom
                        anchors.margins: 12
                        spacing: 6
                        SButton { text: "+"; onClicked: map.zoomIn(); Accessible.name: qsTr("Zoom in") }
                        SButton { text: "−"; onClicked: map.zoomOut(); Accessible.name: qsTr("Zoom out") }
                        SButton { text: "⤢"; onClicked: map.resetView(); Accessible.name: qsTr("Whole room") }
                    }
                    Text {
                        anchors.centerIn: parent
                        visible: screen.seats.loading || screen.seats.errorString.length > 0
                        text: screen.seats.loading ? qsTr("Loading seats…") : screen.seats.errorString
                        font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.textMuted
                    }
                }
                Flow {
                    Layout.fillWidth: true
                    spacing: 16
                    Repeater {
                        model: screen.seats.tiers
                        Row {
                            required property var modelData
                            spacing: 8
                            Rectangle { width: 14; height: 14; radius: 3; color: modelData.color; anchors.verticalCenter: parent.verticalCenter }
                            Text { text: modelData.name.charAt(0).toUpperCase() + modelData.name.slice(1) + "  " + modelData.price; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                        }
                    }
                    Row {
                        spacing: 8
                        Rectangle { width: 14; height: 14; radius: 3; color: "transparent"; border.width: 2; border.color: Theme.textMuted; anchors.verticalCenter: parent.verticalCenter }
                        Text { text: qsTr("held"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                    }
                    Row {
                        spacing: 8
                        Text { text: "✕"; font.pixelSize: 14; color: Theme.textMuted }
                        Text { text: qsTr("sold"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                    }
                    Row {
                        spacing: 8
                        Rectangle { width: 14; height: 14; radius: 3; color: Theme.accent; border.width: 3; border.color: "white"; anchors.verticalCenter: parent.verticalCenter }
                        Text { text: qsTr("in this sale"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                    }
                    // Offline: every seat but this till's leased ones is greyed, and says why.
                    Row {
                        objectName: "offlineLegend"
                        visible: Till.offline.offline
                        spacing: 8
                        Rectangle { width: 14; height: 14; radius: 3; color: "transparent"; border.width: 2; border.color: "#79839A"; anchors.verticalCenter: parent.verticalCenter }
                        Text {
                            text: Till.offline.leasedSeatCount > 0 ? qsTr("not leased to this till · leased here: %1").arg(Till.offline.leasedSeatsText)
                                                                   : qsTr("not leased to this till · no seats of this show are leased here")
                            font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily; color: Theme.warning
                        }
                    }
                }
            }
        }

        Card {
            Layout.preferredWidth: 400
            Layout.fillHeight: true
            title: qsTr("Sale")
            subtitle: screen.seats.selectedCount > 0 ? qsTr("%n seat(s)", "", screen.seats.selectedCount) : qsTr("No seats yet")
            ColumnLayout {
                anchors.fill: parent
                spacing: 12
                Text { text: qsTr("BEST SEATS TOGETHER"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                GridLayout {
                    Layout.fillWidth: true
                    columns: 4
                    columnSpacing: 8
                    rowSpacing: 8
                    Repeater {
                        model: 8
                        SButton {
                            required property int index
                            Layout.fillWidth: true
                            text: index + 1
                            keyHint: String(index + 1)
                            enabled: Till.showTitle.length > 0 && !Till.holdActive
                            onClicked: Till.bestAvailable(index + 1)
                        }
                    }
                }
                Rectangle { Layout.fillWidth: true; height: 1; color: Pos.line; Layout.topMargin: 4 }
                ListView {
                    id: basket
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    model: Till.basket
                    spacing: 4
                    delegate: Rectangle {
                        required property var modelData
                        width: basket.width
                        height: 44
                        radius: 8
                        color: Pos.panelRaised
                        RowLayout {
                            anchors.fill: parent
                            anchors.leftMargin: 12
                            anchors.rightMargin: 12
                            Rectangle {
                                width: 44; height: 26; radius: 6; color: "#2B2150"
                                Text { anchors.centerIn: parent; text: modelData.seat; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                            }
                            Text { Layout.fillWidth: true; text: modelData.tier; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted; leftPadding: 8 }
                            Text { text: modelData.price; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                        }
                    }
                    Text {
                        anchors.centerIn: parent
                        width: parent.width - 20
                        horizontalAlignment: Text.AlignHCenter
                        visible: basket.count === 0
                        wrapMode: Text.Wrap
                        text: qsTr("Press a number for the best seats together, type a seat (F7, Space), or click seats on the map.")
                        font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: "#6B7597"
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    Text { text: qsTr("Total"); font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily; color: Theme.textMuted; Layout.fillWidth: true }
                    Text { objectName: "saleTotal"; text: Till.totalText; font.pixelSize: 34; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold }
                }
                SButton {
                    objectName: "holdButton"
                    Layout.fillWidth: true
                    large: true
                    primary: true
                    text: Till.busy ? qsTr("Holding…") : qsTr("Take payment")
                    keyHint: "Enter"
                    enabled: screen.seats.selectedCount > 0 && !Till.busy
                    onClicked: Till.holdSelection()
                }
                SButton {
                    Layout.fillWidth: true
                    text: qsTr("Clear")
                    keyHint: "Esc"
                    enabled: screen.seats.selectedCount > 0
                    onClicked: Till.clearSelection()
                }
            }
        }
    }
}
