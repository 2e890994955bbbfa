// Issue 61, case 3: one big list closed every phone's page for good. listd-web read listd's
// lines with a 1 MiB cap; a list past it (10,000 items of 100 characters, each notification
// carrying the whole list) ended the relay with 1011 for every device, and the page retried
// forever as "Offline". A 20,000-item list of 200-character items now works on two phones.
import Foundation
import Glibc
import Testing

/// One of the browser tests, one at a time with them (two browsers with a 4.5 MB list each).
extension WebPageTests {
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: WebPageTests.needs)), .timeLimit(.minutes(5)))
    func aTwentyThousandItemListWorksOnTwoPhones() async throws {
        try Requirement.check(Browser.available, needing: WebPageTests.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            // Typed into the list file: a request line to listd is capped at 1 MiB, a save is not.
            let filler = String(repeating: "x", count: 190)
            let items = (0..<20_000).map { String(format: "%05d %@", $0, filler) }
            try ("# Big\n" + items.map { "- [ ] \($0)\n" }.joined()).write(toFile: daemon.sandbox.file, atomically: true, encoding: .utf8)
            let reader = try LineConnection(path: daemon.sandbox.socket)
            let deadline = Date().addingTimeInterval(120)
            // Asked cheaply (the latest revision, not the 4.5 MB list): a new list in the file is
            // made in one change, with all its items.
            var revision = 0
            while revision < 1, Date() < deadline {
                revision = (try? reader.result("getHistory", ["limit": 1]))?["revision"] as? Int ?? 0
                usleep(200_000)
            }
            try #require(revision >= 1, "the 20,000 lines were not taken in")
            let taken = try reader.result("getList", ["list": "Big"])["items"] as? [String]
            try #require(taken?.count == 20_000, "\(taken?.count ?? 0) items taken in")
            let web = try WebServer(daemon.sandbox)
            let first = items[0]
            let phoneA = try Browser()
            defer { phoneA.quit() }
            try phoneA.open(try web.pairingLink("Phone A"))
            try phoneA.waitUntil("phone A showing the big list", timeout: 60, WebPageTests.live(showing: first))
            let phoneB = try Browser()
            defer { phoneB.quit() }
            try phoneB.open(try web.pairingLink("Phone B"))
            try phoneB.waitUntil("phone B showing the big list", timeout: 60, WebPageTests.live(showing: first))
            // A tick on one phone: every notification carries the 4.5 MB list, relayed to both.
            try phoneA.click("[data-tick='\(first)']")
            var checked: [String] = []
            while checked.isEmpty, Date() < deadline.addingTimeInterval(60) {
                checked = try reader.result("getList", ["list": "Big"])["checked"] as? [String] ?? []
                usleep(100_000)
            }
            let statusA = try phoneA.text("#status")
            #expect(checked == [first], "phone A's tick did not reach listd: \(statusA)")
            let statusB = try phoneB.text("#status")
            try phoneB.waitUntil(
                "phone B showing phone A's tick (it said “\(statusB)”)", timeout: 60,
                "const b = document.querySelector('[data-tick=\"\(first)\"]'); return !!b && b.getAttribute('aria-checked') === 'true'"
            )
        }
    }
}
