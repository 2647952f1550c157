// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import Marquee.Ui

/*! A staff button: compact, rounded, with an optional keyboard shortcut shown as a keycap ("F2", "Enter"). */
Button {
    id: control
    property bool primary: false
    property bool danger: false
    property bool quiet: false
    property bool large: false
    property string keyHint: ""
    property color accentColor: Theme.accent

    implicitHeight: large ? Pos.controlLarge : Pos.control
    implicitWidth: Math.max(implicitHeight, row.implicitWidth + 2 * Pos.pad)
    font.pixelSize: large ? Pos.fontHeading : Pos.fontBody
    font.family: Theme.fontFamily
    font.bold: primary || large
    focusPolicy: Qt.NoFocus
    Accessible.role: Accessible.Button
    Accessible.name: text + (keyHint ? " (" + keyHint + ")" : "")

    contentItem: Item {
        implicitWidth: row.implicitWidth
        implicitHeight: row.implicitHeight
        Row {
            id: row
            anchors.centerIn: parent
            spacing: 8
            Text {
                anchors.verticalCenter: parent.verticalCenter
                text: control.text
                font: control.font
                color: control.primary ? Pos.textOnAccent : control.danger ? Theme.danger : Theme.text
                opacity: control.enabled ? 1 : 0.45
            }
            KeyHint {
                anchors.verticalCenter: parent.verticalCenter
                visible: control.keyHint.length > 0
                text: control.keyHint
                inverted: control.primary
            }
        }
    }
    background: Rectangle {
        radius: Pos.radius
        color: control.primary ? (control.down ? Qt.darker(control.accentColor, 1.2) : control.hovered ? Qt.lighter(control.accentColor, 1.08) : control.accentColor)
             : control.quiet ? (control.down || control.hovered ? Pos.panelRaised : "transparent")
             : control.danger ? (control.down ? "#4A1D24" : "#2E1820")
             : (control.down ? Pos.line : control.hovered ? "#242E4C" : Pos.panelRaised)
        border.width: control.primary || control.quiet ? 0 : 1
        border.color: control.danger ? Qt.darker(Theme.danger, 1.3) : Pos.line
        opacity: control.enabled ? 1 : 0.5
    }
}
