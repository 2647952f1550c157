// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Waiting for the card at the terminal. In demo mode a simulator panel chooses what card is "presented". */
Rectangle {
    id: screen
    property bool portrait: false
    color: Theme.background

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.spaceXl, 1100)
        spacing: Theme.spaceXl

        Rectangle {
            Layout.alignment: Qt.AlignHCenter
            width: 260; height: 170; radius: 22
            gradient: Gradient {
                GradientStop { position: 0; color: Theme.accent }
                GradientStop { position: 1; color: "#3A1C71" }
            }
            Rectangle { x: 28; y: 50; width: 54; height: 40; radius: 8; color: Theme.gold }
            Text { x: 28; y: 118; text: "•••• •••• •••• 4242"; color: "white"; font.pixelSize: 20; font.family: Theme.fontFamily }
            SequentialAnimation on y {
                running: Kiosk.paymentState === "waiting"
                loops: Animation.Infinite
                NumberAnimation { from: 0; to: 16; duration: 700; easing.type: Easing.InOutQuad }
                NumberAnimation { from: 16; to: 0; duration: 700; easing.type: Easing.InOutQuad }
            }
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: Kiosk.paymentState === "waiting" ? qsTr("Please present your card on the terminal")
                : Kiosk.paymentState === "confirming" ? qsTr("Payment approved. Booking your seats…")
                : qsTr("Processing your payment…")
            font.pixelSize: Theme.fontTitle; font.bold: true; font.family: Theme.fontFamily
            color: Theme.text
            Accessible.role: Accessible.StaticText
        }
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Amount: %1").arg(Kiosk.orderTotal)
            font.pixelSize: Theme.fontHeading; font.family: Theme.fontFamily
            color: Theme.gold
        }
        KButton {
            Layout.alignment: Qt.AlignHCenter
            danger: true
            text: qsTr("Cancel payment")
            enabled: Kiosk.paymentState === "waiting"
            onClicked: Kiosk.abortPayment()
        }

        Rectangle {
            visible: Kiosk.demoPanel
            Layout.fillWidth: true
            Layout.preferredHeight: demo.implicitHeight + 2 * Theme.spaceL
            radius: Theme.radius
            color: "transparent"
            border.color: Theme.outline
            border.width: 2
            ColumnLayout {
                id: demo
                anchors.fill: parent
                anchors.margins: Theme.spaceL
                spacing: Theme.spaceM
                Text {
                    text: qsTr("Card simulator (demo mode)")
                    font.pixelSize: Theme.fontCaption; font.bold: true; font.family: Theme.fontFamily
                    color: Theme.textMuted
                }
                Flow {
                    Layout.fillWidth: true
                    spacing: Theme.spaceS
                    Repeater {
                        model: [["tok_visa", qsTr("Visa: approved")], ["tok_declined", qsTr("Declined")], ["tok_slow", qsTr("Slow")],
                                ["tok_lost", qsTr("Lost card")], ["tok_duplicate", qsTr("Duplicate")], ["tok_late", qsTr("Late answer")]]
                        KButton {
                            required property var modelData
                            text: modelData[1]
                            enabled: Kiosk.paymentState === "waiting"
                            onClicked: Kiosk.presentCard(modelData[0])
                        }
                    }
                }
            }
        }
    }
}
