// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Staff-only: the PIN that opens the staff screen (lookup, reprint, check-in, reconciliation, exit). Text entry through the Qt Virtual Keyboard. */
Popup {
    id: dialog
    modal: true
    x: parent ? (parent.width - width) / 2 : 0
    y: parent ? Math.max(Theme.spaceXl, (parent.height - height) / 3) : 0
    width: Math.min(640, parent ? parent.width - 64 : 640)
    padding: Theme.spaceXl
    background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: Theme.outline; border.width: 2 }
    onOpened: { pin.text = ""; wrong.visible = false; pin.forceActiveFocus() }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spaceL
        Text {
            text: qsTr("Staff")
            font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
        }
        TextField {
            id: pin
            Layout.fillWidth: true
            implicitHeight: Theme.touch
            echoMode: TextInput.Password
            inputMethodHints: Qt.ImhDigitsOnly | Qt.ImhSensitiveData | Qt.ImhNoPredictiveText
            placeholderText: qsTr("PIN")
            font.pixelSize: Theme.fontTitle
            Accessible.name: qsTr("Staff PIN")
            onAccepted: ok.clicked()
        }
        Text {
            id: wrong
            visible: false
            text: qsTr("That PIN is not right.")
            color: Theme.danger
            font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
        }
        RowLayout {
            spacing: Theme.spaceM
            KButton { text: qsTr("Cancel"); onClicked: dialog.close() }
            Item { Layout.fillWidth: true }
            KButton {
                id: ok
                primary: true
                text: qsTr("Open")
                onClicked: {
                    if (Kiosk.staffUnlock(pin.text))
                        dialog.close()
                    else
                        wrong.visible = true
                }
            }
        }
    }
}
