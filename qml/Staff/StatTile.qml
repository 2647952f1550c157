// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.Ui

/*! A key figure: label, big value, a caption, a coloured accent strip. */
Rectangle {
    id: tile
    property string label: ""
    property string value: ""
    property string caption: ""
    property color accentColor: Theme.accent
    implicitHeight: 112
    radius: Pos.radiusLarge
    color: Pos.panel
    border.width: 1
    border.color: Pos.line
    Accessible.role: Accessible.StaticText
    Accessible.name: label + ": " + value

    Rectangle {
        width: 4; radius: 2
        anchors.left: parent.left; anchors.top: parent.top; anchors.bottom: parent.bottom
        anchors.margins: 14
        color: tile.accentColor
    }
    ColumnLayout {
        anchors.fill: parent
        anchors.leftMargin: 32; anchors.rightMargin: Pos.pad; anchors.topMargin: 14; anchors.bottomMargin: 14
        spacing: 2
        Text { text: tile.label.toUpperCase(); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1.2; font.family: Theme.fontFamily; color: Theme.textMuted }
        Text { text: tile.value; font.pixelSize: 30; font.bold: true; font.family: Theme.fontFamily; color: Theme.text; Layout.fillWidth: true; elide: Text.ElideRight }
        Text { text: tile.caption; visible: text.length > 0; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted; Layout.fillWidth: true; elide: Text.ElideRight }
    }
}
