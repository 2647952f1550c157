// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The card did not pay: try again (the same seats are held again) or cancel. */
Rectangle {
    color: Theme.background
    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1000)
        spacing: Theme.spaceXl
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: "✕"
            font.pixelSize: 120; font.family: Theme.fontFamily
            color: Theme.danger
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Payment not completed")
            font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            Accessible.role: Accessible.Heading
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: Kiosk.message
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        HoldCountdown { Layout.alignment: Qt.AlignHCenter; visible: Kiosk.holdActive }
        RowLayout {
            Layout.alignment: Qt.AlignHCenter
            spacing: Theme.spaceL
            KButton { text: qsTr("Cancel"); danger: true; onClicked: Kiosk.cancel() }
            KButton { text: qsTr("Try again"); primary: true; implicitWidth: 320; enabled: !Kiosk.busy; onClicked: Kiosk.retryPayment() }
        }
    }
}
