// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.Ui

/*! A panel with an optional title row; children go into the body below the title. */
Rectangle {
    id: card
    property string title: ""
    property string subtitle: ""
    default property alias content: body.data
    property alias actions: actionRow.data
    property int padding: Pos.pad
    color: Pos.panel
    radius: Pos.radiusLarge
    border.width: 1
    border.color: Pos.line

    RowLayout {
        id: head
        visible: card.title.length > 0
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.margins: card.padding
        height: visible ? implicitHeight : 0
        spacing: Pos.gap
        ColumnLayout {
            spacing: 2
            Layout.fillWidth: true
            // The texts fill the width: a layout whose children do not fill cannot grow past their width, and the
            // space left over would land between the title and the actions instead of pushing the actions right.
            Text {
                Layout.fillWidth: true
                text: card.title
                elide: Text.ElideRight
                font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily
                color: Theme.text
            }
            Text {
                Layout.fillWidth: true
                visible: card.subtitle.length > 0
                text: card.subtitle
                elide: Text.ElideRight
                font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily
                color: Theme.textMuted
            }
        }
        Row { id: actionRow; spacing: Pos.gap / 2 }
    }
    Item {
        id: body
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: head.visible ? head.bottom : parent.top
        anchors.bottom: parent.bottom
        anchors.margins: card.padding
    }
}
