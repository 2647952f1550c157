// SPDX-License-Identifier: AGPL-3.0-or-later
// The staff components: buttons with key hints, the password prompt, the sign-in panel's own checks,
// the sortable table and the heat map's colour scale.
import QtQuick
import QtTest
import Marquee.App
import Marquee.Ui

Item {
    id: root
    width: 1400
    height: 900

    Component { id: buttonComponent; SButton { text: "Take payment"; keyHint: "Enter"; primary: true } }
    Component { id: promptComponent; PasswordPrompt { width: 800; height: 600; title: "Confirm it is you" } }
    Component { id: signInComponent; SignInPanel { width: 1200; height: 800; session: Till.session } }
    Component { id: tableComponent; DataTable { width: 900; height: 400; model: Till.shows } }
    Component { id: heatComponent; SeatHeatMap { width: 300; height: 200 } }
    Component { id: tileComponent; StatTile { width: 300; label: "Revenue"; value: "€1,234.00" } }

    SignalSpy { id: spy }

    TestCase {
        name: "Staff"
        when: windowShown

        function test_buttonShowsItsKeyAndClicks() {
            const button = createTemporaryObject(buttonComponent, root)
            verify(button.implicitHeight >= 40)
            compare(button.Accessible.name, "Take payment (Enter)")
            spy.signalName = "clicked"
            spy.target = button
            spy.clear()
            mouseClick(button)
            compare(spy.count, 1)
        }

        function test_promptSubmitsTheTypedPasswordAndCancelsWithEscape() {
            const prompt = createTemporaryObject(promptComponent, root)
            prompt.visible = false
            prompt.visible = true // focuses the field
            spy.target = null
            spy.signalName = "submitted"
            spy.target = prompt
            spy.clear()
            keyClick("4"); keyClick("2")
            keyClick(Qt.Key_Return)
            compare(spy.count, 1)
            compare(spy.signalArguments[0][0], "42")
            spy.signalName = "cancelled"
            spy.clear()
            keyClick(Qt.Key_Escape)
            compare(spy.count, 1)
        }

        function test_signInRefusesEmptyFieldsWithoutAsking() {
            const panel = createTemporaryObject(signInComponent, root)
            Till.session.signIn("", "")
            compare(Till.session.signedIn, false)
            verify(Till.session.errorString.length > 0)
            verify(!Till.session.busy) // nothing was sent
        }

        function test_tableShowsItsColumnsAndSortsOnHeaderClick() {
            const table = createTemporaryObject(tableComponent, root)
            verify(Till.shows.titles.length >= 4)
            compare(Till.shows.sortColumn, -1)
            Till.shows.sortBy(1)
            compare(Till.shows.sortColumn, 1)
            compare(Till.shows.sortAscending, true)
            Till.shows.sortBy(1)
            compare(Till.shows.sortAscending, false)
        }

        function test_heatScaleRunsFromColdToHot() {
            const heat = createTemporaryObject(heatComponent, root)
            const cold = heat.colorFor(0)
            const hot = heat.colorFor(1)
            verify(Qt.colorEqual(cold, heat.coldColor))
            verify(Qt.colorEqual(hot, heat.hotColor))
            verify(Qt.colorEqual(heat.colorFor(0.5), heat.warmColor))
            verify(Qt.colorEqual(heat.colorFor(7), hot)) // clamped
        }

        function test_statTileNamesItselfForScreenReaders() {
            const tile = createTemporaryObject(tileComponent, root)
            compare(tile.Accessible.name, "Revenue: €1,234.00")
        }
    }
}
