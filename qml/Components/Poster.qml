// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import Marquee.Ui

/*! Generated poster artwork: a gradient, light beams and the title's initial, all derived from the title, so
    every movie has its own look without shipping images. */
Rectangle {
    id: poster
    property string title
    property int seed: 0
    readonly property var colors: Theme.artColors(seed)

    radius: Theme.radius
    clip: true
    gradient: Gradient {
        GradientStop { position: 0.0; color: poster.colors[0] }
        GradientStop { position: 1.0; color: poster.colors[1] }
    }
    Accessible.role: Accessible.Graphic
    Accessible.name: qsTr("Poster of %1").arg(title)

    Repeater {
        model: 3
        Rectangle {
            required property int index
            width: poster.width * 0.35
            height: poster.height * 2
            x: poster.width * (0.1 + ((poster.seed >> (index * 3)) % 7) / 9)
            y: -poster.height * 0.4
            rotation: 18 + index * 14 + (poster.seed % 20)
            opacity: 0.12
            color: "white"
        }
    }
    Text {
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.rightMargin: -poster.width * 0.05
        anchors.bottomMargin: -poster.height * 0.12
        text: poster.title.length > 0 ? poster.title.charAt(0) : ""
        font.pixelSize: poster.height * 0.75
        font.bold: true
        font.family: Theme.fontFamily
        color: "white"
        opacity: 0.18
    }
    Text {
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: poster.width * 0.08
        text: poster.title
        wrapMode: Text.WordWrap
        maximumLineCount: 3
        font.pixelSize: Math.max(14, poster.width * 0.11)
        font.bold: true
        font.family: Theme.fontFamily
        color: "white"
        style: Text.Raised
        styleColor: "#40000000"
    }
}
