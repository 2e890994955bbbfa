// Many pages on one list while someone edits it fast: every page ends on listd's list, and
// listd-web's memory stays bounded (it keeps no lists; each page's connection is relayed).
import Foundation
import Glibc
import Testing

@Suite struct WebLoadTests {
    @Test(.timeLimit(.minutes(4)))
    func aHundredPagesEndOnTheSameListAfterAThousandEdits() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        let web = try WebServer(daemon.sandbox)
        let token = try web.pair("Kitchen phone")

        var pages: [PageConnection] = []
        for _ in 0..<100 {
            let page = PageConnection(server: web, token: token)
            try await page.opened()
            pages.append(page)
        }
        for page in pages {
            let reply = try await page.call("subscribe", [:], timeout: 30)
            #expect(reply["result"] != nil)
        }
        let idle = web.residentKiB

        let items = (1...1_000).map { "item \($0)" }
        let run = try listctl(["add", "Groceries"] + items, socket: socket)
        #expect(run.status == 0, "\(run.stderr)")
        let final = try LineConnection(path: socket).result("getList", ["list": "Groceries"])
        let revision = final["revision"] as? Int ?? -1
        let expected = final["items"] as? [String] ?? []
        #expect(expected.count == 1_000)

        for (index, page) in pages.enumerated() {
            let last = try await page.message(timeout: 120, "page \(index) to hear revision \(revision)") {
                ($0["params"] as? [String: Any])?["revision"] as? Int == revision
            }
            let list = (last["params"] as? [String: Any])?["list"] as? [String: Any]
            #expect(list?["items"] as? [String] == expected, "page \(index) ended on another list")
            // Every change, once, in order.
            let revisions = page.messages.compactMap { ($0["params"] as? [String: Any])?["revision"] as? Int }
            #expect(revisions == Array((revision - 999)...revision), "page \(index) missed or repeated a change")
        }
        let busy = web.residentKiB
        print("listd-web resident memory: \(idle / 1024) MiB with 100 pages idle, \(busy / 1024) MiB after 1,000 edits to each")
        // Bounded: what it holds is per connection, not per change (each change is a whole list
        // of up to 1,000 items, relayed 100 times: 100,000 notifications went through).
        #expect(busy < 256 * 1024, "listd-web grew to \(busy / 1024) MiB")
        for page in pages { await page.close() }
    }
}
