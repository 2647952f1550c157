// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Choose seats: the map (tap, pinch, drag), best available for N, the legend, the running total. */
Rectangle {
    id: screen
    property bool portrait: false
    property int wanted: 2
    property bool wheelchair: false
    readonly property SeatMapModel seats: Kiosk.seatMap
    color: Theme.background

    ScreenHeader {
        id: header
        anchors.left: parent.left
        anchors.right: parent.right
        title: Kiosk.movieTitle
        subtitle: Kiosk.showText
        onBackClicked: Kiosk.back()
    }

    ColumnLayout {
        anchors.top: header.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: Theme.spaceL
        spacing: Theme.spaceM

        MessageBanner {
            Layout.fillWidth: true
            text: Kiosk.message
        }

        Rectangle {
            Layout.fillWidth: true
            Layout.fillHeight: true
            radius: Theme.radius
            color: Theme.surface
            clip: true

            SeatMap {
                id: map
                anchors.fill: parent
                anchors.margins: Theme.spaceS
                model: screen.seats
                stageColor: Theme.stage
                selectedColor: Theme.accent
                onSeatTapped: seatId => Kiosk.toggleSeat(seatId)
                Accessible.role: Accessible.Graphic
                Accessible.name: qsTr("Seat map, %1 of %2 seats free").arg(screen.seats.availableCount).arg(screen.seats.seatCount)
            }
            // A large venue first shows its sections: each a tappable region (the map zooms to it on a tap), until
            // seats are big enough to tap one by one.
            Repeater {
                model: map.seatsTappable ? [] : screen.seats.sections
                Rectangle {
                    required property var modelData
                    readonly property real pad: 6
                    x: map.x + map.viewX + modelData.x * map.viewScale - pad
                    y: map.y + map.viewY + modelData.y * map.viewScale - pad
                    width: modelData.width * map.viewScale + 2 * pad
                    height: modelData.height * map.viewScale + 2 * pad
                    color: "transparent"
                    radius: 4
                    border.width: 1
                    border.color: Theme.textMuted
                    opacity: 0.7
                    Text {
                        anchors.centerIn: parent
                        visible: parent.width > width + 4 && parent.height > height
                        text: modelData.name
                        font.pixelSize: Theme.fontCaption; font.bold: true; font.family: Theme.fontFamily
                        color: Theme.text
                    }
                }
            }
            Text {
                visible: !map.seatsTappable && screen.seats.seatCount > 0
                anchors.top: parent.top
                anchors.left: parent.left
                anchors.margins: Theme.spaceM
                text: screen.seats.sections.length > 0 ? qsTr("Tap a block to see its seats") : qsTr("Tap to zoom in, then tap your seats")
                font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
            // Row labels and the stage label follow the map's zoom and pan.
            Repeater {
                // Labels only once rows are far enough apart to read them (a zoomed-out stadium has thousands).
                model: map.viewScale * 14 > 18 || screen.seats.rowLabels.length < 60 ? screen.seats.rowLabels : []
                Text {
                    required property var modelData
                    x: map.x + map.viewX + modelData.x * map.viewScale - width / 2
                    y: map.y + map.viewY + modelData.y * map.viewScale - height / 2
                    visible: x > -width && x < map.width && y > -height && y < map.height
                    text: modelData.label
                    font.pixelSize: Math.max(11, Math.min(22, map.viewScale * 7))
                    font.bold: true
                    font.family: Theme.fontFamily
                    color: Theme.textMuted
                }
            }
            Text {
                visible: screen.seats.stageLabel.length > 0 && screen.seats.seatCount > 0
                anchors.horizontalCenter: parent.horizontalCenter
                y: Math.max(4, map.y + map.viewY + screen.seats.stageBottom * map.viewScale + 8)
                text: screen.seats.stageLabel
                font.pixelSize: Theme.fontCaption; font.bold: true; font.letterSpacing: 8; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
            Column {
                anchors.right: parent.right
                anchors.bottom: parent.bottom
                anchors.margins: Theme.spaceM
                spacing: Theme.spaceS
                KButton { text: "+"; implicitWidth: Theme.touch; Accessible.name: qsTr("Zoom in"); onClicked: map.zoomIn() }
                KButton { text: "−"; implicitWidth: Theme.touch; Accessible.name: qsTr("Zoom out"); onClicked: map.zoomOut() }
                KButton { text: "⤢"; implicitWidth: Theme.touch; Accessible.name: qsTr("Show the whole room"); onClicked: map.resetView() }
            }
            Text {
                anchors.centerIn: parent
                visible: screen.seats.loading || screen.seats.errorString.length > 0
                text: screen.seats.loading ? qsTr("Loading seats…") : screen.seats.errorString
                font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
        }

        SeatLegend {
            Layout.fillWidth: true
            tiers: screen.seats.tiers
            selectedColor: Theme.accent
        }

        GridLayout {
            Layout.fillWidth: true
            columns: screen.portrait ? 1 : 2
            columnSpacing: Theme.spaceL
            rowSpacing: Theme.spaceM

            RowLayout {
                spacing: Theme.spaceS
                Text {
                    text: qsTr("Best seats for")
                    font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                    color: Theme.text
                }
                KButton { text: "−"; implicitWidth: Theme.touch; Accessible.name: qsTr("Fewer seats"); enabled: screen.wanted > 1; onClicked: screen.wanted-- }
                Text {
                    text: screen.wanted
                    Layout.preferredWidth: 48
                    horizontalAlignment: Text.AlignHCenter
                    font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
                    color: Theme.text
                    Accessible.name: qsTr("%n seat(s)", "", screen.wanted)
                }
                KButton { text: "+"; implicitWidth: Theme.touch; Accessible.name: qsTr("More seats"); enabled: screen.wanted < 10; onClicked: screen.wanted++ }
                KButton {
                    text: "♿"
                    implicitWidth: Theme.touch
                    primary: screen.wheelchair
                    Accessible.role: Accessible.CheckBox
                    Accessible.checked: screen.wheelchair
                    Accessible.name: qsTr("Include a wheelchair space")
                    onClicked: screen.wheelchair = !screen.wheelchair
                }
                KButton { text: qsTr("Find"); onClicked: Kiosk.bestAvailable(screen.wanted, screen.wheelchair) }
            }

            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spaceL
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: 2
                    Text {
                        Layout.fillWidth: true
                        text: screen.seats.selectedCount > 0 ? screen.seats.selectionText : qsTr("Tap seats on the map")
                        elide: Text.ElideRight
                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                        color: Theme.text
                    }
                    Text {
                        text: screen.seats.selectedCount > 0 ? qsTr("%n seat(s) · %1", "", screen.seats.selectedCount).arg(screen.seats.selectedTotalText) : ""
                        font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
                        color: Theme.gold
                    }
                }
                KButton {
                    primary: true
                    text: qsTr("Continue")
                    // Offline the map is the kiosk's last copy: look, but buy at the box office.
                    enabled: screen.seats.selectedCount > 0 && !Kiosk.busy && Kiosk.online
                    onClicked: Kiosk.holdSelection()
                }
            }
        }
    }
}
