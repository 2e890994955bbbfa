// Issue 63, case 3: aisles were typed per item, per list — "milk" under Dairy on Groceries was
// unknown to the Weekend list. Given once, on any list, an item's aisle is used on every list
// when an add names none (listd decides, for every client), and the page says so as it is typed;
// the page completes items from the whole household's history, with their last amount.
import Foundation
import Glibc
import Testing

extension WebPageTests {
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func anAisleLearnedOnOneListIsSuggestedAndUsedOnAnother() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            #expect(try listctl(["create", "Groceries", "bread"], socket: socket).status == 0)  // #1
            #expect(try listctl(["add", "Groceries", "milk (2 l)", "--section", "Dairy"], socket: socket).status == 0)
            #expect(try listctl(["create", "Weekend", "wine"], socket: socket).status == 0)  // #2
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "bread"))
            try browser.click("[data-list='2']")
            try browser.waitUntil("Weekend", "return !!document.querySelector('[data-tick=\"wine\"]')")

            // Typed on Weekend: the Section field says Dairy, from Groceries; milk is offered,
            // with its last amount.
            let offered = try browser.run(
                "return [...document.querySelectorAll('#names option')].map(o => o.value + '=' + (o.label || ''))"
            ) as? [String] ?? []
            #expect(offered.contains("milk=2 l"), "\(offered)")
            try browser.run(
                """
                const f = document.querySelector('form[data-add]'); f.item.focus(); f.item.value = 'milk';
                f.item.dispatchEvent(new Event('input', { bubbles: true })); return true
                """
            )
            #expect(try browser.run("return document.querySelector('form[data-add]').section.placeholder") as? String == "Dairy (as on Groceries)")
            try browser.run("document.querySelector('form[data-add]').requestSubmit(); return true")
            try browser.waitUntil(
                "milk under Dairy on Weekend",
                "const s = document.querySelector('section[data-section=\"Dairy\"]'); return !!s && !!s.querySelector('[data-tick=\"milk\"]') && !s.querySelector('.pending')"
            )
            let weekend = try LineConnection(path: socket).result("getList", ["list": "Weekend"])
            let sections = weekend["sections"] as? [[String: Any]] ?? []
            #expect(sections.first { $0["name"] as? String == "Dairy" }?["items"] as? [String] == ["milk"], "\(weekend)")

            // listctl too: bread has no aisle anywhere, butter gets Dairy's once given.
            #expect(try listctl(["add", "Weekend", "bread"], socket: socket).status == 0)
            #expect(try listctl(["add", "Groceries", "butter", "--section", "Dairy"], socket: socket).status == 0)
            let added = try listctl(["add", "Weekend", "butter"], socket: socket)
            #expect(added.status == 0, "\(added.stderr)")
            let after = try LineConnection(path: socket).result("getList", ["list": "Weekend"])
            let dairy = (after["sections"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "Dairy" }
            #expect(dairy?["items"] as? [String] == ["milk", "butter"], "\(after)")
        }
    }
}
