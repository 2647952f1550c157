// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.Ui

/*! A modal card over a dimmed screen asking for the password again: the lock screen and the re-auth prompt. */
Rectangle {
    id: prompt
    property string title: ""
    property string detail: ""
    property string error: ""
    property bool busy: false
    property bool cancellable: true
    property string confirmText: qsTr("Confirm")
    signal submitted(string password)
    signal cancelled()
    color: Qt.rgba(0.03, 0.04, 0.08, 0.82)
    z: 500
    onVisibleChanged: { field.text = ""; if (visible) field.forceActiveFocus() }

    MouseArea { anchors.fill: parent; hoverEnabled: true } // swallow clicks on what lies beneath

    Rectangle {
        width: 420
        height: column.implicitHeight + 64
        anchors.centerIn: parent
        radius: 18
        color: Pos.panel
        border.width: 1
        border.color: Pos.line
        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 32
            spacing: 12
            Rectangle {
                width: 44; height: 44; radius: 22
                color: "#2A1F3D"
                // A drawn padlock (no emoji font on most tills).
                Rectangle { width: 14; height: 14; radius: 7; color: "transparent"; border.width: 3; border.color: Theme.accent; x: 15; y: 9 }
                Rectangle { width: 20; height: 14; radius: 3; color: Theme.accent; x: 12; y: 18 }
            }
            Text { text: prompt.title; font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text; Layout.fillWidth: true; wrapMode: Text.Wrap }
            Text { text: prompt.detail; visible: text.length > 0; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted; Layout.fillWidth: true; wrapMode: Text.Wrap }
            SField {
                id: field
                objectName: "promptPassword"
                Layout.fillWidth: true
                Layout.topMargin: 6
                echoMode: TextInput.Password
                placeholderText: qsTr("Password or PIN")
                invalid: prompt.error.length > 0
                onAccepted: prompt.submitted(text)
                Keys.onEscapePressed: if (prompt.cancellable) prompt.cancelled()
            }
            StatusBar { Layout.fillWidth: true; text: prompt.error; error: true }
            RowLayout {
                Layout.fillWidth: true
                spacing: Pos.gap
                SButton { visible: prompt.cancellable; text: qsTr("Cancel"); keyHint: "Esc"; onClicked: prompt.cancelled() }
                Item { Layout.fillWidth: true }
                SButton { primary: true; text: prompt.busy ? qsTr("Checking…") : prompt.confirmText; keyHint: "Enter"; enabled: !prompt.busy; onClicked: prompt.submitted(field.text) }
            }
        }
    }
}
