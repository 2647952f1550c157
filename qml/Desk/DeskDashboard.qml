// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import QtCharts
import Marquee.App
import Marquee.Ui

/*! The dashboard: key figures, revenue and tickets per day, revenue by channel, and the sales tables by show,
    movie, channel and device (sortable, filterable, CSV), every refund of the range (staff's and the server's own:
    GET /api/v1/reports/refunds) and fleet health. The Refunds tile counts refunds of bookings, as the sales figures
    do; refunds of payments that never became a booking (a lost hold) are added as "unbooked". */
Item {
    id: page
    property int tab: 0
    readonly property var tabs: [
        { label: qsTr("By show"), model: Desk.salesByShow, name: "sales-by-show" },
        { label: qsTr("By movie"), model: Desk.salesByMovie, name: "sales-by-movie" },
        { label: qsTr("By channel"), model: Desk.salesByChannel, name: "sales-by-channel" },
        { label: qsTr("By device"), model: Desk.salesByDevice, name: "sales-by-device" },
        { label: qsTr("By day"), model: Desk.salesByDay, name: "sales-by-day" },
        { label: qsTr("Refunds"), model: Desk.refunds, name: "refunds" }
    ]
    readonly property int onlineDevices: { Desk.devices.count; return Desk.devices.values("online").filter(v => v === true).length }

    ColumnLayout {
        anchors.fill: parent
        spacing: 20

        RowLayout {
            Layout.fillWidth: true
            spacing: 20
            StatTile { Layout.fillWidth: true; label: qsTr("Revenue"); value: Desk.totals.revenue || "—"; caption: qsTr("%1 → %2").arg(Desk.fromDate).arg(Desk.toDate); accentColor: Theme.accent; objectName: "tileRevenue" }
            StatTile { Layout.fillWidth: true; label: qsTr("Tickets"); value: String(Desk.totals.tickets || 0); caption: qsTr("%n booking(s)", "", Desk.totals.bookings || 0); accentColor: Pos.info; objectName: "tileTickets" }
            StatTile { Layout.fillWidth: true; label: qsTr("Average ticket"); value: Desk.totals.average || "—"; caption: qsTr("revenue ÷ tickets"); accentColor: Theme.gold }
            StatTile { Layout.fillWidth: true; label: qsTr("Refunds"); value: Desk.totals.refunds || "—"; caption: qsTr("%n refund(s) · net %1", "", Desk.totals.refund_count || 0).arg(Desk.totals.net || "—")
                       + (Desk.totals.unbooked_refund_count > 0 ? qsTr(" · +%n unbooked", "", Desk.totals.unbooked_refund_count) : ""); accentColor: Theme.danger; objectName: "tileRefunds" }
            StatTile { Layout.fillWidth: true; label: qsTr("Kiosk fleet"); value: qsTr("%1 / %2 online").arg(page.onlineDevices).arg(Desk.devices.count); caption: qsTr("heartbeat within 2 minutes"); accentColor: Theme.success }
        }

        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 340
            Layout.maximumHeight: 340
            Layout.minimumHeight: 280
            spacing: 20
            Card {
                Layout.fillWidth: true
                Layout.fillHeight: true
                title: qsTr("Revenue and tickets per day")
                subtitle: Desk.totals.currency ? qsTr("revenue in %1 (bars), tickets (line)").arg(Desk.totals.currency) : ""
                padding: 10
                ChartView {
                    id: dayChart
                    objectName: "revenueChart"
                    anchors.fill: parent
                    antialiasing: true
                    backgroundColor: "transparent"
                    plotAreaColor: "transparent"
                    legend.visible: false
                    margins.top: 4; margins.bottom: 4; margins.left: 4; margins.right: 4
                    readonly property var labels: { Desk.salesByDay.count; return Desk.salesByDay.values("short_label") }
                    readonly property var revenue: { Desk.salesByDay.count; return Desk.salesByDay.values("revenue_major") }
                    readonly property var tickets: { Desk.salesByDay.count; return Desk.salesByDay.values("tickets") }
                    // Four equal steps of 1, 2 or 5 × 10^k, so the axis labels are round and never repeat.
                    function niceMax(values) {
                        const raw = Math.max(4, ...values) * 1.1 / 4
                        const p = Math.pow(10, Math.floor(Math.log10(raw)))
                        const step = [1, 2, 5, 10].find(f => f * p >= raw) * p
                        return step * 4
                    }
                    BarCategoryAxis {
                        id: days
                        categories: dayChart.labels
                        labelsColor: Theme.textMuted
                        labelsFont.pixelSize: 11
                        gridVisible: false
                        color: Pos.line
                    }
                    ValueAxis {
                        id: revenueAxis
                        min: 0
                        max: dayChart.niceMax(dayChart.revenue)
                        tickCount: 5
                        labelFormat: "%.0f"
                        labelsColor: Theme.textMuted
                        labelsFont.pixelSize: 11
                        gridLineColor: "#1F2842"
                        color: "transparent"
                    }
                    ValueAxis {
                        id: ticketAxis
                        min: 0
                        max: dayChart.niceMax(dayChart.tickets)
                        tickCount: 5
                        labelFormat: "%.0f"
                        labelsColor: Pos.cyan
                        labelsFont.pixelSize: 11
                        gridVisible: false
                        color: "transparent"
                    }
                    BarSeries {
                        axisX: days
                        axisY: revenueAxis
                        barWidth: 0.62
                        BarSet { label: qsTr("Revenue"); values: dayChart.revenue; color: Theme.accent; borderColor: Theme.accent }
                    }
                    LineSeries {
                        id: ticketLine
                        axisX: days
                        axisYRight: ticketAxis
                        color: Pos.cyan
                        width: 3
                        pointsVisible: true
                    }
                    function refill() {
                        ticketLine.clear()
                        for (let i = 0; i < tickets.length; ++i)
                            ticketLine.append(i, tickets[i])
                    }
                    onTicketsChanged: refill()
                    Component.onCompleted: refill()
                }
            }
            Card {
                Layout.preferredWidth: 460
                Layout.fillHeight: true
                title: qsTr("Revenue by channel")
                subtitle: qsTr("kiosk · till · api")
                padding: 10
                ChartView {
                    id: channelChart
                    objectName: "channelChart"
                    anchors.fill: parent
                    antialiasing: true
                    backgroundColor: "transparent"
                    legend.alignment: Qt.AlignRight
                    legend.labelColor: Theme.text
                    legend.font.pixelSize: 13
                    margins.top: 0; margins.bottom: 0; margins.left: 0; margins.right: 0
                    PieSeries {
                        id: pie
                        holeSize: 0.55
                        size: 0.9
                    }
                    function refill() {
                        pie.clear()
                        const labels = Desk.salesByChannel.values("label")
                        const texts = Desk.salesByChannel.values("revenue_text")
                        const shares = Desk.salesByChannel.values("revenue_minor") // a pie needs proportions only
                        for (let i = 0; i < labels.length; ++i) {
                            const slice = pie.append(labels[i] + "  " + texts[i], shares[i])
                            slice.color = Pos.series[i % Pos.series.length]
                            slice.borderColor = Pos.panel
                            slice.borderWidth = 3
                            slice.labelColor = Theme.text
                        }
                    }
                    Connections { target: Desk.salesByChannel; function onCountChanged() { channelChart.refill() } }
                    Component.onCompleted: refill()
                    Text {
                        anchors.centerIn: parent
                        visible: Desk.salesByChannel.count === 0
                        text: qsTr("No sales in this range")
                        font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
                    }
                }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 20
            Card {
                Layout.fillWidth: true
                Layout.fillHeight: true
                title: qsTr("Sales")
                actions: [
                    Row {
                        spacing: 4
                        Repeater {
                            model: page.tabs
                            SButton {
                                required property var modelData
                                required property int index
                                objectName: "tab_" + modelData.name
                                quiet: page.tab !== index
                                primary: page.tab === index
                                text: modelData.label
                                onClicked: page.tab = index
                            }
                        }
                    }
                ]
                DataTable {
                    anchors.fill: parent
                    model: page.tabs[page.tab].model
                    exportName: page.tabs[page.tab].name
                    onExportRequested: Desk.exportTable(page.tabs[page.tab].model, page.tabs[page.tab].name)
                }
            }
            Card {
                Layout.preferredWidth: 460
                Layout.fillHeight: true
                title: qsTr("Fleet health")
                subtitle: qsTr("last heartbeat, offline queue, printer")
                ListView {
                    id: fleet
                    anchors.fill: parent
                    clip: true
                    spacing: 6
                    model: Desk.devices
                    delegate: Rectangle {
                        required property var name
                        required property var health
                        required property var queue_length
                        required property var printer_state
                        required property var last_seen_at
                        width: fleet.width
                        height: 54
                        radius: 8
                        color: Pos.panelRaised
                        readonly property color tone: health === "healthy" ? Theme.success : health === "attention" ? Theme.warning : Theme.danger
                        RowLayout {
                            anchors.fill: parent
                            anchors.leftMargin: 12
                            anchors.rightMargin: 12
                            spacing: 10
                            Rectangle { width: 10; height: 10; radius: 5; color: parent.parent.tone }
                            Column {
                                Layout.fillWidth: true
                                Text { text: name; font.pixelSize: Pos.fontBody; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                                Text { text: qsTr("queue %1 · printer %2").arg(queue_length === undefined || queue_length === null ? "—" : queue_length).arg(printer_state || "—"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                            }
                            Text { text: health; font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily; color: parent.parent.tone }
                        }
                    }
                    Text {
                        anchors.centerIn: parent
                        visible: fleet.count === 0
                        text: qsTr("No devices enrolled")
                        font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted
                    }
                }
            }
        }
    }
}
