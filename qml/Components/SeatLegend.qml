// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.Ui

/*! Legend of the seat map: each tier's colour and price, then the shapes for wheelchair, selected, held and
    booked seats (the same shapes the map draws). */
Flow {
    id: legend
    property var tiers: []
    property color selectedColor: Theme.accent
    spacing: Theme.spaceL

    component Swatch: Row {
        property string label
        property color fill
        property string shape: "square" // square, octagon, hollow, cross, selected
        spacing: Theme.spaceS
        Item {
            width: 26; height: 26
            anchors.verticalCenter: parent.verticalCenter
            Rectangle {
                anchors.centerIn: parent
                visible: shape === "square" || shape === "selected" || shape === "octagon" || shape === "hollow"
                width: shape === "selected" ? 24 : 20; height: width
                radius: shape === "octagon" ? width / 2 : 3
                color: shape === "hollow" ? "transparent" : fill
                border.width: shape === "hollow" ? 5 : 0
                border.color: fill
                Rectangle {
                    visible: shape === "selected"
                    anchors.centerIn: parent
                    width: 8; height: 8; color: "white"
                }
            }
            Repeater {
                model: shape === "cross" ? 2 : 0
                Rectangle {
                    required property int index
                    anchors.centerIn: parent
                    width: 26; height: 7; radius: 2
                    rotation: index === 0 ? 45 : -45
                    color: fill
                }
            }
        }
        Text {
            text: label
            anchors.verticalCenter: parent.verticalCenter
            font.pixelSize: Theme.fontCaption
            font.family: Theme.fontFamily
            color: Theme.text
        }
    }

    Repeater {
        model: legend.tiers
        Swatch {
            required property var modelData
            label: modelData.name.charAt(0).toUpperCase() + modelData.name.slice(1) + "  " + modelData.price
            fill: modelData.color
        }
    }
    Swatch { label: qsTr("Wheelchair space"); fill: "#B8C2DA"; shape: "octagon" }
    Swatch { label: qsTr("Your seats"); fill: legend.selectedColor; shape: "selected" }
    Swatch { label: qsTr("Held"); fill: "#79839A"; shape: "hollow" }
    Swatch { label: qsTr("Sold"); fill: "#586074"; shape: "cross" }
}
