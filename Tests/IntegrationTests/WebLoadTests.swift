// Many pages on one list while someone edits it fast: every page ends on listd's list, and
// listd-web's memory stays bounded (it keeps no lists; each page's connection is relayed).
import Foundation
import Glibc
import Testing

@Suite struct WebLoadTests {
    @Test(.timeLimit(.minutes(10)))
    func aHundredPagesEndOnTheSameListAfterAThousandEdits() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        let web = try WebServer(daemon.sandbox)
        // Ten devices with ten pages each (a device may have ten open: WebLimits.pagesPerDevice).
        let tokens = try (1...10).map { try web.pair("Phone \($0)") }

        // Each page as the real one: subscribed; when listd-web closes it (listd drops a page
        // that stopped reading for seconds while far behind — a phone on a bad connection), it
        // opens again and resumes after the last revision it heard (`subscribe {since}`).
        var pages: [PageConnection] = []
        var heard: [[Int]] = Array(repeating: [], count: 100)
        var instance = ""
        for index in 0..<100 {
            let page = PageConnection(server: web, token: tokens[index % 10], keepingMessages: false)
            try await page.opened()
            pages.append(page)
        }
        for page in pages {
            try await page.send(["jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": [String: Any]()])
        }
        for (index, page) in pages.enumerated() {
            try await until("page \(index) subscribed", timeout: 30) { page.last != nil }
            instance = (page.last?["result"] as? [String: Any])?["instance"] as? String ?? instance
        }
        let idle = web.residentKiB

        let items = (1...1_000).map { "item \($0)" }
        let run = try listctl(["add", "Groceries"] + items, socket: socket)
        #expect(run.status == 0, "\(run.stderr)")
        let final = try LineConnection(path: socket).result("getList", ["list": "Groceries"])
        let revision = final["revision"] as? Int ?? -1
        let expected = final["items"] as? [String] ?? []
        #expect(expected.count == 1_000)

        var reopened: [Int: Int] = [:]  // by close code (0: none)
        // Not a deadline on the whole (in a full test run the pages and listd-web share two cores
        // with every other test, and 100,000 whole lists take what they take): the pages must
        // keep moving — a stall, not a slow machine, is the failure. (Opening a page again is no
        // progress: a page reopened in a loop and told nothing is stalled too.)
        let stallLimit: TimeInterval = 60
        var notified = 0
        var lastProgress = Date()
        var waiting = Set(pages.indices)
        while !waiting.isEmpty {
            let now = pages.indices.reduce(0) { $0 + heard[$1].count + pages[$1].notifiedRevisions.count }
            if now != notified {
                notified = now
                lastProgress = Date()
            }
            guard Date().timeIntervalSince(lastProgress) < stallLimit else {
                let last = waiting.map { (heard[$0] + pages[$0].notifiedRevisions).last ?? 0 }
                // What the first few stuck pages last got, and what listd and listd-web said
                // besides their routine lines.
                let stuck = waiting.sorted().prefix(3).map { index in
                    "page \(index), heard \(pages[index].notifiedRevisions.count) since it opened, last: "
                        + String(String(describing: pages[index].last ?? [:]).prefix(200))
                }
                func notes(_ log: String) -> String {
                    log.split(separator: "\n").filter { !$0.contains(" info ") && !$0.contains(" debug ") && !$0.contains("pair") }
                        .suffix(4).joined(separator: " | ")
                }
                throw TestFailure(
                    "no page heard anything new for \(Int(stallLimit)) s: \(waiting.count) pages short of revision \(revision) "
                        + "(the last they heard: \(last.min() ?? 0)–\(last.max() ?? 0); pages opened again, by close code: "
                        + "\(reopened)); " + stuck.joined(separator: "; ") + "; listd: " + notes(daemon.logOutput)
                        + "; listd-web: " + notes(web.log)
                )
            }
            for index in waiting {
                if (heard[index] + pages[index].notifiedRevisions).last == revision {
                    waiting.remove(index)
                } else if let code = pages[index].closeCode {
                    heard[index] += pages[index].notifiedRevisions
                    reopened[code ?? 0, default: 0] += 1
                    let page = PageConnection(server: web, token: tokens[index % 10], keepingMessages: false)
                    try await page.opened()
                    try await page.send([
                        "jsonrpc": "2.0", "id": 1, "method": "subscribe",
                        "params": ["since": heard[index].last ?? 1, "instance": instance],
                    ])
                    pages[index] = page
                }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        for index in pages.indices {
            heard[index] += pages[index].notifiedRevisions
            let list = (pages[index].last?["params"] as? [String: Any])?["list"] as? [String: Any]
            #expect(list?["items"] as? [String] == expected, "page \(index) ended on another list")
            // Every change, once, in order, across its reconnections.
            #expect(heard[index] == Array((revision - 999)...revision), "page \(index) missed or repeated a change")
        }
        print("pages opened again after they were closed (by close code): \(reopened)")
        let busy = web.residentKiB
        print("listd-web resident memory: \(idle / 1024) MiB with 100 pages idle, \(busy / 1024) MiB after 1,000 edits to each")
        // Bounded: what it holds is per connection, not per change (each change is a whole list
        // of up to 1,000 items, relayed 100 times: 100,000 notifications went through).
        #expect(busy < 256 * 1024, "listd-web grew to \(busy / 1024) MiB")
        for page in pages { await page.close() }
    }
}
