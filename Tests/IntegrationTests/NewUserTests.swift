// What a new user hit (issue 26): each test here failed before its fix, against the real listd,
// with real editors and real delegates.
import Foundation
import Glibc
import Testing

/// Runs `command` with `sh -c` in the sandbox's directory (a person at a shell).
func shell(in sandbox: Sandbox, _ command: String) throws {
    let run = try ChildProcess.run("/bin/sh", ["-c", "cd '\(sandbox.path)' && \(command)"])
    #expect(run.status == 0, "\(command): \(run.stderr)")
}

/// The `changes` of a list notification, each as "op item…".
private func steps(_ note: [String: Any]) -> [String] {
    let changes = (note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []
    return changes.map { change in
        ["op", "item", "index", "with"].compactMap { change[$0].map { "\($0)" } }.joined(separator: " ")
    }
}

@Suite struct LinesMovedInTheFileTests {
    /// Item 1: a line moved under a delegate that lets every question time out as allowed was
    /// asked about as a removal (allowed) and an addition (refused: the item was still there),
    /// and the item was lost. A moved line is the same item: one move, nothing asked.
    @Test func aMovedLineIsTheSameItemWhateverTheDelegatesSay() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- eggs\n- bread\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "sleepy", "timeoutMs": 200, "onTimeout": "allow"])
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")

        try shell(in: sandbox, "sed -i -e '/^- bread$/d' -e 's/^- milk$/- bread\\n- milk/' lists.md")
        let note = try subscriber.readObject()
        #expect(note["method"] as? String == "didUpdateShoppingList")
        #expect(steps(note) == ["move bread 0"], "one move, no removal and addition: \(daemon.logOutput)")
        let reader = try LineConnection(path: sandbox.socket)
        #expect(try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["bread", "milk", "eggs"])
        let expected = "# Groceries <!-- listd id=1 -->\n- bread\n- milk\n- eggs\n"
        #expect(try sandbox.read { $0 == expected } == expected, "no mark, no line lost")
    }

    /// Item 1, with a delegate that allows removals except of milk and denies every addition:
    /// bread moves, cake is refused (its own line is marked), the removal of milk is refused
    /// (milk comes back; the heading is untouched), eggs goes.
    @Test func aSaveDelegatesPartlyDenyKeepsEveryItemAndMarksTheRightLines() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- eggs\n- jam\n- bread\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper"])
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")

        try shell(
            in: sandbox,
            "sed -i -e '/^- bread$/d' -e '/^- milk$/d' -e '/^- jam$/d' -e 's/^- eggs$/- bread\\n- eggs\\n- cake\\n- jam/' lists.md"
        )
        // The removal of milk and the addition of cake are asked about, one at a time.
        var asked: [String] = []
        for _ in 0..<2 {
            let question = try delegate.readObject()
            let method = question["method"] as? String ?? "?"
            let item = (question["params"] as? [String: Any])?["item"] as? String ?? "?"
            asked.append("\(method) \(item)")
            let allow = method == "shouldRemove" && item != "milk"
            let answer = allow ? #"{"allow":true}"# : #"{"allow":false,"reason":"no"}"#
            try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}")
        }
        #expect(Set(asked) == ["shouldRemove milk", "shouldAdd cake"])
        let expected = """
            # Groceries <!-- listd id=1 -->
            - bread
            - milk
            - eggs
            <!-- listd: not taken: Denied by a delegate: keeper: no. You wrote: - cake -->
            - jam

            """
        #expect(try sandbox.read { $0 == expected } == expected, "\(daemon.logOutput)")
        let reader = try LineConnection(path: sandbox.socket)
        #expect(
            try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["bread", "milk", "eggs", "jam"]
        )
    }
}
