// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import QtQuick.Controls.Basic
import Marquee.App
import Marquee.Ui

/*! The schedule: every show with its prices and occupancy; the editor creates a show or edits the chosen one
    (start, prices per tier, waiting room). Seats already held or sold are never changed by an edit. */
RowLayout {
    id: page
    spacing: 20
    property var editing: ({})           // the chosen show's row, or {} for a new show
    readonly property bool isNew: editing.show_id === undefined
    property var tierNames: ["standard", "premium"]

    function choose(row) {
        editing = row
        const tiers = row.price_tiers || {}
        tierNames = Object.keys(tiers).length > 0 ? Object.keys(tiers) : ["standard", "premium"]
        starts.text = row.starts_at ? Desk.startsInput(row) : ""   // the venue's wall-clock time, not this machine's
        currency.text = row.currency || ""
        waiting.checked = row.waiting_room === true
        reason.text = ""
        movie.selectId(row.movie_id)
        screenBox.selectId(row.screen ? row.screen.screen_id : undefined)
        prices.model = 0
        prices.model = tierNames.length
    }
    function priceText(name) {
        const tiers = editing.price_tiers || {}
        return Desk.priceInput(tiers[name], editing.currency || currency.text)
    }
    // The zone the start is typed in: the show's city, or for a new show the chosen screen's.
    readonly property string zoneName: isNew ? Desk.screenZone(screenBox.currentId === undefined ? 0 : screenBox.currentId) : (editing.time_zone || "")
    function collect() {
        let tiers = {}
        for (let i = 0; i < prices.count; ++i)
            tiers[page.tierNames[i]] = prices.itemAt(i).value
        return tiers
    }
    Component.onCompleted: choose({})

    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        title: qsTr("Shows")
        subtitle: qsTr("Click a show to edit it")
        actions: [ SButton { primary: true; text: qsTr("New show"); onClicked: page.choose({}) } ]
        DataTable {
            anchors.fill: parent
            model: Desk.shows
            exportName: "shows"
            onRowClicked: row => page.choose(row)
            onExportRequested: Desk.exportTable(Desk.shows, "shows")
        }
    }
    Card {
        Layout.preferredWidth: 370 // the shows table beside it needs the rest (DeskController's column widths)
        Layout.fillHeight: true
        title: page.isNew ? qsTr("New show") : qsTr("Edit show %1").arg(page.editing.show_id)
        subtitle: page.isNew ? qsTr("All seats start free.") : (page.editing.title || "") + qsTr(" · held and sold seats stay as they are")
        ColumnLayout {
            anchors.fill: parent
            spacing: 10
            component Label_: Text { font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 0.8; font.family: Theme.fontFamily; color: Theme.textMuted }
            Label_ { text: qsTr("MOVIE") }
            SCombo { id: movie; objectName: "showMovie"; Layout.fillWidth: true; choices: Desk.movieChoices; enabled: page.isNew; placeholderText: qsTr("Choose a movie") }
            Label_ { text: qsTr("SCREEN") }
            SCombo {
                id: screenBox; objectName: "showScreen"; Layout.fillWidth: true; choices: Desk.screenChoices; enabled: page.isNew; placeholderText: qsTr("Choose a screen")
                // A new show sells in its venue's currency unless the manager types another.
                onCurrentIdChanged: if (page.isNew && currentId !== undefined) currency.text = Desk.screenCurrency(currentId)
            }
            RowLayout {
                Layout.fillWidth: true
                spacing: 10
                ColumnLayout {
                    Layout.fillWidth: true
                    Label_ { text: page.zoneName ? qsTr("STARTS (%1)").arg(page.zoneName.toUpperCase()) : qsTr("STARTS (VENUE TIME)") }
                    SField { id: starts; objectName: "showStarts"; Layout.fillWidth: true; placeholderText: "2026-12-05 19:30" }
                }
                ColumnLayout {
                    Layout.preferredWidth: 110
                    Label_ { text: qsTr("CURRENCY") }
                    SField { id: currency; objectName: "showCurrency"; Layout.fillWidth: true; enabled: page.isNew; placeholderText: qsTr("venue's") }
                }
            }
            Label_ { text: qsTr("PRICES PER TIER") }
            // In a Column, not straight in the layout: Qt 6.4 layouts can rearrange with a destroyed delegate
            Column {
                Layout.fillWidth: true
                spacing: 8
                Repeater {
                    id: prices
                    model: page.tierNames.length
                    RowLayout {
                        required property int index
                        property alias value: priceField.text
                        width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                        Text { Layout.preferredWidth: 140; text: page.tierNames[index]; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text }
                        SField { id: priceField; Layout.fillWidth: true; text: page.priceText(page.tierNames[index]); placeholderText: "12.50" }
                    }
                }
            }
            RowLayout {
                Layout.fillWidth: true
                visible: !page.isNew
                Text { text: qsTr("Waiting room"); Layout.fillWidth: true; font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.text }
                Switch {
                    id: waiting
                    objectName: "waitingRoom"
                    onToggled: Desk.setWaitingRoom(page.editing.show_id, checked)
                    indicator: Rectangle {
                        implicitWidth: 48; implicitHeight: 26; radius: 13
                        x: waiting.leftPadding; y: parent.height / 2 - height / 2
                        color: waiting.checked ? Theme.accent : Pos.field
                        border.width: 1; border.color: waiting.checked ? Theme.accent : Pos.line
                        Rectangle { x: waiting.checked ? parent.width - width - 3 : 3; y: 3; width: 20; height: 20; radius: 10; color: "white"; Behavior on x { NumberAnimation { duration: 120 } } }
                    }
                }
            }
            Label_ { visible: !page.isNew; text: qsTr("REASON (AUDIT LOG)") }
            SField { id: reason; visible: !page.isNew; Layout.fillWidth: true; placeholderText: qsTr("Why the change") }
            Item { Layout.fillHeight: true }
            SButton {
                objectName: "saveShow"
                Layout.fillWidth: true
                large: true
                primary: true
                text: page.isNew ? qsTr("Create show") : qsTr("Save changes")
                onClicked: {
                    if (page.isNew)
                        Desk.createShow({ movie_id: movie.currentId, screen_id: screenBox.currentId, starts_at: starts.text, currency: currency.text, price_tiers: page.collect() })
                    else
                        Desk.updateShow(page.editing.show_id, { starts_at: starts.text, price_tiers: page.collect(), reason: reason.text })
                }
            }
        }
    }
}
