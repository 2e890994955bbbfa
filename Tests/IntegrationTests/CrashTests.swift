import Foundation
import Glibc
import Synchronization
import Testing

/// SIGKILL at random moments while clients edit: every confirmed edit survives, nothing appears
/// twice, and the list file stays readable.
@Suite(.offThePool) struct CrashTests {
    /// What the writers know for sure about each item.
    private struct Knowledge {
        var present: Set<String> = []
        var absent: Set<String> = []
        /// An edit was in flight when listd died: it may or may not have been applied.
        var unknown: Set<String> = []
        var confirmed = 0
    }

    @Test func everyConfirmedEditSurvivesTwoHundredSIGKILLs() throws {
        let sandbox = try Sandbox()
        let daemon = try Daemon.start(in: sandbox)
        let knowledge = Mutex(Knowledge())

        for round in 0..<200 {
            // What is known is about this round's list.
            knowledge.withLock { $0 = Knowledge() }
            // A list per round, deleted once checked: lists stay small, as shopping lists are.
            let list = try #require(
                try LineConnection(path: sandbox.socket).result("createList", ["name": "Round \(round)"])["id"] as? Int
            )
            let writers = DispatchGroup()
            for writer in 0..<4 {
                writers.enter()
                // Threads, not tasks: these block on their sockets until listd dies.
                Thread.detachNewThread {
                    defer { writers.leave() }
                    guard let connection = try? LineConnection(path: sandbox.socket) else { return }
                    var mine: [String] = []
                    for step in 0..<1_000 {
                        // Mostly adds; now and then one of this writer's items is removed again.
                        let removing = step % 2 == 1 && !mine.isEmpty
                        let item = removing ? mine.removeFirst() : "r\(round)-w\(writer)-\(step)"
                        knowledge.withLock { _ = $0.unknown.insert(item) }
                        guard
                            let reply = try? connection.call(
                                removing ? "removeItem" : "addItem",
                                ["list": list, "item": item]
                            ),
                            reply["result"] != nil
                        else { return }  // listd is gone: this edit stays unknown
                        knowledge.withLock { knowledge in
                            knowledge.unknown.remove(item)
                            knowledge.confirmed += 1
                            if removing {
                                knowledge.present.remove(item)
                                knowledge.absent.insert(item)
                            } else {
                                knowledge.present.insert(item)
                                mine.append(item)
                            }
                        }
                    }
                }
            }
            // Killed after a random number of this round's edits are confirmed (a fence: on a
            // loaded machine a fixed sleep may end before a writer has even connected), then a
            // random moment more, so the kill lands anywhere in an edit's way through listd.
            let target = Int.random(in: 1...20)
            let deadline = ContinuousClock.now + .seconds(60)
            while knowledge.withLock({ $0.confirmed }) < target, ContinuousClock.now < deadline { usleep(500) }
            try #require(knowledge.withLock { $0.confirmed } >= target, "round \(round): \(target) edits were not confirmed within 60 s")
            usleep(UInt32.random(in: 0...5_000))
            daemon.kill()
            try wait(for: writers, "the writers to see listd gone")
            try daemon.start()

            let checker = try LineConnection(path: sandbox.socket)
            let items = try #require(try checker.result("getList", ["list": list])["items"] as? [String])
            let (known, absent, unknown) = knowledge.withLock { ($0.present, $0.absent, $0.unknown) }
            // An item whose removal was in flight may be gone; only settled ones are checked.
            let present = known.subtracting(unknown)
            let found = Set(items)
            #expect(items.count == found.count, "an item appears twice after round \(round)")
            #expect(
                present.subtracting(found).isEmpty,
                "confirmed adds lost after round \(round): \(present.subtracting(found).sorted())"
            )
            #expect(absent.intersection(found).isEmpty, "confirmed removes undone after round \(round)")
            // The list file, written at start, parses to the same list, once.
            let lines = try sandbox.read().split(separator: "\n")
            #expect(
                lines.filter { $0.hasPrefix("# ") }.map { $0.prefix { $0 != "<" } } == ["# Round \(round) "],
                "one heading, once"
            )
            let fileItems = lines.filter { $0.hasPrefix("- [ ] ") }.map { String($0.dropFirst(6)) }
            #expect(fileItems == items, "the file shows the lists after round \(round)")
            if present.subtracting(found).isEmpty == false { break }
            _ = try checker.result("deleteList", ["list": list])
        }
    }
}
