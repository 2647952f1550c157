// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! One film: poster, synopsis and its show times. */
Rectangle {
    id: screen
    property bool portrait: false
    color: Theme.background

    ScreenHeader {
        id: header
        anchors.left: parent.left
        anchors.right: parent.right
        title: Kiosk.movieTitle
        subtitle: Kiosk.movieMeta
        onBackClicked: Kiosk.back()
    }

    // Landscape: poster and synopsis on the left, times on the right. Portrait: poster beside the synopsis on
    // top, times below.
    Item {
        id: body
        anchors.top: header.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: Theme.spaceXl

        readonly property real posterWidth: screen.portrait ? Math.min(width * 0.36, 420) : Math.min(width * 0.26, height / 1.5 * 0.72)

        Poster {
            id: poster
            width: body.posterWidth
            height: width * 1.5
            title: Kiosk.movieTitle
            seed: Kiosk.movieArtSeed
        }
        Text {
            id: synopsis
            anchors.left: screen.portrait ? poster.right : parent.left
            anchors.top: screen.portrait ? parent.top : poster.bottom
            anchors.leftMargin: screen.portrait ? Theme.spaceXl : 0
            anchors.topMargin: screen.portrait ? 0 : Theme.spaceL
            width: screen.portrait ? body.width - poster.width - Theme.spaceXl : poster.width
            height: screen.portrait ? poster.height : body.height - poster.height - Theme.spaceL
            text: Kiosk.movieSynopsis
            wrapMode: Text.WordWrap
            elide: Text.ElideRight
            font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
            color: Theme.textMuted
        }

        ColumnLayout {
            anchors.left: screen.portrait ? parent.left : poster.right
            anchors.leftMargin: screen.portrait ? 0 : Theme.spaceXl
            anchors.top: screen.portrait ? poster.bottom : parent.top
            anchors.topMargin: screen.portrait ? Theme.spaceXl : 0
            anchors.right: parent.right
            anchors.bottom: parent.bottom
            spacing: Theme.spaceL
            Text {
                text: qsTr("Choose a time")
                font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
                color: Theme.text
                Accessible.role: Accessible.Heading
            }
            GridView {
                id: times
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                cellWidth: Math.floor(width / (screen.portrait ? 2 : 3))
                cellHeight: 190 * Theme.textScale
                model: Kiosk.shows
                delegate: Item {
                    id: tile
                    required property var showId
                    required property string time
                    required property string day
                    required property string screen
                    required property string venue
                    required property string priceFrom
                    width: times.cellWidth
                    height: times.cellHeight
                    Accessible.role: Accessible.Button
                    Accessible.name: day + " " + time + ", " + screen

                    Rectangle {
                        anchors.fill: parent
                        anchors.margins: Theme.spaceS
                        radius: Theme.radius
                        color: tap.pressed ? Theme.surfaceRaised : Theme.surface
                        border.color: Theme.outline
                        border.width: 2
                        Column {
                            anchors.fill: parent
                            anchors.margins: Theme.spaceL
                            spacing: Theme.spaceXs
                            Text { text: tile.day; font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                            Text { text: tile.time; font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                            Text {
                                width: parent.width
                                text: tile.screen + " · " + tile.venue
                                elide: Text.ElideRight
                                font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted
                            }
                            Text { text: tile.priceFrom; font.pixelSize: Theme.fontCaption; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold }
                        }
                    }
                    TapHandler { id: tap; onTapped: Kiosk.openShow(tile.showId) }
                }
                Text {
                    anchors.centerIn: parent
                    visible: times.count === 0
                    text: Kiosk.shows.loading ? qsTr("Loading show times…") : qsTr("No more shows of this film today.")
                    font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
                    color: Theme.textMuted
                }
            }
        }
    }
}
