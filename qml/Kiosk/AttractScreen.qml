// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The first thing people see: what is on now and next, as posters. Touch one to buy tickets. Language,
    high contrast and larger text are switched here. */
Rectangle {
    id: screen
    property bool portrait: false
    color: Theme.background

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spaceXl
        spacing: Theme.spaceL

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spaceM
            ColumnLayout {
                Layout.fillWidth: true
                spacing: Theme.spaceXs
                Text {
                    text: "MARQUEE"
                    font.pixelSize: Theme.fontCaption; font.bold: true; font.letterSpacing: 6; font.family: Theme.fontFamily
                    color: Theme.gold
                }
                Text {
                    Layout.fillWidth: true
                    text: Kiosk.cityName.length > 0 ? qsTr("Now showing in %1").arg(Kiosk.cityName) : qsTr("Now showing")
                    font.pixelSize: Theme.fontDisplay; font.bold: true; font.family: Theme.fontFamily
                    color: Theme.text
                    wrapMode: Text.WordWrap
                    Accessible.role: Accessible.Heading
                }
                Text {
                    // Offline the programme is the kiosk's last copy: looking is fine, buying is at the box office.
                    text: Kiosk.online ? qsTr("Touch a film to buy tickets") : qsTr("Touch a film to see its show times")
                    font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
                    color: Theme.textMuted
                }
            }
        }

        RowLayout {
            spacing: Theme.spaceM
            KButton {
                text: "English"
                primary: Kiosk.language === "en"
                Accessible.name: qsTr("English")
                onClicked: Kiosk.setLanguage("en")
            }
            KButton {
                text: "Deutsch"
                primary: Kiosk.language === "de"
                Accessible.name: qsTr("German")
                onClicked: Kiosk.setLanguage("de")
            }
            Item { Layout.fillWidth: true }
            KButton {
                text: qsTr("High contrast")
                primary: Theme.highContrast
                Accessible.role: Accessible.CheckBox
                Accessible.checked: Theme.highContrast
                onClicked: Theme.highContrast = !Theme.highContrast
            }
            KButton {
                text: qsTr("Larger text")
                primary: Theme.largeText
                Accessible.role: Accessible.CheckBox
                Accessible.checked: Theme.largeText
                onClicked: Theme.largeText = !Theme.largeText
            }
        }

        MessageBanner {
            Layout.fillWidth: true
            text: Kiosk.online ? "" : Kiosk.message
        }

        GridView {
            id: grid
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            readonly property int columns: screen.portrait ? 2 : 4
            cellWidth: Math.floor(width / columns)
            cellHeight: cellWidth * 1.5 + 110 * Theme.textScale
            model: Kiosk.movies
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Films now showing")
            delegate: Item {
                id: card
                required property var movieId
                required property string title
                required property string nextShow
                required property string runtime
                required property string rating
                required property int artSeed
                width: grid.cellWidth
                height: grid.cellHeight
                Accessible.role: Accessible.Button
                Accessible.name: title + ", " + nextShow

                Column {
                    anchors.fill: parent
                    anchors.margins: Theme.spaceM
                    spacing: Theme.spaceS
                    Poster {
                        width: parent.width
                        height: width * 1.5
                        title: card.title
                        seed: card.artSeed
                        scale: tap.pressed ? 0.97 : 1
                        Behavior on scale { NumberAnimation { duration: 90 } }
                    }
                    Text {
                        width: parent.width
                        text: card.nextShow
                        font.pixelSize: Theme.fontBody; font.bold: true; font.family: Theme.fontFamily
                        color: Theme.gold
                        elide: Text.ElideRight
                    }
                    Text {
                        width: parent.width
                        text: [card.runtime, card.rating].filter(s => s.length > 0).join(" · ")
                        font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily
                        color: Theme.textMuted
                        elide: Text.ElideRight
                    }
                }
                TapHandler { id: tap; onTapped: Kiosk.openMovie(card.movieId) }
            }
            Text {
                anchors.centerIn: parent
                visible: grid.count === 0
                text: Kiosk.movies.loading ? qsTr("Loading the programme…") : qsTr("No shows to sell right now.")
                font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
        }
    }
}
