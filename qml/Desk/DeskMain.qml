// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Window
import QtQuick.Layouts
import QtQuick.Controls.Basic
import Marquee.App
import Marquee.Ui

/*! The manager desk (--role manager): a desktop window with a sidebar of pages, the report range on top. */
Window {
    id: window
    width: 1920
    height: 1080
    // Smaller than the pages are laid out for (pageArea's minimum): a narrow window scrolls, it never squeezes.
    minimumWidth: 900
    minimumHeight: 600
    visible: true
    color: Pos.canvas
    title: qsTr("Marquee — Manager desk")

    InsecureBanner {
        id: insecureBanner
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
    }

    readonly property var pages: [
        { key: "dashboard", label: qsTr("Dashboard"), glyph: "▦" },
        { key: "occupancy", label: qsTr("Occupancy"), glyph: "◧" },
        { key: "shows", label: qsTr("Shows"), glyph: "▶" },
        { key: "fleet", label: qsTr("Kiosk fleet"), glyph: "◉" },
        { key: "leases", label: qsTr("Leases"), glyph: "⛁" },
        { key: "shifts", label: qsTr("Shifts"), glyph: "◷" },
        { key: "audit", label: qsTr("Audit log"), glyph: "≣" }
    ]

    // Below the warning, never under it (it has no height without it).
    Loader {
        anchors.fill: parent
        anchors.topMargin: insecureBanner.height
        active: !Desk.session.signedIn
        sourceComponent: SignInPanel {
            session: Desk.session
            heading: qsTr("Manager desk")
            blurb: qsTr("Sales, occupancy, the kiosk fleet and the show schedule. Managers and admins only.")
        }
        onLoaded: item.forceActiveFocus()
    }

    Item {
        anchors.fill: parent
        anchors.topMargin: insecureBanner.height
        visible: Desk.session.signedIn

        Rectangle {
            id: sidebar
            width: 240
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            color: Pos.panel
            Rectangle { anchors.right: parent.right; width: 1; height: parent.height; color: Pos.line }
            ColumnLayout {
                anchors.fill: parent
                anchors.margins: 16
                spacing: 6
                Row {
                    Layout.bottomMargin: 24
                    Layout.topMargin: 6
                    spacing: 10
                    Rectangle {
                        width: 34; height: 34; radius: 9
                        gradient: Gradient {
                            GradientStop { position: 0; color: Theme.accent }
                            GradientStop { position: 1; color: "#7C3AED" }
                        }
                        Text { anchors.centerIn: parent; text: "M"; font.pixelSize: 18; font.bold: true; color: "white"; font.family: Theme.fontFamily }
                    }
                    Column {
                        anchors.verticalCenter: parent.verticalCenter
                        Text { text: "Marquee"; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                        Text { text: qsTr("Manager desk"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                    }
                }
                Repeater {
                    model: window.pages
                    delegate: Rectangle {
                        required property var modelData
                        readonly property bool current: Desk.page === modelData.key
                        Layout.fillWidth: true
                        height: 42
                        radius: Pos.radius
                        color: current ? "#2B2150" : navMouse.containsMouse ? Pos.panelRaised : "transparent"
                        Accessible.role: Accessible.PageTab
                        Accessible.name: modelData.label
                        Rectangle { visible: parent.current; width: 3; height: 20; radius: 2; color: Theme.accent; anchors.verticalCenter: parent.verticalCenter; x: 2 }
                        Row {
                            anchors.verticalCenter: parent.verticalCenter
                            x: 16
                            spacing: 12
                            Text { text: modelData.glyph; width: 18; font.pixelSize: 15; color: parent.parent.current ? Theme.accent : Theme.textMuted }
                            Text { text: modelData.label; font.pixelSize: Pos.fontBody; font.bold: parent.parent.current; font.family: Theme.fontFamily; color: parent.parent.current ? Theme.text : Theme.textMuted }
                        }
                        MouseArea { id: navMouse; anchors.fill: parent; hoverEnabled: true; onClicked: Desk.page = modelData.key }
                    }
                }
                Item { Layout.fillHeight: true }
                // Who is signed in, and the way out beneath: a long name or a longer "Sign out" never overlap.
                Rectangle {
                    Layout.fillWidth: true
                    height: footer.implicitHeight + 24
                    radius: Pos.radius
                    color: Pos.panelRaised
                    ColumnLayout {
                        id: footer
                        anchors.fill: parent
                        anchors.margins: 12
                        spacing: 8
                        RowLayout {
                            Layout.fillWidth: true
                            spacing: 10
                            Rectangle {
                                width: 36; height: 36; radius: 18; color: "#2A2250"
                                Text { anchors.centerIn: parent; text: Desk.session.name.charAt(0).toUpperCase(); font.pixelSize: 16; font.bold: true; color: Theme.text; font.family: Theme.fontFamily }
                            }
                            Column {
                                Layout.fillWidth: true
                                Text { width: parent.width; elide: Text.ElideRight; text: Desk.session.name; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                                Text { width: parent.width; elide: Text.ElideRight; text: Desk.session.roleLabel; font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                            }
                        }
                        SButton { Layout.fillWidth: true; quiet: true; text: qsTr("Sign out"); onClicked: Desk.session.signOut() }
                    }
                }
            }
        }

        // The top bar, the notice and the page scroll together when the window is smaller than the pages are laid
        // out for (about 1280 x 760 with the sidebar); the scroll bars appear only then, and stay visible.
        Flickable {
            id: pageArea
            objectName: "deskPageArea"
            readonly property int minimumPageWidth: 1040
            readonly property int minimumPageHeight: 760
            anchors.left: sidebar.right
            anchors.right: parent.right
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            clip: true
            boundsBehavior: Flickable.StopAtBounds
            flickableDirection: Flickable.AutoFlickIfNeeded
            contentWidth: Math.max(width, minimumPageWidth)
            contentHeight: Math.max(height, minimumPageHeight)
            ScrollBar.vertical: SScrollBar { objectName: "pageScrollV" }
            ScrollBar.horizontal: SScrollBar { objectName: "pageScrollH" }

            Item {
                width: pageArea.contentWidth
                height: pageArea.contentHeight
                Rectangle {
                    id: topBar
                    anchors.left: parent.left
                    anchors.right: parent.right
                    height: 72
                    color: Pos.canvas
                    RowLayout {
                        anchors.fill: parent
                        anchors.leftMargin: 28
                        anchors.rightMargin: 28
                        spacing: 12
                        Text {
                            text: { for (const p of window.pages) if (p.key === Desk.page) return p.label; return "" }
                            font.pixelSize: Pos.fontTitle; font.bold: true; font.family: Theme.fontFamily; color: Theme.text
                        }
                        Rectangle { visible: Desk.busy; width: 8; height: 8; radius: 4; color: Pos.cyan
                            SequentialAnimation on opacity { running: Desk.busy; loops: Animation.Infinite; NumberAnimation { to: 0.2; duration: 500 } NumberAnimation { to: 1; duration: 500 } } }
                        Item { Layout.fillWidth: true }
                        DateRangePicker {}
                        SButton { text: qsTr("Refresh"); keyHint: "F5"; onClicked: Desk.refresh() }
                    }
                }

                StatusBar {
                    id: message
                    objectName: "pageNotice"
                    anchors.left: parent.left
                    anchors.right: parent.right
                    anchors.top: topBar.bottom
                    anchors.leftMargin: 28
                    anchors.rightMargin: 28
                    text: Desk.message
                    error: Desk.messageIsError
                }

                Loader {
                    anchors.left: parent.left
                    anchors.right: parent.right
                    anchors.top: message.bottom
                    anchors.bottom: parent.bottom
                    anchors.margins: 28
                    anchors.topMargin: message.visible ? 16 : 0
                    sourceComponent: {
                        switch (Desk.page) {
                        case "occupancy": return occupancyPage
                        case "shows": return showsPage
                        case "fleet": return fleetPage
                        case "leases": return leasesPage
                        case "shifts": return shiftsPage
                        case "audit": return auditPage
                        default: return dashboardPage
                        }
                    }
                }
            }
        }
        Component { id: dashboardPage; DeskDashboard {} }
        Component { id: occupancyPage; DeskOccupancy {} }
        Component { id: showsPage; DeskShows {} }
        Component { id: fleetPage; DeskFleet {} }
        Component { id: leasesPage; DeskLeasesPage {} }
        Component { id: shiftsPage; DeskTablePage { model: Desk.shifts; exportName: "shifts"; title: qsTr("Till shifts"); subtitle: qsTr("Opened and closed shifts with their cash count, in the range.") } }
        Component {
            id: auditPage
            DeskTablePage {
                model: Desk.audit; exportName: "audit"; title: qsTr("Audit log")
                subtitle: qsTr("Every staff action: who, what, when, from which device, and why. Append-only.")
                notice: Desk.auditNotice
                canLoadMore: Desk.auditHasMore
                loadMoreText: qsTr("Load %L1 more").arg(Math.min(Desk.auditPageSize, Desk.auditTotal - Desk.audit.totalCount))
                onLoadMoreRequested: Desk.loadMoreAudit()
            }
        }
    }

    SessionGuard { session: Desk.session }
    Shortcut { sequence: "F5"; enabled: Desk.session.signedIn; onActivated: Desk.refresh() }
    Shortcut { sequence: "Ctrl+L"; enabled: Desk.session.signedIn; onActivated: Desk.session.lock() }
}
