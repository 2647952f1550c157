// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Window
import QtQuick.Controls.Basic
import QtQuick.VirtualKeyboard
import Marquee.App
import Marquee.Ui

/*! The app window: one screen at a time, chosen by Kiosk.screen. Full screen in kiosk mode; the only way out is
    the staff gesture (hold the top-left corner for three seconds, then the PIN). */
Window {
    id: window
    width: 1920
    height: 1080
    minimumWidth: 800
    minimumHeight: 600
    visible: true
    visibility: Kiosk.fullscreen ? Window.FullScreen : Window.Windowed
    flags: Kiosk.fullscreen ? (Qt.Window | Qt.FramelessWindowHint) : Qt.Window
    color: Theme.background
    title: qsTr("Marquee")

    readonly property bool portrait: height > width
    /*! True while a new screen fades in: screenshots wait for it (the fade advances per rendered frame, and a
        busy machine renders few frames). */
    readonly property bool screenFading: fadeIn.running

    Loader {
        id: screenLoader
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: insecureBanner.bottom // below the warning, never under it (no height without it)
        anchors.bottom: syncStatus.top
        focus: true
        sourceComponent: {
            switch (Kiosk.screen) {
            case "shows": return showsScreen
            case "seats": return seatsScreen
            case "summary": return summaryScreen
            case "payment": return paymentScreen
            case "declined": return declinedScreen
            case "printing": return printingScreen
            case "thanks": return thanksScreen
            case "offline": return offlineScreen
            case "error": return errorScreen
            case "delayed": return delayedScreen
            case "staff": return staffScreen
            default: return attractScreen
            }
        }
        onLoaded: { item.opacity = 0; fadeIn.restart() }
        NumberAnimation { id: fadeIn; target: screenLoader.item; property: "opacity"; to: 1; duration: 180 }
    }

    Component { id: attractScreen; AttractScreen { portrait: window.portrait } }
    Component { id: showsScreen; ShowsScreen { portrait: window.portrait } }
    Component { id: seatsScreen; SeatsScreen { portrait: window.portrait } }
    Component { id: summaryScreen; SummaryScreen { portrait: window.portrait } }
    Component { id: paymentScreen; PaymentScreen { portrait: window.portrait } }
    Component { id: declinedScreen; DeclinedScreen {} }
    Component { id: printingScreen; PrintingScreen {} }
    Component { id: thanksScreen; ThanksScreen {} }
    Component { id: offlineScreen; OfflineScreen {} }
    Component { id: errorScreen; ErrorScreen {} }
    Component { id: delayedScreen; DelayedScreen {} }
    Component { id: staffScreen; StaffScreen { portrait: window.portrait } }

    InsecureBanner {
        id: insecureBanner
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
    }

    SyncStatus {
        id: syncStatus
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
    }

    // Staff: press and hold the top-left corner for three seconds, then the PIN.
    MouseArea {
        id: staffCorner
        width: 96; height: 96
        z: 100
        pressAndHoldInterval: 3000
        onPressAndHold: staffDialog.open()
        Accessible.role: Accessible.Button
        Accessible.name: qsTr("Staff (hold three seconds)")
    }
    StaffDialog { id: staffDialog; z: 200 }

    InputPanel {
        id: keyboard
        z: 300
        y: Qt.inputMethod.visible ? window.height - height : window.height
        anchors.left: parent.left
        anchors.right: parent.right
        visible: Qt.inputMethod.visible
    }
}
