// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import Marquee.Ui

/*! A staff text field: dark, rounded, accent ring when focused, a label above. */
TextField {
    id: field
    property bool large: false
    property bool invalid: false
    implicitHeight: large ? 64 : Pos.control
    font.pixelSize: large ? 30 : Pos.fontBody
    font.family: Theme.fontFamily
    font.bold: large
    color: Theme.text
    placeholderTextColor: "#6B7597"
    selectionColor: Theme.accent
    selectedTextColor: Pos.textOnAccent
    leftPadding: 14
    rightPadding: 14
    Accessible.role: Accessible.EditableText
    Accessible.name: placeholderText
    background: Rectangle {
        radius: Pos.radius
        color: Pos.field
        border.width: field.activeFocus || field.invalid ? 2 : 1
        border.color: field.invalid ? Theme.danger : field.activeFocus ? Theme.accent : Pos.line
    }
}
