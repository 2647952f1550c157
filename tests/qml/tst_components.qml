// SPDX-License-Identifier: AGPL-3.0-or-later
import QtQuick
import QtTest
import Marquee.App
import Marquee.Ui

Item {
    id: root
    width: 1200
    height: 800

    Component { id: buttonComponent; KButton { text: "Pay by card"; primary: true } }
    Component { id: posterComponent; Poster { width: 200; height: 300 } }
    Component { id: bannerComponent; MessageBanner { width: 600 } }
    Component { id: legendComponent; SeatLegend { width: 1000 } }
    Component { id: mapComponent; SeatMap { width: 400; height: 300 } }

    SignalSpy { id: clickSpy; signalName: "clicked" }

    TestCase {
        name: "Components"
        when: windowShown

        function cleanup() {
            Theme.highContrast = false
            Theme.largeText = false
        }

        function test_buttonIsALargeTouchTargetAndClicks() {
            const button = createTemporaryObject(buttonComponent, root)
            verify(button.height >= Theme.touchMin, "touch target at least 48 px")
            verify(button.width >= Theme.touchMin)
            compare(button.Accessible.name, "Pay by card")
            const spy = clickSpy
            spy.clear()
            spy.target = button
            mouseClick(button)
            compare(spy.count, 1)
            button.enabled = false
            mouseClick(button)
            compare(spy.count, 1, "a disabled button does nothing")
        }

        function test_themeHighContrastAndLargerText() {
            const body = Theme.fontBody
            const background = String(Theme.background) // a copy: a colour read from a property stays live
            Theme.largeText = true
            verify(Theme.fontBody > body)
            Theme.highContrast = true
            compare(Theme.background, Qt.color("#000000"))
            verify(String(Theme.background) !== background, "the background changes")
        }

        function test_posterArtworkIsStablePerTitle() {
            const a = createTemporaryObject(posterComponent, root, { title: "Arrival", seed: 1234 })
            const b = createTemporaryObject(posterComponent, root, { title: "Arrival", seed: 1234 })
            const c = createTemporaryObject(posterComponent, root, { title: "Brazil", seed: 1235 })
            compare(a.colors, b.colors)
            verify(a.colors[0] !== c.colors[0])
            compare(a.Accessible.name, "Poster of Arrival")
        }

        function test_bannerOnlyWhenThereIsSomethingToSay() {
            const banner = createTemporaryObject(bannerComponent, root)
            verify(!banner.visible)
            banner.text = "Sorry, someone just took C6."
            verify(banner.visible)
            verify(banner.implicitHeight >= Theme.fontBody)
        }

        function test_legendListsTiersAndTheStatusShapes() {
            const legend = createTemporaryObject(legendComponent, root, {
                tiers: [{ name: "premium", price: "€18.00", color: "#E8B730" }, { name: "standard", price: "€12.50", color: "#3FB6A8" }] })
            // Two tiers, then wheelchair, yours, held, sold.
            compare(legend.children.length - 1, 6) // minus the Repeater itself
        }

        function test_seatMapWithoutDataIsQuiet() {
            const map = createTemporaryObject(mapComponent, root)
            compare(map.seatAt(10, 10), "")
            map.zoomIn()
            map.resetView()
            compare(map.viewScale, 1)
        }

        function test_kioskSingletonStartsOnTheAttractScreen() {
            compare(Kiosk.screen, "attract")
            compare(Kiosk.holdActive, false)
            verify(Kiosk.idleTimeoutSeconds >= 5)
            compare(Kiosk.staffExit("0000"), false, "a wrong PIN never exits")
        }
    }
}
