// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The kiosk's connection at the foot of every screen: online or offline (not by colour alone) and how many
    actions wait for the server. */
Rectangle {
    id: bar
    implicitHeight: row.implicitHeight + 2 * Theme.spaceXs
    color: Kiosk.online ? Theme.backgroundAlt : "#3A2A10"
    Accessible.role: Accessible.StatusBar
    Accessible.name: status.text + (queue.visible ? ", " + queue.text : "")

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.leftMargin: Theme.spaceL
        anchors.rightMargin: Theme.spaceL
        spacing: Theme.spaceM
        Rectangle {
            width: 12; height: 12; radius: 6
            color: Kiosk.online ? Theme.success : Theme.warning
        }
        Text {
            id: status
            text: Kiosk.online ? qsTr("Online") : qsTr("Offline — browsing only, no sales")
            font.pixelSize: Theme.fontCaption; font.bold: !Kiosk.online; font.family: Theme.fontFamily
            color: Kiosk.online ? Theme.textMuted : Theme.warning
        }
        Text {
            id: queue
            visible: Kiosk.pendingActions > 0 || Kiosk.parkedActions > 0
            text: qsTr("%n action(s) waiting for the server", "", Kiosk.pendingActions)
                  + (Kiosk.parkedActions > 0 ? " · " + qsTr("%n need staff", "", Kiosk.parkedActions) : "")
            font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily
            color: Theme.textMuted
        }
        Item { Layout.fillWidth: true }
        Text {
            text: "Marquee " + Kiosk.version
            font.pixelSize: Theme.fontCaption; font.family: Theme.fontFamily
            color: Theme.textMuted
            opacity: 0.6
        }
    }
}
