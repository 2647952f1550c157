// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! A page that is one big table (audit log, shifts). */
Card {
    id: page
    required property JsonTableModel model
    property string exportName: "table"
    DataTable {
        anchors.fill: parent
        model: page.model
        exportName: page.exportName
        onExportRequested: Desk.exportTable(page.model, page.exportName)
    }
}
