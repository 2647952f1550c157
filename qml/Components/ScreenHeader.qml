// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Top bar of every screen after the attract screen: back, title and subtitle, the hold countdown. */
Rectangle {
    id: header
    property alias title: titleText.text
    property alias subtitle: subtitleText.text
    property bool showBack: true
    signal backClicked()

    implicitHeight: Theme.touch + 2 * Theme.spaceL
    color: Theme.backgroundAlt

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.spaceL
        anchors.rightMargin: Theme.spaceL
        spacing: Theme.spaceL
        KButton {
            visible: header.showBack
            text: qsTr("Back")
            icon_: "‹"
            onClicked: header.backClicked()
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text {
                id: titleText
                Layout.fillWidth: true
                font.pixelSize: Theme.fontHeading
                font.bold: true
                font.family: Theme.fontFamily
                color: Theme.text
                elide: Text.ElideRight
                Accessible.role: Accessible.Heading
            }
            Text {
                id: subtitleText
                Layout.fillWidth: true
                visible: text.length > 0
                font.pixelSize: Theme.fontCaption
                font.family: Theme.fontFamily
                color: Theme.textMuted
                elide: Text.ElideRight
            }
        }
        HoldCountdown {
            visible: Kiosk.holdActive
        }
    }
}
