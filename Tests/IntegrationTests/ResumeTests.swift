import Foundation
import Glibc
import Testing

/// `subscribe {since}`: what a client missed, then live, with no gap and no duplicate.
@Suite struct ResumeTests {
    /// Adds `items` to list 1 in JSON-RPC batches of `size` (one store pass, one flush each).
    private func add(_ items: [String], on connection: LineConnection, batchSize size: Int = 500) throws {
        for start in stride(from: 0, to: items.count, by: size) {
            let requests = items[start..<min(start + size, items.count)].enumerated().map { index, item in
                #"{"jsonrpc":"2.0","id":\#(start + index),"method":"addItem","params":{"list":1,"item":"\#(item)"}}"#
            }
            try connection.send("[" + requests.joined(separator: ",") + "]")
            let replies = try #require(try connection.readJSON(timeout: 60) as? [[String: Any]])
            #expect(replies.allSatisfy { $0["result"] != nil }, "every add confirmed")
        }
    }

    /// The notifications a connection receives next, as "revision method item".
    private func next(_ count: Int, on connection: LineConnection) throws -> [String] {
        try (0..<count).map { _ in
            let note = try connection.readObject()
            let params = note["params"] as? [String: Any]
            let item =
                (params?["changes"] as? [[String: String]])?.first?["item"] ?? (params?["list"] as? [String: Any])?[
                    "name"
                ] as? String ?? ""
            return "\(params?["revision"] as? Int ?? -1) \(note["method"] as? String ?? "?") \(item)"
        }
    }

    @Test(.offThePool) func aResumedSubscriptionGetsWhatItMissedThenGoesOnLive() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let client = try LineConnection(path: socket)
        _ = try client.result("createList", ["name": "Groceries"])
        _ = try client.result("createList", ["name": "Hardware"])
        let first = try LineConnection(path: socket)
        let subscribed = try first.result("subscribe")
        let seen = try #require(subscribed["revision"] as? Int)
        let instance = try #require(subscribed["instance"] as? String)
        #expect(try client.result("hello")["instance"] as? String == instance)
        first.hangUp()

        // Missed while away.
        _ = try client.result("addItem", ["list": 1, "item": "milk"])
        _ = try client.result("addItem", ["list": 2, "item": "nails"])
        _ = try client.result("renameList", ["list": 2, "name": "Tools"])
        _ = try client.result("addItem", ["list": 1, "item": "eggs"])

        let everything = try LineConnection(path: socket)
        let resumed = try everything.result("subscribe", ["since": seen, "instance": instance])
        #expect(resumed["revision"] as? Int == seen + 4)
        let groceries = try LineConnection(path: socket)
        _ = try groceries.result("subscribe", ["since": seen, "lists": [1]])
        #expect(
            try next(4, on: everything) == [
                "\(seen + 1) didUpdateShoppingList milk", "\(seen + 2) didUpdateShoppingList nails",
                "\(seen + 3) didRenameShoppingList Tools", "\(seen + 4) didUpdateShoppingList eggs",
            ]
        )
        #expect(
            try next(2, on: groceries) == [
                "\(seen + 1) didUpdateShoppingList milk", "\(seen + 4) didUpdateShoppingList eggs",
            ]
        )
        // Then live, and nothing twice.
        _ = try client.result("addItem", ["list": 1, "item": "bread"])
        #expect(try next(1, on: everything) == ["\(seen + 5) didUpdateShoppingList bread"])
        #expect(try next(1, on: groceries) == ["\(seen + 5) didUpdateShoppingList bread"])
        // Resuming from now replays nothing; and neither hears more than the next change.
        let current = try LineConnection(path: socket)
        _ = try current.result("subscribe", ["since": seen + 5])
        try everything.expectNothingBeforeMarker(
            { _ = try client.result("addItem", ["list": 1, "item": "fence"]) },
            isMarker: listHolds("fence")
        )
        #expect(try next(1, on: current) == ["\(seen + 6) didUpdateShoppingList fence"])
    }

    @Test(.offThePool) func historySurvivesARestartAndAResumeTooOldIsToldToResync() throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox, arguments: ["--history", "50"])
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        let instance = try #require(try client.result("hello")["instance"] as? String)
        try add((0..<300).map { "item \($0)" }, on: client, batchSize: 100)
        // The log was compacted: it keeps about the history, not every change since the start.
        let logLines = try String(contentsOfFile: sandbox.path + "/.lists.md.listd-log", encoding: .utf8).split(
            separator: "\n"
        ).count
        #expect(logLines < 250)
        daemon.kill()

        try daemon.start(arguments: ["--history", "50"])
        let reader = try LineConnection(path: sandbox.socket)
        #expect(try reader.result("hello")["instance"] as? String == instance, "the same state after a restart")
        let resumed = try LineConnection(path: sandbox.socket)
        _ = try resumed.result("subscribe", ["since": 251, "instance": instance])
        #expect(try next(50, on: resumed) == (252...301).map { "\($0) didUpdateShoppingList item \($0 - 2)" })

        let tooOld = try LineConnection(path: sandbox.socket).error("subscribe", ["since": 1])
        #expect(tooOld["code"] as? Int == 1010)
        let data = try #require(tooOld["data"] as? [String: Any])
        #expect(data["reason"] as? String == "historyCompacted")
        #expect(data["revision"] as? Int == 301)
        #expect(data["instance"] as? String == instance)
        #expect((tooOld["message"] as? String)?.contains("no longer all kept") == true)
        let ahead = try LineConnection(path: sandbox.socket).error("subscribe", ["since": 400])
        #expect((ahead["data"] as? [String: Any])?["reason"] as? String == "historyCompacted")
        let other = try LineConnection(path: sandbox.socket).error("subscribe", ["since": 300, "instance": "another"])
        #expect(other["code"] as? Int == 1011)
        #expect((other["data"] as? [String: Any])?["reason"] as? String == "instanceChanged")
        // The resumed subscription replayed nothing more: its next is a marker's.
        try resumed.expectNothingBeforeMarker(
            { _ = try reader.result("addItem", ["list": 1, "item": "fence"]) },
            isMarker: listHolds("fence")
        )
    }

    @Test func theLastTenThousandChangesCanBeResumedAfterARestart() async throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Busy"])
        // 10,050 changes from 10 clients at once (their edits share flushes): each adds an item
        // of its own and removes it again, so the list stays small.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<10 {
                group.addTask {
                    let connection = try LineConnection(path: sandbox.socket)
                    for index in 0..<1_005 {
                        let item = "item \(client)"
                        _ = try connection.result(index % 2 == 0 ? "addItem" : "removeItem", ["list": 1, "item": item])
                    }
                }
            }
            try await group.waitForAll()
        }
        daemon.kill()
        try daemon.start()
        let resumed = try LineConnection(path: sandbox.socket)
        let since = 10_051 - 10_000
        _ = try resumed.result("subscribe", ["since": since])
        let replayed = try next(10_000, on: resumed)
        #expect(replayed.map { Int($0.split(separator: " ")[0]) ?? 0 } == Array((since + 1)...10_051))
        try resumed.expectNothingBeforeMarker(
            { _ = try LineConnection(path: sandbox.socket).result("addItem", ["list": 1, "item": "fence"]) },
            isMarker: listHolds("fence")
        )
    }

    @Test(.offThePool) func resumingWhileEditsGoOnMissesNothingAndRepeatsNothing() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Busy"])
        // A thread of its own: this test blocks its task's thread on reads, and the small
        // cooperative pool may have no other thread free for a writer task.
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { written.signal() }
            guard let writer = try? LineConnection(path: socket) else { return }
            for index in 0..<300 { _ = try? writer.result("addItem", ["list": 1, "item": "item \(index)"]) }
        }
        // Read a while, drop the connection, resume from the last revision seen; again and again
        // until the writer's last change.
        var revisions = [1]
        while revisions.last! < 301 {
            let connection = try LineConnection(path: socket)
            _ = try connection.result("subscribe", ["since": revisions.last!])
            for line in try next(min(40, 301 - revisions.last!), on: connection) {
                revisions.append(Int(line.split(separator: " ")[0]) ?? -1)
            }
            connection.hangUp()
        }
        if written.wait(timeout: .now() + 120) == .timedOut { throw TestFailure("the writer did not finish in 120 s") }
        #expect(revisions == Array(revisions.first!...301))
    }
}
