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
            // (A number first would be a count: `00001 xxx` is xxx, once.)
            let items = (0..<20_000).map { String(format: "item %05d %@", $0, filler) }
            try ("# Big\n" + items.map { "- [ ] \($0)\n" }.joined()).write(toFile: daemon.sandbox.file, atomically: true, encoding: .utf8)
            let reader = try LineConnection(path: daemon.sandbox.socket)
            // Used again after the browsers start, which takes a minute on a loaded machine: a
            // connection quiet that long says hello, or listd lets it go (`--idle-ms`).
            _ = try reader.result("hello", ["name": "reader"])
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

/// Issue 61, case 3: a reply too long to relay closed the page (1009) whatever asked for it.
/// Now it is refused for its request alone (`replyTooLarge`, logged) and the page goes on; a
/// notification too long to relay still closes the page with 1009, whose page says why. The cap
/// is lowered (`--max-relayed-line-bytes`) so that lines of kilobytes stand for lines of 64 MiB.
@Suite struct WebRelayedLineTests {
    @Test(.timeLimit(.minutes(2)))
    func aReplyTooLongToRelayIsRefusedForItsRequestAlone() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Small", "milk"], socket: socket).status == 0)
        let web = try WebServer(daemon.sandbox, arguments: ["--max-relayed-line-bytes", "4096"])
        let watching = PageConnection(server: web, token: try web.pair("Phone"))
        try await watching.opened()
        #expect(try await watching.call("subscribe")["result"] != nil)

        // Each addition is a change with its item, and its notification carries the list whole:
        // past 4 KiB, the watching page cannot be sent it, and starts again (1009).
        let long = (0..<50).map { "item \($0) " + String(repeating: "x", count: 100) }
        #expect(try listctl(["create", "Pantry"], socket: socket).status == 0)
        #expect(try listctl(["add", "Pantry"] + long, socket: socket).status == 0)
        try await until("the watching page to be closed", timeout: 10) { watching.closeCode != nil }
        #expect(watching.closeCode == .some(1009), "\(String(describing: watching.closeCode))")
        #expect(web.logShows("cannot be relayed: the page is closed"))

        // A reply past it is refused for its request alone, and the page goes on.
        let page = PageConnection(server: web, token: try web.pair("Tablet"))
        try await page.opened()
        let history = try await page.call("getHistory", ["list": "Pantry", "limit": 1_000])
        let error = try #require(history["error"] as? [String: Any], "\(history)")
        #expect(error["code"] as? Int == 1104, "\(error)")
        #expect((error["data"] as? [String: Any])?["reason"] as? String == "replyTooLarge")
        #expect((error["message"] as? String)?.contains("more than the 4 KiB listd-web passes to a page") == true, "\(error)")
        #expect(web.logShows("refused for that request"))
        let small = try await page.call("getList", ["list": "Small"])
        #expect((small["result"] as? [String: Any])?["items"] as? [String] == ["milk"], "\(small)")
        // The lists whole are past it too: subscribing is refused so (the page shows why).
        let subscribed = try await page.call("subscribe")
        #expect((subscribed["error"] as? [String: Any])?["code"] as? Int == 1104, "\(subscribed)")
        #expect(try await page.call("getHistory", ["list": "Small", "limit": 10])["result"] != nil)
        #expect(page.closeCode == nil, "the page was closed")
    }
}
