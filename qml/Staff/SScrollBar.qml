// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Controls.Basic
import Marquee.Ui

/*! A scroll bar that is there exactly when the content does not fit (policy AsNeeded) and then stays visible — the
    Basic style's handle is transparent until the view is scrolled, so a person at a narrow window could not tell
    that a table or page goes on past its edge. */
ScrollBar {
    id: bar
    policy: ScrollBar.AsNeeded
    /*! True while the content overflows and the bar is drawn. */
    readonly property bool shown: visible && size < 1.0
    visible: policy === ScrollBar.AlwaysOn || (policy === ScrollBar.AsNeeded && size < 1.0)
    padding: 2
    minimumSize: orientation === Qt.Horizontal ? height / Math.max(1, width) : width / Math.max(1, height)
    contentItem: Rectangle {
        implicitWidth: 10
        implicitHeight: 10
        radius: 5
        color: bar.pressed ? Theme.text : bar.hovered ? Theme.textMuted : "#4A5A82"
    }
    background: Rectangle {
        implicitWidth: 14
        implicitHeight: 14
        color: Qt.rgba(0, 0, 0, 0.25)
        radius: 7
    }
}
