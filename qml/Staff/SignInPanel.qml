// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import QtQuick.Controls.Basic
import Marquee.App
import Marquee.Ui

/*! Staff sign-in: name and password, Enter signs in. Used by the till and the desk. */
Rectangle {
    id: panel
    required property StaffSession session
    property string heading: qsTr("Box office")
    property string blurb: ""
    color: Pos.canvas
    // The panel gets the focus when it is loaded; the name field is where typing starts.
    onActiveFocusChanged: if (activeFocus) nameField.forceActiveFocus()

    // A soft glow behind the card, the one decorative touch.
    Rectangle {
        width: 900; height: 900; radius: 450
        anchors.centerIn: parent
        gradient: Gradient {
            GradientStop { position: 0.0; color: "#1E1533" }
            GradientStop { position: 1.0; color: Pos.canvas }
        }
        opacity: 0.8
    }

    Rectangle {
        id: card
        width: 440
        height: form.implicitHeight + 2 * 36
        anchors.centerIn: parent
        radius: 20
        color: Pos.panel
        border.width: 1
        border.color: Pos.line

        ColumnLayout {
            id: form
            anchors.fill: parent
            anchors.margins: 36
            spacing: 14

            Row {
                spacing: 10
                Rectangle {
                    width: 36; height: 36; radius: 10
                    gradient: Gradient {
                        GradientStop { position: 0; color: Theme.accent }
                        GradientStop { position: 1; color: "#7C3AED" }
                    }
                    Text { anchors.centerIn: parent; text: "M"; font.pixelSize: 20; font.bold: true; color: "white"; font.family: Theme.fontFamily }
                }
                Text {
                    anchors.verticalCenter: parent.verticalCenter
                    text: "Marquee"
                    font.pixelSize: 22; font.bold: true; font.family: Theme.fontFamily
                    color: Theme.text
                }
            }
            Text {
                Layout.topMargin: 10
                text: panel.heading
                font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily
                color: Theme.text
            }
            Text {
                Layout.fillWidth: true
                text: panel.blurb.length > 0 ? panel.blurb : qsTr("Sign in with your staff name and password.")
                wrapMode: Text.Wrap
                font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
            Text { Layout.topMargin: 8; text: qsTr("Name"); font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily; color: Theme.textMuted }
            SField {
                id: nameField
                objectName: "signInName"
                Layout.fillWidth: true
                placeholderText: qsTr("Staff name")
                focus: true
                KeyNavigation.tab: passwordField
                onAccepted: passwordField.forceActiveFocus()
            }
            Text { text: qsTr("Password"); font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily; color: Theme.textMuted }
            SField {
                id: passwordField
                objectName: "signInPassword"
                Layout.fillWidth: true
                placeholderText: qsTr("Password or PIN")
                echoMode: TextInput.Password
                invalid: panel.session.errorString.length > 0
                onAccepted: panel.session.signIn(nameField.text, text)
            }
            StatusBar {
                Layout.fillWidth: true
                text: panel.session.errorString
                error: true
            }
            SButton {
                Layout.fillWidth: true
                Layout.topMargin: 6
                large: true
                primary: true
                text: panel.session.busy ? qsTr("Signing in…") : qsTr("Sign in")
                keyHint: "Enter"
                enabled: !panel.session.busy
                onClicked: panel.session.signIn(nameField.text, passwordField.text)
            }
        }
    }
    Text {
        anchors.bottom: parent.bottom
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottomMargin: 24
        text: qsTr("Locks after %1 minutes without use").arg(Math.round(panel.session.lockAfterSeconds / 60))
        font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily
        color: "#56607F"
    }
    function clear() { nameField.text = ""; passwordField.text = ""; nameField.forceActiveFocus() }
}
