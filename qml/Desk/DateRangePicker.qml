// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! The report range: presets (7, 14, 30, 90 days) and two dates; Enter in either date applies them. */
RowLayout {
    spacing: 8
    Repeater {
        model: [7, 14, 30, 90]
        SButton {
            required property int modelData
            quiet: true
            text: qsTr("%1 d").arg(modelData)
            onClicked: Desk.setLastDays(modelData)
        }
    }
    SField { id: from; objectName: "rangeFrom"; Layout.preferredWidth: 132; text: Desk.fromDate; placeholderText: "YYYY-MM-DD"; onAccepted: Desk.setRange(from.text, to.text) }
    Text { text: "→"; color: Theme.textMuted; font.pixelSize: Pos.fontBody }
    SField { id: to; objectName: "rangeTo"; Layout.preferredWidth: 132; text: Desk.toDate; placeholderText: "YYYY-MM-DD"; onAccepted: Desk.setRange(from.text, to.text) }
    SButton { text: qsTr("Apply"); onClicked: Desk.setRange(from.text, to.text) }
}
