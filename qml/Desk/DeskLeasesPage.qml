// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The tills' leases per show and till: seats leased (sellable offline), sold offline and reported, given back, and
    unreported (past expiry, off sale until the till reports). Revoke ends a lease before its expiry; "Release
    unreported seats" puts what a till never reported back on sale. */
ColumnLayout {
    id: page
    spacing: 20
    readonly property var leases: Desk.leases
    Component.onCompleted: leases.refresh()
    component Head: Text { font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
    component Cell: Text { font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text; elide: Text.ElideRight }

    RowLayout {
        Layout.fillWidth: true
        spacing: 20
        StatTile { Layout.fillWidth: true; label: qsTr("Leases"); value: String(page.leases.rows.length); accentColor: Pos.info }
        StatTile { Layout.fillWidth: true; label: qsTr("Seats leased to tills"); value: String(page.leases.leasedSeats); caption: qsTr("sellable offline by their till"); accentColor: Theme.accent }
        StatTile {
            objectName: "unreportedTile"
            Layout.fillWidth: true
            label: qsTr("Unreported seats")
            value: String(page.leases.unreportedSeats)
            caption: qsTr("off sale until the till reports or you release them")
            accentColor: page.leases.unreportedSeats > 0 ? Theme.warning : Theme.success
        }
    }
    StatusBar { Layout.fillWidth: true; text: page.leases.message; error: page.leases.messageIsError }
    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        title: qsTr("Leases per show and till")
        subtitle: page.leases.loading ? qsTr("Loading…") : qsTr("Shows from yesterday to the day after tomorrow.")
        actions: [ SButton { text: qsTr("Refresh"); onClicked: page.leases.refresh() } ]
        ColumnLayout {
            anchors.fill: parent
            spacing: 0
            RowLayout {
                Layout.fillWidth: true
                Layout.bottomMargin: 8
                spacing: 12
                Head { Layout.preferredWidth: 300; text: qsTr("SHOW") }
                Head { Layout.preferredWidth: 140; text: qsTr("TILL") }
                Head { Layout.preferredWidth: 210; text: qsTr("STATE") }
                Head { Layout.preferredWidth: 80; text: qsTr("LEASED") }
                Head { Layout.preferredWidth: 170; text: qsTr("SOLD OFFLINE") }
                Head { Layout.preferredWidth: 90; text: qsTr("RETURNED") }
                Head { Layout.preferredWidth: 110; text: qsTr("UNREPORTED") }
                Head { Layout.preferredWidth: 110; text: qsTr("EXPIRES") }
                Item { Layout.fillWidth: true }
            }
            ListView {
                id: list
                objectName: "leaseList"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                spacing: 4
                model: page.leases.rows
                delegate: Rectangle {
                    required property var modelData
                    width: list.width
                    height: 48
                    radius: 8
                    color: modelData.unreported > 0 ? "#33261A" : Pos.panelRaised
                    RowLayout {
                        anchors.fill: parent
                        anchors.leftMargin: 10
                        anchors.rightMargin: 10
                        spacing: 12
                        Cell { Layout.preferredWidth: 300; text: modelData.show }
                        Cell { Layout.preferredWidth: 140; text: modelData.till }
                        Cell { Layout.preferredWidth: 210; text: modelData.state_text; color: modelData.state === "active" ? Theme.success : modelData.state === "returned" ? Theme.textMuted : Theme.warning }
                        Cell { Layout.preferredWidth: 80; text: String(modelData.leased) }
                        Cell { Layout.preferredWidth: 170; text: qsTr("%1 seats · %n sale(s)", "", modelData.sales).arg(modelData.sold) }
                        Cell { Layout.preferredWidth: 90; text: String(modelData.returned) }
                        Cell { Layout.preferredWidth: 110; text: String(modelData.unreported); color: modelData.unreported > 0 ? Theme.warning : Theme.text; font.bold: modelData.unreported > 0 }
                        Cell { Layout.preferredWidth: 110; text: modelData.expires; color: Theme.textMuted }
                        Item { Layout.fillWidth: true }
                        SButton {
                            objectName: "revoke_" + modelData.lease_id
                            visible: modelData.can_revoke
                            danger: true
                            text: qsTr("Revoke")
                            onClicked: page.leases.revoke(modelData.lease_id)
                        }
                        SButton {
                            objectName: "release_" + modelData.lease_id
                            visible: modelData.can_release
                            primary: true
                            text: qsTr("Release unreported seats")
                            onClicked: page.leases.releaseUnreported(modelData.lease_id)
                        }
                    }
                }
                Text {
                    anchors.centerIn: parent
                    visible: list.count === 0 && !page.leases.loading
                    text: qsTr("No till holds a lease for these shows.")
                    font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: "#6B7597"
                }
            }
        }
    }
}
