// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.App
import Marquee.Ui

/*! The lock screen after inactivity and the re-auth prompt before sensitive actions, for any staff window. */
Item {
    id: guard
    required property StaffSession session
    anchors.fill: parent
    z: 500

    PasswordPrompt {
        objectName: "lockScreen"
        anchors.fill: parent
        visible: guard.session.signedIn && guard.session.locked
        cancellable: false
        title: qsTr("Locked")
        detail: qsTr("%1 is signed in. Enter the password to go on.").arg(guard.session.name)
        confirmText: qsTr("Unlock")
        error: guard.session.errorString
        busy: guard.session.busy
        onSubmitted: password => guard.session.unlock(password)
        SButton {
            anchors.bottom: parent.bottom
            anchors.horizontalCenter: parent.horizontalCenter
            anchors.bottomMargin: 40
            quiet: true
            text: qsTr("Sign out %1").arg(guard.session.name)
            onClicked: guard.session.signOut()
        }
    }
    PasswordPrompt {
        objectName: "reauthPrompt"
        anchors.fill: parent
        visible: guard.session.reauthPending && !guard.session.locked
        title: qsTr("Confirm it is you")
        detail: guard.session.reauthReason
        error: guard.session.errorString
        busy: guard.session.busy
        onSubmitted: password => guard.session.confirmReauth(password)
        onCancelled: guard.session.cancelReauth()
    }
}
