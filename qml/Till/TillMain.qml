// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Window
import QtQuick.Layouts
import QtQuick.Controls.Basic
import Marquee.App
import Marquee.Ui

/*! The box-office till (--role cashier): sign in, then sell, find and refund, and run the shift, keyboard first.
    F1 sell · F2 find a booking · F3 shift · F9 lock · F10 open the drawer. */
Window {
    id: window
    width: 1920
    height: 1080
    minimumWidth: 1280
    minimumHeight: 760
    visible: true
    color: Pos.canvas
    title: qsTr("Marquee — Box office")

    InsecureBanner {
        id: insecureBanner
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
    }

    Rectangle {
        id: topBar
        visible: Till.session.signedIn
        anchors.top: insecureBanner.bottom // below the warning, never under it (no height without it)
        anchors.left: parent.left
        anchors.right: parent.right
        height: visible ? 64 : 0
        color: Pos.panel
        Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Pos.line }

        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 20
            anchors.rightMargin: 20
            spacing: 16
            Rectangle {
                width: 34; height: 34; radius: 9
                gradient: Gradient {
                    GradientStop { position: 0; color: Theme.accent }
                    GradientStop { position: 1; color: "#7C3AED" }
                }
                Text { anchors.centerIn: parent; text: "M"; font.pixelSize: 18; font.bold: true; color: "white"; font.family: Theme.fontFamily }
            }
            Text { text: qsTr("Box office"); font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
            Item { width: 20 }
            Repeater {
                model: [{ key: "sale", label: qsTr("Sell"), hint: "F1" },
                        { key: "lookup", label: qsTr("Find booking"), hint: "F2" },
                        { key: "shift", label: qsTr("Shift"), hint: "F3" }]
                delegate: SButton {
                    required property var modelData
                    quiet: Till.screen !== modelData.key && !(modelData.key === "sale" && (Till.screen === "tender" || Till.screen === "done"))
                    primary: !quiet
                    text: modelData.label
                    keyHint: modelData.hint
                    onClicked: window.go(modelData.key)
                }
            }
            Item { Layout.fillWidth: true }
            Rectangle {
                radius: 14
                // Layout sizes, not width: the layout must move the clock when the text grows.
                Layout.preferredHeight: 28
                Layout.preferredWidth: shiftLabel.implicitWidth + 28
                color: Till.shiftOpen ? "#123326" : "#33261A"
                border.width: 1
                border.color: Till.shiftOpen ? "#1F6B47" : "#6B4A1F"
                Text {
                    id: shiftLabel
                    anchors.centerIn: parent
                    text: Till.shiftOpen ? qsTr("Shift open since %1").arg(Till.shift.opened_at) : qsTr("No shift open")
                    font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily
                    color: Till.shiftOpen ? Theme.success : Theme.warning
                }
            }
            Text {
                id: clock
                font.pixelSize: Pos.fontHeading; font.family: Theme.fontFamily
                color: Theme.textMuted
                text: Till.clockText()
                Timer { interval: 15000; running: true; repeat: true; onTriggered: clock.text = Till.clockText() }
            }
            Rectangle {
                width: 36; height: 36; radius: 18
                color: "#2A2250"
                Text { anchors.centerIn: parent; text: Till.session.name.charAt(0).toUpperCase(); font.pixelSize: 16; font.bold: true; color: Theme.text; font.family: Theme.fontFamily }
            }
            Column {
                Text { text: Till.session.name; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                Text { text: Till.session.roleLabel; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
            }
            SButton { text: qsTr("Lock"); keyHint: "F9"; onClicked: Till.session.lock() }
            SButton { quiet: true; text: qsTr("Sign out"); onClicked: Till.session.signOut() }
        }
    }

    // Offline mode (Till.offline): under the top bar on every screen, no height when there is nothing to say.
    OfflineBanner {
        id: offlineBanner
        visible: Till.session.signedIn && text.length > 0
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: topBar.bottom
    }

    Loader {
        id: screenLoader
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: offlineBanner.visible ? offlineBanner.bottom : topBar.bottom
        anchors.bottom: parent.bottom
        focus: true
        sourceComponent: {
            switch (Till.screen) {
            case "sale": return saleScreen
            case "tender": return tenderScreen
            case "done": return doneScreen
            case "lookup": return lookupScreen
            case "shift": return shiftScreen
            default: return signInScreen
            }
        }
        onLoaded: item.forceActiveFocus()
    }
    Component { id: signInScreen; SignInPanel { session: Till.session; heading: qsTr("Box office"); blurb: qsTr("Sign in to sell tickets, find bookings and run your shift.") } }
    Component { id: saleScreen; TillSale {} }
    Component { id: tenderScreen; TillTender {} }
    Component { id: doneScreen; TillDone {} }
    Component { id: lookupScreen; TillLookup {} }
    Component { id: shiftScreen; TillShift {} }

    SessionGuard { session: Till.session }

    function go(key) {
        if (key === "sale") Till.back()
        else if (key === "lookup") Till.openLookup()
        else if (key === "shift") Till.openShiftScreen()
    }
    readonly property bool shortcutsOn: Till.session.signedIn && !Till.session.locked && !Till.session.reauthPending
    Shortcut { sequence: "F1"; enabled: window.shortcutsOn && Till.screen !== "tender"; onActivated: window.go("sale") }
    Shortcut { sequence: "F2"; enabled: window.shortcutsOn; onActivated: window.go("lookup") }
    Shortcut { sequence: "F3"; enabled: window.shortcutsOn; onActivated: window.go("shift") }
    Shortcut { sequence: "F9"; enabled: window.shortcutsOn; onActivated: Till.session.lock() }
    Shortcut { sequence: "F10"; enabled: window.shortcutsOn; onActivated: Till.openDrawer() }
}
