// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The held seats, their prices and the total; pay at the card terminal or go back (releasing the seats). */
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

    ColumnLayout {
        anchors.top: header.bottom
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottom: parent.bottom
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        anchors.topMargin: Theme.spaceXl
        anchors.bottomMargin: Theme.spaceXl
        spacing: Theme.spaceL

        MessageBanner {
            Layout.fillWidth: true
            text: Kiosk.holdWarning ? qsTr("Less than a minute left to pay before your seats are released.") : Kiosk.message
        }

        Rectangle {
            Layout.fillWidth: true
            Layout.preferredHeight: lines.implicitHeight + 2 * Theme.spaceXl
            radius: Theme.radius
            color: Theme.surface
            border.color: Theme.outline
            border.width: 2
            ColumnLayout {
                id: lines
                anchors.fill: parent
                anchors.margins: Theme.spaceXl
                spacing: Theme.spaceM
                Repeater {
                    model: Kiosk.orderLines
                    RowLayout {
                        required property var modelData
                        Layout.fillWidth: true
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

        Item { Layout.fillHeight: true }

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spaceL
            KButton { text: qsTr("Change seats"); onClicked: Kiosk.back() }
            Item { Layout.fillWidth: true }
            KButton {
                primary: true
                text: qsTr("Pay by card")
                enabled: !Kiosk.busy
                implicitWidth: 380
                onClicked: Kiosk.pay()
            }
        }
    }
}
