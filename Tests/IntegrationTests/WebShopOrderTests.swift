// Issue 63, case 2: ticked items stayed where they were, struck through, so what was left was
// scattered over the screen in the shop. In the shop order, what is left comes first by aisle
// (section), and the ticked items sink below, greyed, in the order they were ticked, folded away
// with one tap — on the page only: the list file and other clients keep the list's order.
import Foundation
import Glibc
import Testing

extension WebPageTests {
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func inTheShopTwentyTickedOfFortySinkBelowInTheOrderTicked() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            let client = try LineConnection(path: socket)
            _ = try client.result("hello", ["name": "at home"])  // used again after the browser starts
            _ = try client.result("createList", ["name": "Groceries"])
            let aisles = ["", "Dairy", "Produce"]
            for number in 1...40 {
                var params: [String: Any] = ["list": "Groceries", "item": "item \(number)"]
                if !aisles[number % 3].isEmpty { params["section"] = aisles[number % 3] }
                _ = try client.result("addItem", params)
            }
            let fileOrder = try client.result("getList", ["list": "Groceries"])["items"] as? [String]
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "item 1"))

            // Twenty ticked, one at a time, in a scrambled order (each seen by the page).
            let ticked = (1...20).map { ($0 * 7) % 40 + 1 }
            for number in ticked {
                _ = try client.result("checkItem", ["list": "Groceries", "item": "item \(number)"])
            }
            try browser.waitUntil("twenty ticked", "return document.querySelectorAll('[data-ticked-group] li.item').length === 20")
            let order = try browser.run(
                "return [...document.querySelectorAll('#groups section')].map(s => [s.hasAttribute('data-ticked-group') ? 'ticked' : s.dataset.section, [...s.querySelectorAll('li.item .name')].map(n => n.textContent)])"
            ) as? [[Any]] ?? []
            let names = order.map { $0[0] as? String ?? "?" }
            #expect(names == ["", "Dairy", "Produce", "ticked"], "\(names)")
            let left = Set(1...40).subtracting(ticked)
            for group in order.dropLast() {
                let items = group[1] as? [String] ?? []
                #expect(items.allSatisfy { left.contains(Int($0.dropFirst(5)) ?? 0) }, "nothing ticked among what is left: \(items)")
            }
            #expect(order.dropLast().flatMap { $0[1] as? [String] ?? [] }.count == 20)
            #expect(order.last?[1] as? [String] == ticked.map { "item \($0)" }, "in the order ticked: \(String(describing: order.last))")
            let opacity = try browser.run("return Number(getComputedStyle(document.querySelector('[data-ticked-group] li.item')).opacity)") as? Double
            #expect((opacity ?? 1) < 1, "greyed")

            // One tap folds them away, one brings them back; Clear still counts them.
            try browser.click("[data-toggle-ticked]")
            try browser.waitUntil("folded", "return document.querySelectorAll('[data-ticked-group] li.item').length === 0 && document.querySelector('[data-toggle-ticked]').textContent === 'Show 20 ticked'")
            #expect(try browser.run("return document.querySelector('[data-clear]').textContent") as? String == "Clear 20 ticked")
            try browser.click("[data-toggle-ticked]")
            try browser.waitUntil("back", "return document.querySelectorAll('[data-ticked-group] li.item').length === 20")

            // An untick puts the item back in its aisle; the list's own order is untouched.
            _ = try client.result("uncheckItem", ["list": "Groceries", "item": "item \(ticked[0])"])
            try browser.waitUntil("back in its aisle", "return document.querySelectorAll('[data-ticked-group] li.item').length === 19")
            #expect(try client.result("getList", ["list": "Groceries"])["items"] as? [String] == fileOrder)
        }
    }
}

extension WebPageTests {
    /// The list is drawn by key: a tick elsewhere moves its one row into the ticked group and
    /// leaves every other row where it is (the redraw once moved every row after the ticked one:
    /// a tick on a list of 2,000 moved a thousand rows, 88 ms a frame).
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func aTickElsewhereMovesOneRowOnly() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            let client = try LineConnection(path: socket)
            _ = try client.result("hello", ["name": "at home"])
            _ = try client.result("createList", ["name": "Groceries", "items": (1...300).map { "item \($0)" }])
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "item 300"))
            for (number, ticked) in [(100, 1), (250, 2), (7, 3)] {
                try browser.run(
                    """
                    window.moved = [];
                    window.watching = new MutationObserver((records) => { for (const r of records) for (const n of [...r.addedNodes, ...r.removedNodes]) if (n.matches && n.matches('li.item')) moved.push(n.dataset.row); });
                    watching.observe(document.getElementById('groups'), { childList: true, subtree: true });
                    return true
                    """
                )
                _ = try client.result("checkItem", ["list": "Groceries", "item": "item \(number)"])
                try browser.waitUntil("item \(number) ticked", "return document.querySelectorAll('[data-ticked-group] li.item').length === \(ticked)")
                let moved = try browser.run("watching.disconnect(); return moved") as? [String] ?? []
                #expect(Set(moved) == ["item \(number)"], "rows moved for one tick: \(moved.count) (\(Set(moved).sorted().prefix(5)))")
            }
        }
    }
}
