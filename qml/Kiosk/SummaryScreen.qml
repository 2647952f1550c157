// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The held seats, their prices and the total; pay at the card terminal or go back (releasing the seats).
    One centred block (poster, show, lines, total, what happens next, the buttons) that fits portrait and landscape,
    so that the buttons sit right under the total instead of across an empty screen. */
Rectangle {
    id: screen
    property bool portrait: false
    color: Theme.background

    ScreenHeader {
        id: header
        anchors.left: parent.left
        anchors.right: parent.right
        title: qsTr("Your order")
        subtitle: Kiosk.movieTitle + " · " + Kiosk.showText
        onBackClicked: Kiosk.back()
    }

    Item {
        id: area
        anchors.top: header.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: Theme.spaceXl

        ColumnLayout {
            id: block
            anchors.centerIn: parent
            width: Math.min(area.width, screen.portrait ? 960 : 1240)
            spacing: Theme.spaceL

            MessageBanner {
                Layout.fillWidth: true
                text: Kiosk.holdWarning ? qsTr("Less than a minute left to pay before your seats are released.") : Kiosk.message
            }

            Rectangle {
                Layout.fillWidth: true
                Layout.preferredHeight: card.implicitHeight + 2 * Theme.spaceXl
                radius: Theme.radius
                color: Theme.surface
                border.color: Theme.outline
                border.width: 2

                GridLayout {
                    id: card
                    anchors.fill: parent
                    anchors.margins: Theme.spaceXl
                    columns: screen.portrait ? 1 : 2
                    columnSpacing: Theme.spaceXl
                    rowSpacing: Theme.spaceL

                    Poster {
                        Layout.alignment: Qt.AlignTop | (screen.portrait ? Qt.AlignHCenter : Qt.AlignLeft)
                        Layout.preferredWidth: screen.portrait ? 240 : 300
                        Layout.preferredHeight: Layout.preferredWidth * 1.5
                        title: Kiosk.movieTitle
                        seed: Kiosk.movieArtSeed
                    }

                    ColumnLayout {
                        Layout.fillWidth: true
                        Layout.alignment: Qt.AlignTop
                        spacing: Theme.spaceM

                        Text {
                            Layout.fillWidth: true
                            text: Kiosk.movieTitle
                            wrapMode: Text.WordWrap
                            font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                            Accessible.role: Accessible.Heading
                        }
                        Text {
                            Layout.fillWidth: true
                            text: Kiosk.showText
                            wrapMode: Text.WordWrap
                            font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.gold
                        }
                        Text {
                            Layout.fillWidth: true
                            text: Kiosk.movieMeta
                            visible: text.length > 0
                            font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted
                        }
                        Rectangle { Layout.fillWidth: true; Layout.topMargin: Theme.spaceS; height: 2; color: Theme.outline }

                        // In a Column, not straight in the layout: Qt 6.4 layouts can rearrange with a destroyed delegate
                        Column {
                            Layout.fillWidth: true
                            spacing: Theme.spaceS
                            Repeater {
                                model: Kiosk.orderLines
                                RowLayout {
                                    required property var modelData
                                    width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                                    spacing: Theme.spaceM
                                    Text {
                                        Layout.fillWidth: true
                                        text: modelData.seat
                                        font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily; color: Theme.text
                                    }
                                    Text {
                                        text: modelData.tier
                                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
                                    }
                                    Text {
                                        Layout.preferredWidth: 180
                                        horizontalAlignment: Text.AlignRight
                                        text: modelData.price
                                        font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily; color: Theme.text
                                    }
                                }
                            }
                        }
                        Rectangle { Layout.fillWidth: true; height: 2; color: Theme.outline }
                        RowLayout {
                            Layout.fillWidth: true
                            Text {
                                Layout.fillWidth: true
                                text: qsTr("Total")
                                font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                            }
                            Text {
                                text: Kiosk.orderTotal
                                font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold
                                Accessible.name: qsTr("Total %1").arg(Kiosk.orderTotal)
                            }
                        }
                    }
                }
            }

            // What happens next, so nobody wonders where the tickets come from.
            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spaceL
                Repeater {
                    model: [qsTr("Pay by card at the terminal"), qsTr("Your tickets and receipt print here"), qsTr("Show the QR code at the door")]
                    RowLayout {
                        required property string modelData
                        required property int index
                        Layout.fillWidth: true
                        Layout.preferredWidth: 1
                        spacing: Theme.spaceS
                        Rectangle {
                            width: 44; height: 44; radius: 22
                            color: Theme.surfaceRaised
                            border.color: Theme.outline
                            Text {
                                anchors.centerIn: parent
                                text: index + 1
                                font.pixelSize: Theme.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold
                            }
                        }
                        Text {
                            Layout.fillWidth: true
                            text: modelData
                            wrapMode: Text.WordWrap
                            font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted
                        }
                    }
                }
            }

            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: Theme.spaceM
                spacing: Theme.spaceL
                KButton { text: qsTr("Change seats"); onClicked: Kiosk.back() }
                Item { Layout.fillWidth: true }
                KButton {
                    primary: true
                    text: qsTr("Pay by card")
                    enabled: !Kiosk.busy && Kiosk.online
                    implicitWidth: 420
                    onClicked: Kiosk.pay()
                }
            }
        }
    }
}
