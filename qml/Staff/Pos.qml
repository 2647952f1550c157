// SPDX-License-Identifier: AGPL-3.0-or-later
pragma Singleton
import QtQuick
import Marquee.Ui

/*! The staff screens' scale: a till and a desk are read from arm's length at a desk, so type and controls are
    denser than the kiosk's (Theme gives the colours, so both share one look). */
QtObject {
    readonly property int fontHero: 44
    readonly property int fontTitle: 24
    readonly property int fontHeading: 18
    readonly property int fontBody: 15
    readonly property int fontCaption: 12
    readonly property int control: 40
    readonly property int controlLarge: 52
    readonly property int radius: 10
    readonly property int radiusLarge: 14
    readonly property int gap: 12
    readonly property int pad: 18

    // A little brighter than the kiosk's lobby darkness: staff work under office light.
    readonly property color canvas: Theme.highContrast ? "#000000" : "#0D1220"
    readonly property color panel: Theme.highContrast ? "#000000" : "#151C2E"
    readonly property color panelRaised: Theme.highContrast ? "#111111" : "#1D2640"
    readonly property color line: Theme.highContrast ? "#FFFFFF" : "#283352"
    readonly property color field: Theme.highContrast ? "#000000" : "#0F1526"
    /*! Text on an accent-coloured button (not named onAccent: QML reads on<Name> as a signal handler). */
    readonly property color textOnAccent: Theme.highContrast ? "#000000" : "#FFFFFF"
    readonly property color info: "#5B8CFF"
    readonly property color cyan: "#22C3E6"
    readonly property color violet: "#9B7BFF"
    readonly property var series: ["#FF4F8B", "#5B8CFF", "#F5B82E", "#3DD68C", "#9B7BFF", "#22C3E6", "#FF7A45"]
}
