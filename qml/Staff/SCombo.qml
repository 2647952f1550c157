// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import Marquee.Ui

/*! A dark combo box over [{id, name}] choices; currentId is the chosen id. */
ComboBox {
    id: combo
    property var choices: []
    /*! Shown, muted, while nothing is chosen (a new show's movie and screen start unchosen). */
    property string placeholderText: ""
    readonly property var currentId: currentIndex >= 0 && currentIndex < choices.length ? choices[currentIndex].id : undefined
    function selectId(id) { for (let i = 0; i < choices.length; ++i) if (choices[i].id === id) { currentIndex = i; return } currentIndex = -1 }
    model: choices
    textRole: "name"
    implicitHeight: Pos.control
    font.pixelSize: Pos.fontBody
    font.family: Theme.fontFamily
    contentItem: Text {
        leftPadding: 14
        rightPadding: 30
        text: combo.currentIndex < 0 ? combo.placeholderText : combo.displayText
        font: combo.font
        color: combo.currentIndex < 0 ? Theme.textMuted : Theme.text
        verticalAlignment: Text.AlignVCenter
        elide: Text.ElideRight
    }
    indicator: Text {
        x: combo.width - width - 12
        anchors.verticalCenter: parent.verticalCenter
        text: "▾"
        color: Theme.textMuted
        font.pixelSize: 14
    }
    background: Rectangle {
        radius: Pos.radius
        color: Pos.field
        border.width: combo.activeFocus ? 2 : 1
        border.color: combo.activeFocus ? Theme.accent : Pos.line
    }
    popup.background: Rectangle { radius: Pos.radius; color: Pos.panelRaised; border.width: 1; border.color: Pos.line }
    delegate: ItemDelegate {
        required property var modelData
        required property int index
        width: combo.width
        contentItem: Text { text: modelData.name; color: Theme.text; font: combo.font; elide: Text.ElideRight }
        background: Rectangle { color: highlighted ? "#2B2150" : "transparent" }
        highlighted: combo.highlightedIndex === index
    }
}
