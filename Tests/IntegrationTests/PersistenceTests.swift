import Foundation
import Glibc
import ListClient
import Synchronization
import Testing

@Suite(.offThePool) struct PersistenceTests {
    @Test func aRestartKeepsEveryConfirmedEditEvenAfterSIGKILL() throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try client.result("createList", ["name": "Doomed"])
        for index in 0..<50 { _ = try client.result("addItem", ["list": 1, "item": "item \(index)"]) }
        _ = try client.result("replaceItem", ["list": 1, "item": "milk", "with": "oat milk"])
        _ = try client.result("renameList", ["list": 1, "name": "Food"])
        _ = try client.result("deleteList", ["list": 2])
        let before = try client.result("getLists")
        daemon.kill()

        try daemon.start()
        let after = try LineConnection(path: sandbox.socket).result("getLists")
        #expect(NSDictionary(dictionary: before) == NSDictionary(dictionary: after))
        // Ids are never reused, across restarts too.
        let created = try LineConnection(path: sandbox.socket).result("createList", ["name": "New"])
        #expect(created["id"] as? Int == 3)
        #expect(created["revision"] as? Int == (before["revision"] as? Int).map { $0 + 1 })
    }

    @Test func aChangeToALongListAddsNoMoreToTheChangeLogThanOneToAShortList() throws {
        // Issue 12, defect 2: the log held the whole list after every change, so a long list's
        // log grew by its length with every edit (and a restart after a crash read all of it).
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Short", "items": (0..<5).map { "short \($0)" }])
        _ = try client.result("createList", ["name": "Long", "items": (0..<2_000).map { "long item \($0)" }])
        let log = sandbox.path + "/.lists.md.listd-log"
        // The bytes of the change lines the edits added: how many notes of the list file's
        // rewrites fall among them depends on how long a rewrite takes (a 2,000-item list's is
        // longer, so more of them land within the 20 edits), not on what a change logs.
        func logGrowth(editing list: String) throws -> Int {
            let before = try Data(contentsOf: URL(fileURLWithPath: log)).count
            for round in 0..<20 {
                _ = try client.result(round % 2 == 0 ? "addItem" : "removeItem", ["list": list, "item": "probe"])
            }
            let added = try Data(contentsOf: URL(fileURLWithPath: log)).dropFirst(before)
            return String(decoding: added, as: UTF8.self).split(separator: "\n").filter { !$0.contains(#""listd":"fileShows""#) }
                .reduce(0) { $0 + $1.utf8.count + 1 }
        }
        let short = try logGrowth(editing: "Short")
        let long = try logGrowth(editing: "Long")
        #expect(short > 0, "the edits were logged")
        // The long list's name is as long as the short one's; its edits may log a few bytes more
        // (positions have more digits), never its items.
        #expect(
            long < short + short / 5,
            "20 edits of a 2,000-item list logged \(long) bytes, of a 5-item list \(short)"
        )
        _ = daemon
    }

    @Test func aConfirmIsDurableBeforeItIsSentAndTheFileShowsItSoonAfter() throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries"])
        for index in 0..<10 {
            // Killed the moment the confirm is read: no time to write anything more.
            _ = try LineConnection(path: sandbox.socket).result("addItem", ["list": 1, "item": "thing \(index)"])
            daemon.kill()
            try daemon.start()
        }
        let items = try LineConnection(path: sandbox.socket).result("getList", ["list": 1])["items"] as? [String]
        #expect(items == (0..<10).map { "thing \($0)" })
        let listed = (0..<10).map { "- [ ] thing \($0)\n" }.joined()
        #expect(try sandbox.read { $0.contains(listed) }.contains(listed))
    }

    @Test func theFileIsReadableMarkdownAndHandEditsAreLoaded() throws {
        let sandbox = try Sandbox()
        try """
        # Groceries
        - milk
        - eggs

        # Hardware
        - nails
        """.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        let client = try LineConnection(path: sandbox.socket)
        let lists = try #require(try client.result("getLists")["lists"] as? [[String: Any]])
        #expect(lists.map { $0["name"] as? String } == ["Groceries", "Hardware"])
        #expect(lists[0]["items"] as? [String] == ["milk", "eggs"])
        _ = try client.result("addItem", ["list": "Hardware", "item": "screws"])
        let text = try sandbox.read { $0.contains("- screws") }
        #expect(text.contains("# Groceries <!-- listd id=1 "))
        // The file had no final newline; it still has none.
        #expect(text.hasSuffix("- nails\n- [ ] screws"))
        _ = daemon
    }

    @Test func missingDirectoriesAreCreated() throws {
        let sandbox = try Sandbox()
        sandbox.socket = sandbox.path + "/run/deep/listd.sock"
        sandbox.file = sandbox.path + "/data/deep/lists.md"
        let daemon = try Daemon.start(in: sandbox)
        #expect(FileManager.default.fileExists(atPath: sandbox.file))
        var info = stat()
        #expect(stat(sandbox.path + "/run/deep", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        _ = daemon
    }
}

@Suite(.offThePool) struct SingleInstanceTests {
    @Test func aSecondListdOnTheSameSocketIsRefused() throws {
        let sandbox = try Sandbox()
        let first = try Daemon.start(in: sandbox)
        let second = Daemon(sandbox)
        #expect(try second.startExpectingExit() == 1)
        #expect(second.logShows("another listd is already serving \(sandbox.socket)"))
        // The first one still serves.
        #expect(try LineConnection(path: sandbox.socket).result("getLists")["revision"] as? Int == 0)
        _ = first
    }

    @Test func aStaleSocketIsReplacedAndACleanStopRemovesIt() throws {
        let sandbox = try Sandbox()
        let first = try Daemon.start(in: sandbox)
        first.kill()
        #expect(FileManager.default.fileExists(atPath: sandbox.socket))
        let second = try Daemon.start(in: sandbox)
        #expect(try LineConnection(path: sandbox.socket).result("getLists")["revision"] as? Int == 0)
        #expect(second.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.socket))
    }

    @Test func aFileInTheWayOfTheSocketIsNotDeleted() throws {
        let sandbox = try Sandbox()
        try "precious".write(toFile: sandbox.socket, atomically: true, encoding: .utf8)
        let daemon = Daemon(sandbox)
        #expect(try daemon.startExpectingExit() == 1)
        #expect(daemon.logShows("exists and is not a socket"))
        #expect(try sandbox.read("listd.sock") == "precious")
    }
}

@Suite(.offThePool) struct ShutdownTests {
    @Test func sigtermWithClientsConnectedExitsZeroAndKeepsEverything() throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        let idle = try LineConnection(path: sandbox.socket)
        let editor = try LineConnection(path: sandbox.socket)
        _ = try editor.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try subscriber.readObject()

        #expect(daemon.stop() == 0)
        #expect(try subscriber.readLine() == nil)
        #expect(try idle.readLine() == nil)
        #expect(!FileManager.default.fileExists(atPath: sandbox.socket))

        try daemon.start()
        let lists = try LineConnection(path: sandbox.socket).result("getLists")
        #expect((lists["lists"] as? [[String: Any]])?.first?["items"] as? [String] == ["milk"])
    }
}

@Suite struct GracefulShutdownUnderLoadTests {
    /// SIGTERM while clients are editing: listd exits 0, and every edit it confirmed is there after
    /// a restart.
    @Test func sigtermDuringEditsKeepsEveryConfirmedEdit() async throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Busy"])
        let confirmed = ConfirmedItems()
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    try? await ListClient.withConnection(socketPath: sandbox.socket) { connection in
                        for index in 0..<200 {
                            let item = "item \(client)-\(index)"
                            _ = try await connection.addItem(item, to: .id(1))
                            confirmed.items.withLock { $0.append(item) }
                        }
                    }
                }
            }
            group.addTask {
                // Let some edits through, then stop listd in the middle of the stream.
                let deadline = ContinuousClock.now + .seconds(120)
                while confirmed.items.withLock({ $0.count }) < 40, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                #expect(daemon.stop() == 0)
            }
        }
        let before = confirmed.items.withLock { $0 }
        #expect(before.count >= 40)
        #expect(before.count < 800, "the stop came too late to test anything")
        try daemon.start()
        let items = try #require(
            try LineConnection(path: sandbox.socket).result("getList", ["list": 1])["items"] as? [String]
        )
        #expect(Set(before).isSubset(of: Set(items)))
        #expect(Set(items).count == items.count)
    }
}

private final class ConfirmedItems: Sendable {
    let items = Mutex<[String]>([])
}
