// SPDX-License-Identifier: AGPL-3.0-or-later
pragma Singleton
import QtQuick

/*! Colours, type scale and spacing of the app. A dark "cinema lobby" theme, a high-contrast variant and a
    larger-text toggle; every screen takes its looks from here. */
QtObject {
    id: theme

    property bool highContrast: false
    property bool largeText: false
    readonly property real textScale: largeText ? 1.3 : 1.0

    // Colours
    readonly property color background: highContrast ? "#000000" : "#0A0E19"
    readonly property color backgroundAlt: highContrast ? "#000000" : "#141B2E"
    readonly property color surface: highContrast ? "#000000" : "#161D31"
    readonly property color surfaceRaised: highContrast ? "#111111" : "#212A45"
    readonly property color outline: highContrast ? "#FFFFFF" : "#334066"
    readonly property color text: "#FFFFFF"
    readonly property color textMuted: highContrast ? "#FFFFFF" : "#A9B3CE"
    readonly property color accent: highContrast ? "#FFE500" : "#FF4F8B"
    readonly property color accentPressed: highContrast ? "#C8B400" : "#D93A72"
    readonly property color onAccent: highContrast ? "#000000" : "#FFFFFF"
    readonly property color gold: highContrast ? "#FFE500" : "#F5B82E"
    readonly property color danger: highContrast ? "#FF7070" : "#FF5A4F"
    readonly property color warning: highContrast ? "#FFE500" : "#FFB020"
    readonly property color success: highContrast ? "#00FF90" : "#3DD68C"
    readonly property color stage: highContrast ? "#FFFFFF" : "#DDE3F0"

    // Type scale (pixel sizes)
    readonly property int fontDisplay: Math.round(60 * textScale)
    readonly property int fontTitle: Math.round(40 * textScale)
    readonly property int fontHeading: Math.round(28 * textScale)
    readonly property int fontBody: Math.round(21 * textScale)
    readonly property int fontCaption: Math.round(17 * textScale)
    readonly property string fontFamily: "DejaVu Sans"

    // Spacing, shapes, touch
    readonly property int spaceXs: 4
    readonly property int spaceS: 8
    readonly property int spaceM: 16
    readonly property int spaceL: 24
    readonly property int spaceXl: 40
    readonly property int spaceXxl: 64
    readonly property int radius: 20
    readonly property int radiusSmall: 12
    /*! Smallest touch target: 48 px is the minimum; the kiosk uses 72. */
    readonly property int touchMin: 48
    readonly property int touch: 76

    /*! Two colours for generated artwork, from a number derived from the title. */
    function artColors(seed) {
        const palettes = [["#FF4F8B", "#3A1C71"], ["#F5B82E", "#B23A48"], ["#3FB6A8", "#1D2B64"], ["#7C8CF8", "#2B1055"],
                          ["#FF7A45", "#4A0D67"], ["#00C9A7", "#203A43"], ["#E5717A", "#0F2027"], ["#8FC25A", "#134E5E"]]
        return palettes[Math.abs(seed) % palettes.length]
    }
}
