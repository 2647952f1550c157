// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtQuick.Layouts
import Marquee.App
import Marquee.Ui

/*! Taking the money for held seats. Cash: type what the customer hands over (empty = exact) and Enter; the change
    due shows as you type. Card: F4 (the terminal asks for the card). Split: type the cash part too, then F5 (or
    Enter): the cash part is taken, the rest goes on the card. Esc voids the sale and frees the seats. */
Item {
    id: screen
    focus: true
    onActiveFocusChanged: if (activeFocus) tendered.forceActiveFocus()
    readonly property bool splitting: splitField.text.length > 0
    readonly property string change: Till.changeFor(tendered.text, splitField.text)
    readonly property string cardPart: Till.cardPartFor(splitField.text)
    function pay() { if (splitting) Till.paySplit(splitField.text, tendered.text); else Till.payCash(tendered.text) }
    readonly property bool waitingForCard: Till.paymentState === "card_waiting"

    RowLayout {
        anchors.fill: parent
        anchors.margins: 20
        spacing: 20

        Card {
            Layout.preferredWidth: 560
            Layout.fillHeight: true
            title: qsTr("Order")
            subtitle: Till.showTitle + " · " + Till.showText
            ColumnLayout {
                anchors.fill: parent
                spacing: 10
                // In a Column, not straight in the layout: Qt 6.4 layouts can rearrange with a destroyed delegate
                Column {
                    Layout.fillWidth: true
                    spacing: 10
                    Repeater {
                        model: Till.basket
                        delegate: Rectangle {
                            required property var modelData
                            width: parent && parent.width > 0 ? parent.width : 1 // never 0: a Column skips zero-size rows, a layout an empty Column
                            height: 52
                            radius: 8
                            color: Pos.panelRaised
                            RowLayout {
                                anchors.fill: parent
                                anchors.leftMargin: 14
                                anchors.rightMargin: 14
                                Rectangle {
                                    width: 52; height: 30; radius: 6; color: "#2B2150"
                                    Text { anchors.centerIn: parent; text: modelData.seat; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                                }
                                Text { Layout.fillWidth: true; leftPadding: 10; text: qsTr("Seat %1 · %2").arg(modelData.seat).arg(modelData.tier); font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily; color: Theme.textMuted }
                                Text { text: modelData.price; font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: Theme.text }
                            }
                        }
                    }
                }
                Item { Layout.fillHeight: true }
                Rectangle { Layout.fillWidth: true; height: 1; color: Pos.line }
                RowLayout {
                    Layout.fillWidth: true
                    Text { text: qsTr("Total"); font.pixelSize: Pos.fontTitle; font.family: Theme.fontFamily; color: Theme.textMuted; Layout.fillWidth: true }
                    Text { objectName: "tenderTotal"; text: Till.totalText; font.pixelSize: Pos.fontHero; font.bold: true; font.family: Theme.fontFamily; color: Theme.gold }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 10
                    Rectangle {
                        radius: 12; height: 26; width: holdLabel.implicitWidth + 24
                        color: Till.holdSecondsLeft <= 60 ? "#3A2A12" : "#182338"
                        Text {
                            id: holdLabel
                            anchors.centerIn: parent
                            text: qsTr("Seats held for %1:%2").arg(Math.floor(Till.holdSecondsLeft / 60)).arg(("0" + Till.holdSecondsLeft % 60).slice(-2))
                            font.pixelSize: Pos.fontCaption; font.bold: true; font.family: Theme.fontFamily
                            color: Till.holdSecondsLeft <= 60 ? Theme.warning : Theme.textMuted
                        }
                    }
                    Item { Layout.fillWidth: true }
                    SButton { danger: true; text: qsTr("Void sale"); keyHint: "Esc"; enabled: !Till.busy && Till.paymentState === ""; onClicked: Till.back() }
                }
            }
        }

        Card {
            Layout.fillWidth: true
            Layout.fillHeight: true
            title: qsTr("Payment")
            subtitle: qsTr("Cash: type the amount handed over and press Enter (empty = exact). Card: F4. Part cash, part card: F5.")
            ColumnLayout {
                anchors.fill: parent
                spacing: 16
                StatusBar { Layout.fillWidth: true; text: Till.message; error: Till.messageIsError }
                Text { text: qsTr("CASH TENDERED"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                SField {
                    id: tendered
                    objectName: "tenderedField"
                    Layout.fillWidth: true
                    large: true
                    placeholderText: Till.totalText + "  " + qsTr("(exact)")
                    enabled: !screen.waitingForCard
                    invalid: text.length > 0 && screen.change.length === 0
                    onAccepted: screen.pay()
                    Keys.onEscapePressed: Till.back()
                    Keys.onPressed: event => {
                        if (event.key === Qt.Key_F4) { Till.payCard(); event.accepted = true }
                        else if (event.key === Qt.Key_F5) { splitField.forceActiveFocus(); event.accepted = true }
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 8
                    Repeater {
                        // Notes people hand over: the next round sums above the total (worked out in C++).
                        model: Till.cashSuggestions
                        SButton {
                            required property string modelData
                            Layout.fillWidth: true
                            text: modelData
                            enabled: !screen.waitingForCard && !Till.busy
                            onClicked: { tendered.text = modelData; tendered.forceActiveFocus() }
                        }
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 12
                    Text { text: qsTr("CUSTOMER"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    SField {
                        objectName: "customerContactField"
                        Layout.fillWidth: true
                        placeholderText: qsTr("phone or e-mail, to find the booking later (optional)")
                        text: Till.customerContact
                        enabled: !screen.waitingForCard && Till.paymentState === ""
                        onTextEdited: Till.customerContact = text
                        onAccepted: screen.pay()
                        Keys.onEscapePressed: Till.back()
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 12
                    Text { text: qsTr("SPLIT · CASH PART"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1; font.family: Theme.fontFamily; color: Theme.textMuted }
                    SField {
                        id: splitField
                        objectName: "splitCashField"
                        Layout.preferredWidth: 180
                        placeholderText: qsTr("none")
                        enabled: !screen.waitingForCard && Till.cardAvailable
                        invalid: text.length > 0 && screen.cardPart.length === 0
                        onAccepted: screen.pay()
                        Keys.onEscapePressed: { if (text.length > 0) text = ""; else Till.back() }
                        Keys.onPressed: event => {
                            if (event.key === Qt.Key_F5) { screen.pay(); event.accepted = true }
                        }
                    }
                    Text {
                        objectName: "splitCardPart"
                        Layout.fillWidth: true
                        text: screen.cardPart.length > 0 ? qsTr("then %1 on the card").arg(screen.cardPart)
                              : screen.splitting ? qsTr("above 0 and below the total") : ""
                        elide: Text.ElideRight
                        font.pixelSize: Pos.fontBody; font.family: Theme.fontFamily
                        color: screen.cardPart.length > 0 ? "#BFD3FF" : Theme.warning
                    }
                }
                Rectangle {
                    Layout.fillWidth: true
                    Layout.preferredHeight: 130
                    radius: Pos.radiusLarge
                    color: "#10261C"
                    border.width: 1
                    border.color: "#1F6B47"
                    Column {
                        anchors.centerIn: parent
                        spacing: 4
                        Text { anchors.horizontalCenter: parent.horizontalCenter; text: qsTr("CHANGE DUE"); font.pixelSize: Pos.fontCaption; font.bold: true; font.letterSpacing: 1.5; font.family: Theme.fontFamily; color: "#7FD9A8" }
                        Text {
                            objectName: "changeDue"
                            anchors.horizontalCenter: parent.horizontalCenter
                            text: screen.change.length > 0 ? screen.change : "—"
                            font.pixelSize: 64; font.bold: true; font.family: Theme.fontFamily
                            color: Theme.success
                        }
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 12
                    SButton {
                        objectName: "cashButton"
                        Layout.fillWidth: true
                        large: true
                        primary: true
                        accentColor: "#1FA46A"
                        text: Till.busy && Till.paymentState !== "card_waiting" ? qsTr("Booking…") : qsTr("Cash")
                        keyHint: "Enter"
                        enabled: !Till.busy && Till.paymentState === "" && !screen.splitting && (tendered.text.length === 0 || screen.change.length > 0)
                        onClicked: Till.payCash(tendered.text)
                    }
                    SButton {
                        objectName: "splitButton"
                        Layout.fillWidth: true
                        large: true
                        primary: true
                        accentColor: "#7A5CD6"
                        text: qsTr("Split")
                        keyHint: "F5"
                        enabled: Till.cardAvailable && !Till.offline.offline && !Till.busy && Till.paymentState === "" && screen.cardPart.length > 0 && screen.change.length > 0
                        onClicked: screen.pay()
                    }
                    SButton {
                        objectName: "cardButton"
                        Layout.fillWidth: true
                        large: true
                        primary: true
                        accentColor: Pos.info
                        text: qsTr("Card")
                        keyHint: "F4"
                        enabled: Till.cardAvailable && !Till.offline.offline && !Till.busy && Till.paymentState === "" && !screen.splitting
                        onClicked: Till.payCard()
                    }
                }
                Rectangle {
                    Layout.fillWidth: true
                    Layout.preferredHeight: cardColumn.implicitHeight + 32
                    visible: screen.waitingForCard || Till.paymentState === "confirming"
                    radius: Pos.radiusLarge
                    color: "#141F3D"
                    border.width: 1
                    border.color: "#2D4A8F"
                    ColumnLayout {
                        id: cardColumn
                        anchors.fill: parent
                        anchors.margins: 16
                        spacing: 10
                        Text {
                            text: screen.waitingForCard ? (screen.splitting ? qsTr("Cash part taken. Card for %1: insert, tap or swipe").arg(screen.cardPart)
                                                                            : qsTr("Customer: insert, tap or swipe the card on the terminal"))
                                                        : qsTr("Card approved, booking the seats…")
                            font.pixelSize: Pos.fontHeading; font.bold: true; font.family: Theme.fontFamily; color: "#BFD3FF"
                        }
                        RowLayout {
                            visible: screen.waitingForCard
                            spacing: 8
                            Text { text: qsTr("Terminal simulator:"); font.pixelSize: Pos.fontCaption; font.family: Theme.fontFamily; color: Theme.textMuted }
                            SButton { objectName: "simulatorApprove"; text: qsTr("Visa, approved"); onClicked: Till.presentCard("tok_visa") }
                            SButton { text: qsTr("Declined card"); onClicked: Till.presentCard("tok_declined") }
                            SButton { quiet: true; text: qsTr("Abort"); onClicked: Till.abortCard() }
                        }
                    }
                }
                Item { Layout.fillHeight: true }
            }
        }
    }
}
