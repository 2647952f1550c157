// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Window
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.VirtualKeyboard
import Marquee.App
import Marquee.Ui

/*! The first start of a kiosk or till that has no credentials: the server's address, the one-time pairing code
    (marquee-admin device add --pairing) and the venue certificate's fingerprint printed with it. The device's token
    never reaches this screen: Pairing keeps it and saves it where only the app's user can read it. */
Window {
    id: window
    width: 1920
    height: 1080
    minimumWidth: 800
    minimumHeight: 600
    visible: true
    visibility: Pairing.fullscreen ? Window.FullScreen : Window.Windowed
    flags: Pairing.fullscreen ? (Qt.Window | Qt.FramelessWindowHint) : Qt.Window
    color: Theme.background
    title: qsTr("Marquee: pair this device")

    readonly property bool paired: Pairing.state === "paired"
    readonly property bool failed: Pairing.state === "failed"
    // Which field the last refusal is about, so it can be marked.
    readonly property string wrongField: !failed ? ""
        : ["address", "unreachable", "untrusted"].indexOf(Pairing.errorKind) >= 0 ? "server"
        : ["code_format", "code_unknown", "code_used", "code_expired", "device_exists"].indexOf(Pairing.errorKind) >= 0 ? "code"
        : ["fingerprint_format", "ca_mismatch", "no_venue_ca"].indexOf(Pairing.errorKind) >= 0 ? "fingerprint" : ""

    onClosing: Qt.quit()

    function errorTitle(kind) {
        switch (kind) {
        case "code_format":
        case "code_unknown": return qsTr("Wrong pairing code")
        case "code_used": return qsTr("This code was used already")
        case "code_expired": return qsTr("This code has expired")
        case "device_exists": return qsTr("This code is no longer valid")
        case "locked": return qsTr("Pairing is locked for a while")
        case "unreachable": return qsTr("The server cannot be reached")
        case "ca_mismatch": return qsTr("The venue certificate does not match")
        case "untrusted": return qsTr("The server is not trusted")
        case "address": return qsTr("Check the server address")
        case "fingerprint_format": return qsTr("Check the fingerprint")
        default: return qsTr("The device is not paired")
        }
    }
    function pair() {
        if (!Pairing.busy)
            Pairing.pair(serverField.text, codeField.text, fingerprintField.text)
    }

    InsecureBanner {
        id: insecureBanner
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
    }

    Flickable {
        anchors.top: insecureBanner.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: keyboard.visible ? keyboard.top : parent.bottom
        contentHeight: Math.max(height, form.implicitHeight + 2 * Theme.spaceXl)
        clip: true

        ColumnLayout {
            id: form
            width: Math.min(window.width - 2 * Theme.spaceXl, 1100)
            x: (window.width - width) / 2
            y: Math.max(Theme.spaceXl, (parent.height - implicitHeight) / 2)
            spacing: Theme.spaceL

            Text {
                Layout.fillWidth: true
                text: window.paired ? qsTr("This device is paired") : qsTr("Pair this device")
                font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
                color: Theme.text
                Accessible.role: Accessible.Heading
            }
            Text {
                Layout.fillWidth: true
                visible: !window.paired
                wrapMode: Text.WordWrap
                text: qsTr("Ask the manager for a pairing code for this kiosk or till (marquee-admin device add --pairing). It is valid for 15 minutes and pairs once. Type the server's address, the code and the venue certificate fingerprint printed with it.")
                font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                color: Theme.textMuted
            }

            Field {
                label: qsTr("Server address")
                hint: qsTr("Like https://tickets.venue.example")
                wrong: window.wrongField === "server"
                TextField {
                    id: serverField
                    objectName: "pairingServer"
                    Layout.fillWidth: true
                    implicitHeight: Theme.touch
                    text: Pairing.server
                    placeholderText: "https://tickets.venue.example"
                    font.pixelSize: Theme.fontBody
                    inputMethodHints: Qt.ImhUrlCharactersOnly | Qt.ImhNoAutoUppercase | Qt.ImhNoPredictiveText
                    Accessible.name: qsTr("Server address")
                    enabled: !Pairing.busy && !window.paired
                    onAccepted: codeField.forceActiveFocus()
                }
            }
            Field {
                label: qsTr("Pairing code")
                hint: qsTr("8 letters and digits, like 7K3M-Q9TZ")
                wrong: window.wrongField === "code"
                TextField {
                    id: codeField
                    objectName: "pairingCode"
                    Layout.fillWidth: true
                    implicitHeight: Theme.touch
                    placeholderText: "XXXX-XXXX"
                    font.pixelSize: Theme.fontHeading
                    font.family: "DejaVu Sans Mono"
                    font.capitalization: Font.AllUppercase
                    inputMethodHints: Qt.ImhPreferUppercase | Qt.ImhNoPredictiveText | Qt.ImhSensitiveData
                    Accessible.name: qsTr("Pairing code")
                    enabled: !Pairing.busy && !window.paired
                    focus: true
                    onAccepted: {
                        // A scanner reading marquee-admin's pairing QR types code and fingerprint at once: both
                        // fields are filled, and the device pairs if the server's address is there.
                        const scan = Pairing.scanned(text)
                        if (scan.code === undefined) {
                            fingerprintField.forceActiveFocus()
                            return
                        }
                        text = scan.code
                        if (scan.fingerprint)
                            fingerprintField.text = scan.fingerprint
                        if (serverField.text.length > 0)
                            window.pair()
                        else
                            serverField.forceActiveFocus()
                    }
                }
            }
            Field {
                label: qsTr("Venue certificate fingerprint (SHA-256)")
                hint: qsTr("Printed with the code and by marquee-admin tls show. Needed for https unless the server has a public certificate.")
                wrong: window.wrongField === "fingerprint"
                TextField {
                    id: fingerprintField
                    objectName: "pairingFingerprint"
                    Layout.fillWidth: true
                    implicitHeight: Theme.touch
                    text: Pairing.fingerprint
                    placeholderText: "AB:12:…"
                    font.pixelSize: Theme.fontCaption
                    font.family: "DejaVu Sans Mono"
                    inputMethodHints: Qt.ImhPreferUppercase | Qt.ImhNoPredictiveText
                    Accessible.name: qsTr("Venue certificate fingerprint")
                    enabled: !Pairing.busy && !window.paired
                    onAccepted: window.pair()
                }
            }

            Rectangle {
                id: errorPanel
                objectName: "pairingError"
                Layout.fillWidth: true
                visible: window.failed
                implicitHeight: errorColumn.implicitHeight + 2 * Theme.spaceM
                radius: Theme.radiusSmall
                color: "#3A1A22"
                border.color: Theme.danger
                border.width: 2
                Accessible.role: Accessible.AlertMessage
                Accessible.name: errorTitleText.text + ". " + errorText.text
                ColumnLayout {
                    id: errorColumn
                    anchors.left: parent.left
                    anchors.right: parent.right
                    anchors.verticalCenter: parent.verticalCenter
                    anchors.margins: Theme.spaceM
                    spacing: Theme.spaceXs
                    Text {
                        id: errorTitleText
                        Layout.fillWidth: true
                        text: "✖  " + window.errorTitle(Pairing.errorKind)
                        font.pixelSize: Theme.fontHeading; font.bold: true; font.family: Theme.fontFamily
                        color: Theme.danger
                    }
                    Text {
                        id: errorText
                        Layout.fillWidth: true
                        wrapMode: Text.WordWrap
                        text: Pairing.errorString
                        font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                        color: Theme.text
                    }
                }
            }

            MessageBanner {
                objectName: "pairingSuccess"
                Layout.fillWidth: true
                warning: false
                text: !window.paired ? ""
                      : (Pairing.deviceRole === "till" ? qsTr("Paired as the till “%1”.").arg(Pairing.deviceName)
                                                       : qsTr("Paired as the kiosk “%1”.").arg(Pairing.deviceName))
                        + " " + (Pairing.venueCaStored ? qsTr("From now on it trusts the server only through the venue certificate.")
                                                       : qsTr("No venue certificate was stored."))
            }

            RowLayout {
                Layout.fillWidth: true
                spacing: Theme.spaceM
                BusyIndicator {
                    visible: Pairing.busy
                    running: Pairing.busy
                    implicitWidth: Theme.touch; implicitHeight: Theme.touch
                }
                Text {
                    visible: Pairing.busy
                    text: Pairing.state === "checking" ? qsTr("Checking the venue certificate…") : qsTr("Pairing…")
                    font.pixelSize: Theme.fontBody; font.family: Theme.fontFamily
                    color: Theme.textMuted
                }
                Item { Layout.fillWidth: true }
                KButton {
                    objectName: "pairButton"
                    visible: !window.paired
                    primary: true
                    enabled: !Pairing.busy && codeField.text.length > 0 && serverField.text.length > 0
                    text: window.failed ? qsTr("Try again") : qsTr("Pair")
                    onClicked: window.pair()
                }
                KButton {
                    objectName: "continueButton"
                    visible: window.paired
                    primary: true
                    text: Pairing.deviceRole === "till" ? qsTr("Open the till") : qsTr("Start the kiosk")
                    onClicked: Pairing.proceed()
                }
            }
        }
    }

    InputPanel {
        id: keyboard
        z: 300
        y: Qt.inputMethod.visible ? window.height - height : window.height
        anchors.left: parent.left
        anchors.right: parent.right
        visible: Qt.inputMethod.visible
    }

    /*! A labelled input with a hint below it; `wrong` marks it red when the last refusal is about it. */
    component Field: ColumnLayout {
        id: field
        property string label
        property string hint
        property bool wrong: false
        default property alias content: box.data
        Layout.fillWidth: true
        spacing: Theme.spaceXs
        Text {
            text: field.label
            font.pixelSize: Theme.fontBody; font.bold: true; font.family: Theme.fontFamily
            color: field.wrong ? Theme.danger : Theme.text
        }
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: box.implicitHeight + 8
            radius: Theme.radiusSmall
            color: "transparent"
            border.width: field.wrong ? 4 : 0
            border.color: Theme.danger
            RowLayout {
                id: box
                anchors.fill: parent
                anchors.margins: 4
            }
        }
        Text {
            Layout.fillWidth: true
            wrapMode: Text.WordWrap
            text: field.hint
            font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
    }
}
