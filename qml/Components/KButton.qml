// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import Marquee.Ui

/*! The kiosk's button: large, rounded, at least Theme.touch high. */
Button {
    id: control
    property bool primary: false
    property bool danger: false
    property string icon_: ""

    implicitHeight: Theme.touch
    implicitWidth: Math.max(Theme.touch * 2.2, contentItem.implicitWidth + 2 * Theme.spaceXl)
    font.pixelSize: Theme.fontBody
    font.family: Theme.fontFamily
    font.bold: primary
    Accessible.role: Accessible.Button
    Accessible.name: text

    contentItem: Text {
        text: (control.icon_ ? control.icon_ + "  " : "") + control.text
        font: control.font
        color: control.primary ? Theme.onAccent : Theme.text
        horizontalAlignment: Text.AlignHCenter
        verticalAlignment: Text.AlignVCenter
        elide: Text.ElideRight
        opacity: control.enabled ? 1 : 0.45
    }
    background: Rectangle {
        radius: height / 2
        color: control.primary ? (control.down ? Theme.accentPressed : Theme.accent)
                               : control.danger ? (control.down ? "#5A1F22" : "#3A1A22")
                                                : (control.down ? Theme.outline : Theme.surfaceRaised)
        border.width: Theme.highContrast || !control.primary ? 2 : 0
        border.color: control.danger ? Theme.danger : (control.primary ? Theme.onAccent : Theme.outline)
        opacity: control.enabled ? 1 : 0.5
    }
}
