import Foundation
import Testing

/// A notification's changes as `op item` words: `check milk`, `remove jam`.
private func steps(_ note: [String: Any]) -> [String] {
    let changes = (note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []
    return changes.map { "\($0["op"] ?? "?") \($0["item"] ?? $0["to"] ?? "")" }
}

private func params(_ note: [String: Any]) -> [String: Any] { note["params"] as? [String: Any] ?? [:] }

private func reason(_ error: [String: Any]) -> String? { (error["data"] as? [String: Any])?["reason"] as? String }

/// Issue 28: items checked off (not deleted), through the socket, the list file and delegates.
@Suite(.offThePool) struct CheckedItemTests {
    @Test func checkUncheckAndAddOfACheckedItemAreConfirmedAndAnnounced() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk", "eggs", "bread"]])
        _ = try subscriber.result("subscribe")

        let checked = try client.result("checkItem", ["list": "Groceries", "item": "MILK"])
        #expect(checked["items"] as? [String] == ["milk", "eggs", "bread"], "a checked item stays on the list")
        #expect(checked["checked"] as? [String] == ["milk"])
        #expect(checked["revision"] as? Int == 2)
        var note = try subscriber.readObject()
        #expect(note["method"] as? String == "didUpdateShoppingList")
        #expect(steps(note) == ["check milk"])
        #expect((params(note)["list"] as? [String: Any])?["checked"] as? [String] == ["milk"])

        // Checked again: confirmed, nothing changes (no revision, no notification).
        let again = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        #expect(again["revision"] as? Int == 2)
        _ = try client.result("checkItem", ["list": "Groceries", "item": "bread"])
        note = try subscriber.readObject()
        #expect(steps(note) == ["check bread"], "the next notification is the next change")
        #expect(try client.result("getList", ["list": 1])["checked"] as? [String] == ["milk", "bread"], "in list order")

        let unchecked = try client.result("uncheckItem", ["list": "Groceries", "item": "bread", "ifRevision": 3])
        #expect(unchecked["checked"] as? [String] == ["milk"])
        #expect(steps(try subscriber.readObject()) == ["uncheck bread"])

        // Added while checked: needed again.
        let added = try client.result("addItem", ["list": "Groceries", "item": "Milk"])
        #expect(added["items"] as? [String] == ["milk", "eggs", "bread"])
        #expect(added["checked"] as? [String] == [])
        #expect(steps(try subscriber.readObject()) == ["uncheck milk"])
        let duplicate = try client.error("addItem", ["list": "Groceries", "item": "milk"])
        #expect(reason(duplicate) == "itemExists")

        let missing = try client.error("checkItem", ["list": "Groceries", "item": "jam"])
        #expect(reason(missing) == "itemNotFound")
        #expect(missing["code"] as? Int == 1002)
        #expect(missing["message"] as? String == "“jam” is not on Groceries.")
        let stale = try client.error("uncheckItem", ["list": "Groceries", "item": "milk", "ifRevision": 1])
        #expect(reason(stale) == "conflict")
        let noList = try client.error("checkItem", ["list": "Hardware", "item": "nails"])
        #expect(reason(noList) == "listNotFound")
        // The ticks are in the file, as boxes.
        let file = try daemon.sandbox.read { $0.contains("- [ ] milk") && !$0.contains("[x]") }
        #expect(file.contains("- [ ] milk\n- [ ] eggs\n- [ ] bread\n"))
    }

    /// `clearChecked` asks `shouldRemove` for each checked item; the one a delegate refuses stays,
    /// and the reply says so; the rest go as one change.
    @Test func clearCheckedWithADelegateDenyingOneItemKeepsItAndSaysWhy() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk", "eggs", "bread", "jam"]])
        for item in ["milk", "bread", "jam"] { _ = try client.result("checkItem", ["list": 1, "item": item]) }
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper", "questions": ["shouldRemove"]])
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try subscriber.result("subscribe", ["events": ["didUpdateShoppingList", "didDenyChange"]])

        try client.send(#"{"jsonrpc":"2.0","id":"clear","method":"clearChecked","params":{"list":"Groceries"}}"#)
        var asked: [String] = []
        for _ in 0..<3 {
            let question = try delegate.readObject()
            let item = params(question)["item"] as? String ?? "?"
            asked.append("\(question["method"] as? String ?? "?") \(item)")
            let answer = item == "bread" ? #"{"allow":false,"reason":"we bake tomorrow"}"# : #"{"allow":true}"#
            try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}")
        }
        #expect(asked.sorted() == ["shouldRemove bread", "shouldRemove jam", "shouldRemove milk"])
        let reply = try client.readObject()
        let result = try #require(reply["result"] as? [String: Any], "\(reply)")
        #expect(result["items"] as? [String] == ["eggs", "bread"])
        #expect(result["checked"] as? [String] == ["bread"])
        #expect(result["cleared"] as? [String] == ["milk", "jam"], "what the clear took off, in list order")
        #expect(result["revision"] as? Int == 5, "one revision for the clear")
        let kept = result["kept"] as? [[String: Any]] ?? []
        #expect(kept.map { $0["item"] as? String } == ["bread"])
        let denials = kept.first?["denials"] as? [[String: Any]] ?? []
        #expect(denials.map { "\($0["delegate"] ?? ""): \($0["reason"] ?? "")" } == ["keeper: we bake tomorrow"])

        var notes: [String] = []
        for _ in 0..<2 {
            let note = try subscriber.readObject()
            notes.append("\(note["method"] as? String ?? "?") \(steps(note))")
        }
        #expect(
            notes.sorted() == [
                "didDenyChange []", "didUpdateShoppingList [\"remove milk\", \"remove jam\"]",
            ],
            "one notification lists each removal; the refusal is announced to those who asked"
        )
    }

    /// A delegate that does not know the new questions answers -32601: that counts as allowing,
    /// even for a delegate whose silence denies (onTimeout deny), where any other error denies.
    @Test func aDelegateThatDoesNotKnowShouldCheckAllowsIt() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        let registered = try delegate.result("registerDelegate", ["name": "old", "onTimeout": "deny"])
        #expect((registered["questions"] as? [String])?.contains("shouldCheck") == true, "in the default set")
        try client.send(#"{"jsonrpc":"2.0","id":1,"method":"checkItem","params":{"list":1,"item":"milk"}}"#)
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldCheck")
        try delegate.send(
            "{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"
        )
        let reply = try client.readObject()
        #expect((reply["result"] as? [String: Any])?["checked"] as? [String] == ["milk"], "\(reply)")
        // Any other error is no answer: under onTimeout deny, denied.
        let strict = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("unregisterDelegate")
        _ = try strict.result("registerDelegate", ["name": "strict", "onTimeout": "deny"])
        try client.send(#"{"jsonrpc":"2.0","id":2,"method":"uncheckItem","params":{"list":1,"item":"milk"}}"#)
        let second = try strict.readObject()
        try strict.send(
            "{\"jsonrpc\":\"2.0\",\"id\":\"\(second["id"] as? String ?? "")\",\"error\":{\"code\":-32000,\"message\":\"busy\"}}"
        )
        let denied = try client.readObject()
        #expect(reason(denied["error"] as? [String: Any] ?? [:]) == "deniedByDelegate", "\(denied)")
    }

    /// A person ticks a box in real vim: a check, not a replace; unticks it: an uncheck. vim's
    /// lines stay as vim wrote them.
    @Test func aPersonTickingABoxInVimIsACheck() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- eggs\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        try shell(in: sandbox, "vim -Nu NONE -n -es -c '%s/^- milk$/- [x] milk/' -c 'wq' lists.md")
        var note = try subscriber.readObject()
        #expect(note["method"] as? String == "didUpdateShoppingList")
        #expect(steps(note) == ["check milk"])
        #expect(((params(note)["origin"] as? [String: Any])?["kind"] as? String) == "file")
        let client = try LineConnection(path: sandbox.socket)
        let list = try client.result("getList", ["list": "Groceries"])
        #expect(list["items"] as? [String] == ["milk", "eggs"])
        #expect(list["checked"] as? [String] == ["milk"])
        // A client's edit, which listd writes into the file: vim's next save is read against that
        // (read against the first save's text as well, the untick would be said, not done: the
        // copy could be one read before the tick — issue 59).
        _ = try client.result("addItem", ["list": 1, "item": "tea"])
        #expect(try subscriber.readObject()["method"] as? String == "didUpdateShoppingList")
        _ = try sandbox.read { $0.contains("tea") }

        try shell(in: sandbox, "vim -Nu NONE -n -es -c '%s/^- \\[x\\] milk$/- [ ] milk/' -c '%s/^- eggs$/- [X] duck eggs/' -c 'wq' lists.md")
        note = try subscriber.readObject()
        #expect(steps(note) == ["uncheck milk"])
        note = try subscriber.readObject()
        #expect(steps(note) == ["replace eggs"], "the text and the box in one save: a replace…")
        note = try subscriber.readObject()
        #expect(steps(note) == ["check duck eggs"], "…and a check")
        #expect(try client.result("getList", ["list": 1])["checked"] as? [String] == ["duck eggs"])
        // listd had nothing of its own to write: the lines are as the person left them.
        let text = try sandbox.read()
        #expect(text.contains("- [ ] milk\n- [X] duck eggs\n- [ ] tea"), "\(text)")
    }
}

/// Issue 28: who changed what (`getHistory`), and undo.
@Suite(.offThePool) struct HistoryAndUndoTests {
    /// Every change kept, oldest first, with who made it; across a restart and a compaction of the
    /// change log; filtered by a list followed through its rename.
    @Test func historyListsWhoChangedWhatAcrossARestartAndAfterCompaction() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox, arguments: ["--history", "10"])
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("hello", ["name": "phone"])
        _ = try client.result("addItem", ["list": "Groceries", "item": "eggs"])
        _ = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        _ = try client.result("createList", ["name": "Hardware", "items": ["nails"]])
        _ = try client.result("renameList", ["list": "Groceries", "name": "Food"])
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        // Once listd has written the renamed list and the new one into the file.
        _ = try sandbox.read { $0.contains("# Food") && $0.contains("- [ ] nails") }
        try shell(in: sandbox, "sed -i 's/^- \\[ \\] nails$/- [ ] screws/' lists.md")
        _ = try subscriber.readObject()

        func history(_ params: [String: Any] = [:]) throws -> [String] {
            let result = try LineConnection(path: sandbox.socket).result("getHistory", params)
            return (result["changes"] as? [[String: Any]] ?? []).map { entry in
                let list = entry["list"] as? [String: Any] ?? [:]
                let origin = entry["origin"] as? [String: Any] ?? [:]
                let who = origin["kind"] as? String == "file" ? "file" : origin["name"] as? String ?? "?"
                let changes = (entry["changes"] as? [[String: Any]] ?? []).map { "\($0["op"] ?? "") \($0["item"] ?? $0["to"] ?? "")" }
                return "#\(entry["revision"] ?? 0) \(entry["event"] ?? "") \(list["name"] ?? "") \(changes) by \(who)"
            }
        }
        let expected = [
            "#1 didUpdateShoppingList Groceries [\"add eggs\"] by phone",
            "#2 didUpdateShoppingList Groceries [\"check milk\"] by phone",
            "#3 didCreateShoppingList Hardware [] by phone",
            "#4 didRenameShoppingList Food [\"rename Food\"] by phone",
            "#5 didUpdateShoppingList Hardware [\"replace nails\"] by file",
        ]
        #expect(try history() == expected)
        let first = try LineConnection(path: sandbox.socket).result("getHistory", ["limit": 1])
        #expect(first["revision"] as? Int == 5)
        let entry = (first["changes"] as? [[String: Any]])?.first ?? [:]
        #expect((entry["time"] as? String)?.hasSuffix("Z") == true, "RFC 3339 UTC: \(entry)")
        #expect(try history(["limit": 2]) == Array(expected.suffix(2)), "the newest ones, oldest first")
        #expect(try history(["since": 3]) == Array(expected.suffix(2)))
        #expect(
            try history(["list": "Groceries"]) == [expected[0], expected[1], expected[3]],
            "an old name follows the list through its rename"
        )
        #expect(try history(["list": 2]) == [expected[2], expected[4]])

        daemon.kill()
        try daemon.start(arguments: ["--history", "10"])
        #expect(try history() == expected, "the history survives a restart: it is the change log")

        // 130 more changes: the log is compacted (it keeps at least the last 10).
        let writer = try LineConnection(path: sandbox.socket)
        for index in 0..<130 { _ = try writer.result("addItem", ["list": "Hardware", "item": "bolt \(index)"]) }
        let log = sandbox.path + "/.lists.md.listd-log"
        let logLines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count
        #expect(logLines < 135, "compacted: \(logLines) lines")
        let kept = try history(["limit": 10_000])
        #expect(kept.count >= 10)
        #expect(kept.last == "#135 didUpdateShoppingList Hardware [\"add bolt 129\"] by ?")
        let compacted = try LineConnection(path: sandbox.socket).error("getHistory", ["since": 1])
        #expect(reason(compacted) == "historyCompacted", "\(compacted)")
        daemon.kill()
        try daemon.start(arguments: ["--history", "10"])
        let afterRestart = try history(["limit": 10_000])
        #expect(afterRestart.count >= 10, "the --history window survives a restart on the compacted log")
        // Both windows end at the latest change; where they overlap they agree. (Either may hold
        // more than the other: the log keeps up to twice --history before it is compacted, and
        // the history in memory is trimmed on its own count.)
        let overlap = min(kept.count, afterRestart.count)
        #expect(Array(kept.suffix(overlap)) == Array(afterRestart.suffix(overlap)))
        #expect(afterRestart.last == kept.last)
    }

    /// Each kind of change undone, as a new change with `undoes`, through the socket.
    @Test func undoOfEachKindOfChange() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try subscriber.result("subscribe")
        var revision = 0
        /// Makes a change, undoes it, and returns the list as the undo left it.
        func undo(_ method: String, _ arguments: [String: Any]) throws -> [String: Any] {
            _ = try client.result(method, arguments)
            revision += 1
            let done = try subscriber.readObject()
            #expect((params(done)["revision"] as? Int) == revision)
            let result = try client.result("undo", ["revision": revision])
            revision += 1
            #expect(result["revision"] as? Int == revision, "\(method): \(result)")
            #expect(((result["undone"] as? [String: Any])?["revision"] as? Int) == revision - 1)
            let note = try subscriber.readObject()
            #expect(params(note)["undoes"] as? Int == revision - 1, "\(method): the notification says what it undoes")
            return result["list"] as? [String: Any] ?? [:]
        }
        func items(_ list: [String: Any]) -> [String] { list["items"] as? [String] ?? [] }

        _ = try client.result("createList", ["name": "Groceries", "items": ["milk", "eggs", "bread"]])
        revision = 1
        _ = try subscriber.readObject()
        #expect(items(try undo("addItem", ["list": 1, "item": "tea"])) == ["milk", "eggs", "bread"])
        #expect(items(try undo("removeItem", ["list": 1, "item": "eggs"])) == ["milk", "eggs", "bread"], "back in place")
        #expect(items(try undo("replaceItem", ["list": 1, "item": "milk", "with": "oat milk"])) == ["milk", "eggs", "bread"])
        #expect(try undo("checkItem", ["list": 1, "item": "bread"])["checked"] as? [String] == [])
        _ = try client.result("checkItem", ["list": 1, "item": "bread"])
        revision += 1
        _ = try subscriber.readObject()
        #expect(try undo("uncheckItem", ["list": 1, "item": "bread"])["checked"] as? [String] == ["bread"])
        _ = try client.result("checkItem", ["list": 1, "item": "milk"])
        revision += 1
        _ = try subscriber.readObject()
        let cleared = try undo("clearChecked", ["list": 1])
        #expect(items(cleared) == ["milk", "eggs", "bread"], "a clear is undone as one change, items in place")
        #expect(cleared["checked"] as? [String] == ["milk", "bread"], "and checked")
        #expect(try undo("renameList", ["list": 1, "name": "Food"])["name"] as? String == "Groceries")
        let restored = try undo("deleteList", ["list": 1])
        #expect(restored["id"] as? Int == 1, "the same list: its old id")
        #expect(items(restored) == ["milk", "eggs", "bread"])
        #expect(restored["checked"] as? [String] == ["milk", "bread"])
        let created = try undo("createList", ["name": "Party", "items": ["cake"]])
        #expect(created["name"] as? String == "Party")
        #expect((try client.result("getLists")["lists"] as? [[String: Any]])?.count == 1, "the created list is gone")
        // An undo is a change like any other: undone, it is done again.
        _ = try client.result("addItem", ["list": 1, "item": "tea"])
        revision += 1
        _ = try subscriber.readObject()
        let undone = try client.result("undo", ["revision": revision])
        #expect(items(undone["list"] as? [String: Any] ?? [:]) == ["milk", "eggs", "bread"])
        let redone = try client.result("undo", ["revision": revision + 1])
        #expect(items(redone["list"] as? [String: Any] ?? [:]) == ["milk", "eggs", "bread", "tea"])
    }

    /// A change's log line holds what changed, never the list: on a list of 5,000 items, a check,
    /// a clear of two items and its undo each log a line of a few hundred bytes.
    @Test func aLogLineStaysSmallOnALongList() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let items = (0..<5_000).map { "item number \($0) of a long list" }
        _ = try client.result("createList", ["name": "Long", "items": items])
        _ = try client.result("checkItem", ["list": "Long", "item": items[10]])
        _ = try client.result("checkItem", ["list": "Long", "item": items[4_000]])
        let cleared = try client.result("clearChecked", ["list": "Long"])
        #expect(cleared["cleared"] as? [String] == [items[10], items[4_000]])
        _ = try client.result("undo", ["revision": 4])
        let log = try String(contentsOfFile: daemon.sandbox.path + "/.lists.md.listd-log", encoding: .utf8)
        let changes = log.split(separator: "\n").filter { $0.contains(#""op":"#) }
        #expect(changes.count == 5, "create, two checks, the clear, the undo: \(changes.count)")
        #expect(changes.first.map { $0.utf8.count > 100_000 } == true, "the create logs its items")
        for line in changes.dropFirst() {
            #expect(line.utf8.count < 400, "\(line.prefix(300))")
        }
    }

    /// Issue 47, case 1: two phones (each its own `hello` name, as listd-web names a device's
    /// connection). Phone A removes apples, the partner's phone B ticks toffee after it: A's
    /// "undo mine" puts apples back and leaves B's tick alone; asked again it steps back to A's
    /// earlier add, never to B's clear made since; with nothing of A's left, it says so.
    @Test func undoMineUndoesThisDevicesOwnLatestChangeNeverTheOthers() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let phoneA = try LineConnection(path: daemon.sandbox.socket)
        let phoneB = try LineConnection(path: daemon.sandbox.socket)
        _ = try phoneA.result("hello", ["name": "Phone A"])
        _ = try phoneB.result("hello", ["name": "Phone B"])
        _ = try phoneB.result("createList", ["name": "Groceries", "items": ["apples", "toffee", "bread", "jam"]])  // 1
        _ = try phoneA.result("addItem", ["list": 1, "item": "milk"])  // 2
        _ = try phoneA.result("removeItem", ["list": 1, "item": "apples"])  // 3
        _ = try phoneB.result("checkItem", ["list": 1, "item": "toffee"])  // 4
        var undo = try phoneA.result("undo", ["mine": true])
        #expect((undo["undone"] as? [String: Any])?["revision"] as? Int == 3, "A's removal, not B's later tick: \(undo)")
        var list = undo["list"] as? [String: Any] ?? [:]
        #expect(list["items"] as? [String] == ["apples", "toffee", "bread", "jam", "milk"])
        #expect(list["checked"] as? [String] == ["toffee"], "B's tick stands")
        _ = try phoneB.result("checkItem", ["list": 1, "item": "jam"])  // 6
        _ = try phoneB.result("clearChecked", ["list": 1])  // 7
        undo = try phoneA.result("undo", ["mine": true])
        #expect((undo["undone"] as? [String: Any])?["revision"] as? Int == 2, "a step further back, A's own add: \(undo)")
        list = undo["list"] as? [String: Any] ?? [:]
        #expect(list["items"] as? [String] == ["apples", "bread"], "B's clear stands, milk is gone: \(list)")
        let nothing = try phoneA.error("undo", ["mine": true])
        #expect(reason(nothing) == "nothingToUndo")
        #expect(nothing["code"] as? Int == 1019)
        #expect(nothing["message"] as? String == "Nothing of yours to undo: every change you made that listd keeps is undone already.")
        // An undo is undone by its revision (A's first undo, #5): apples go again.
        let redone = try phoneA.result("undo", ["revision": 5])
        #expect((redone["list"] as? [String: Any])?["items"] as? [String] == ["bread"], "\(redone)")
    }

    /// Issue 47, case 1 in the terminal: one save in sed deletes two lists (their headings and
    /// items); `listctl undo` twice brings both back — the second undo steps further back instead
    /// of undoing the first.
    @Test func listctlUndoRepeatedStepsBack() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Groceries", "milk", "eggs"], socket: socket).status == 0)
        #expect(try listctl(["create", "Hardware", "screws"], socket: socket).status == 0)
        #expect(try listctl(["create", "Pantry", "rice"], socket: socket).status == 0)
        _ = try daemon.sandbox.read { $0.contains("# Pantry") && $0.contains(" rev=3") }
        try shell(in: daemon.sandbox, "sed -i '/^# Groceries/,/^# Pantry/{/^# Pantry/!d}' lists.md")
        let client = try LineConnection(path: socket)
        let deadline = Date().addingTimeInterval(10)
        var names: [String] = []
        repeat {
            names = (try client.result("getLists")["lists"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            if !names.contains("Hardware") && !names.contains("Groceries") { break }
            usleep(20_000)
        } while Date() < deadline
        let deleted = try client.result("getHistory", ["limit": 10])["changes"] as? [[String: Any]] ?? []
        #expect(deleted.filter { $0["event"] as? String == "didDeleteShoppingList" }.count == 2, "two lists deleted by the save: \(deleted) \((try? daemon.sandbox.read()) ?? "")")
        let first = try listctl(["undo"], socket: socket)
        let second = try listctl(["undo"], socket: socket)
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        #expect(first.stdout.hasPrefix("Undid #"), "\(first.stdout)")
        names = (try client.result("getLists")["lists"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names.contains("Groceries") && names.contains("Hardware"), "both lists back: \(names) (\(first.stdout)\(second.stdout))")
        #expect(try client.result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk", "eggs"])
    }

    @Test func anUndoThatNoLongerAppliesIsDeniedAndSaysWhatIsInTheWay() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--history", "2"])
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try client.result("addItem", ["list": 1, "item": "tea"])  // 2
        _ = try client.result("removeItem", ["list": 1, "item": "tea"])  // 3
        var error = try client.error("undo", ["revision": 2])
        #expect(reason(error) == "itemNotFound")
        #expect(error["message"] as? String == "Change #2 cannot be undone: “tea” is not on Groceries.")
        _ = try client.result("renameList", ["list": 1, "name": "Food"])  // 4
        _ = try client.result("createList", ["name": "Groceries"])  // 5
        error = try client.error("undo", ["revision": 4])
        #expect(reason(error) == "listExists")
        #expect(error["message"] as? String == "Change #4 cannot be undone: There is already a list called “Groceries”, so Food keeps its name.")
        error = try client.error("undo", ["revision": 99])
        #expect(reason(error) == "changeNotFound")
        #expect(error["message"] as? String == "There is no change #99 (the latest is #5).")
        error = try client.error("undo", ["revision": 5, "ifRevision": 1])
        #expect(reason(error) == "conflict")
        // --history 2 keeps two or three changes: the first is long gone.
        error = try client.error("undo", ["revision": 1])
        #expect(reason(error) == "historyCompacted")
        #expect((error["message"] as? String)?.hasPrefix("Change #1 is older than the changes listd keeps") == true)
        #expect(try client.result("getList", ["list": "Food"])["items"] as? [String] == ["milk"], "nothing changed")
    }
}

/// Issue 28 in listctl: check, uncheck, clear, show, log, undo and watch, as a person reads them,
/// with their exit statuses.
@Suite(.offThePool) struct ListctlCheckLogUndoTests {
    /// Issue 47, case 7: a list deleted in the file that a delegate keeps is said by `watch`
    /// without a "line 0": the note is about the whole list.
    @Test func aNoteAboutAWholeListNamesNoLine() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Groceries", "milk"], socket: socket).status == 0)
        #expect(try listctl(["create", "Hardware", "screws"], socket: socket).status == 0)
        _ = try daemon.sandbox.read { $0.contains("# Hardware") && $0.contains(" rev=2") }
        let keeper = try LineConnection(path: socket)
        _ = try keeper.result("registerDelegate", ["name": "keeper", "questions": ["shouldDelete"], "timeoutMs": 100, "onTimeout": "deny"])
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let watched = LineReader(watch.stdout)
        #expect(try watched.line().hasPrefix("Watching 2 lists"))
        try shell(in: daemon.sandbox, "sed -i '/^# Hardware/,$d' lists.md")
        let said = try watched.line()
        #expect(said == "List file edit not taken: “Hardware” stays: Denied by a delegate: keeper: no answer in time.", "\(said)")
        let text = try daemon.sandbox.read { $0.contains("# Hardware") }
        #expect(text.contains("<!-- listd: not taken: “Hardware” stays: Denied by a delegate: keeper: no answer in time. -->"), "\(text)")
        #expect(try LineConnection(path: socket).result("getList", ["list": "Hardware"])["items"] as? [String] == ["screws"])
    }

    @Test func checkClearLogAndUndoAsAPersonReadsThem() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let watched = LineReader(watch.stdout)
        #expect(try watched.line().hasPrefix("Watching 0 lists"))

        _ = try listctl(["create", "Groceries", "milk", "eggs", "bread"], socket: socket)
        var run = try listctl(["check", "Groceries", "milk", "bread", "jam"], socket: socket)
        #expect(run.status == 1, "jam is not on the list")
        #expect(run.stdout == "Checked “milk” on Groceries.\nChecked “bread” on Groceries.\n")
        #expect(run.stderr == "listctl: denied: “jam” is not on Groceries.\n")
        run = try listctl(["show", "Groceries"], socket: socket)
        #expect(run.stdout.split(separator: "\n").dropFirst() == ["  - [x] milk", "  - [ ] eggs", "  - [x] bread"])
        run = try listctl(["uncheck", "Groceries", "bread"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Unchecked “bread” on Groceries.\n")

        _ = try watched.line()  // #1 created
        let pid = "pid \\d+, uid \\d+"
        #expect(try watched.line().contains(#/^#2 Groceries: checked “milk” \(by listctl \(/#))
        #expect(try watched.line().hasPrefix("#3 Groceries: checked “bread” (by listctl"))
        #expect(try watched.line().hasPrefix("#4 Groceries: unchecked “bread” (by listctl"))

        run = try listctl(["clear", "Groceries"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Cleared 1 checked item from Groceries.\n")
        #expect(try watched.line().hasPrefix("#5 Groceries: removed “milk” (by listctl"))
        run = try listctl(["clear", "Groceries"], socket: socket)
        #expect(run.stdout == "Nothing is checked on Groceries.\n")

        run = try listctl(["log"], socket: socket)
        #expect(run.status == 0)
        let log = run.stdout.split(separator: "\n").map(String.init)
        #expect(log.count == 5)
        let line = try Regex(#"^#5  \d{4}-\d\d-\d\d \d\d:\d\d  Groceries  removed “milk”  \(listctl, "# + pid + #"\)$"#)
        #expect(log.last?.contains(line) == true, "\(log)")
        #expect(log.first?.contains(try Regex(#"^#1  .*  Groceries  created  \(listctl, "# + pid + #"\)$"#)) == true)
        run = try listctl(["log", "Groceries", "--limit", "2"], socket: socket)
        #expect(run.stdout.split(separator: "\n").map { $0.prefix(3) } == ["#4 ", "#5 "])
        run = try listctl(["log", "--limit", "0"], socket: socket)
        #expect(run.status == 2)

        run = try listctl(["undo"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Undid #5 (Groceries: removed “milk”) as #6.\n")
        #expect(try watched.line().hasPrefix("#6 Groceries: added “milk”, checked “milk” (by listctl"))
        #expect(try listctl(["show", "Groceries"], socket: socket).stdout.contains("  - [x] milk\n  - [ ] eggs"))
        run = try listctl(["undo", "#4"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Undid #4 (Groceries: unchecked “bread”) as #7.\n")
        run = try listctl(["log", "--limit", "1"], socket: socket)
        #expect(run.stdout.contains("Groceries  checked “bread”, undoing #4  (listctl"))
        // Undone already: nothing left to change, still confirmed.
        run = try listctl(["undo", "4"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Undid #4 (Groceries: unchecked “bread”): nothing left to change.\n")

        _ = try listctl(["remove", "Groceries", "eggs"], socket: socket)  // 8
        _ = try listctl(["add", "Groceries", "tea"], socket: socket)  // 9
        _ = try listctl(["remove", "Groceries", "tea"], socket: socket)  // 10
        run = try listctl(["undo", "9"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr == "listctl: denied: Change #9 cannot be undone: “tea” is not on Groceries.\n")
        run = try listctl(["undo", "77"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr == "listctl: denied: There is no change #77 (the latest is #10).\n")
        run = try listctl(["undo", "soon"], socket: socket)
        #expect(run.status == 2)
        #expect(try listctl(["log"], socket: "/nonexistent/socket").status == 3)
    }

    /// A clear a delegate partly refuses: what went is said, what stayed and why, exit status 1.
    @Test func clearSaysWhichItemsStayedAndWhy() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries", "milk", "eggs"], socket: socket)
        _ = try listctl(["check", "Groceries", "milk", "eggs"], socket: socket)
        let delegate = try LineConnection(path: socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper", "questions": ["shouldRemove"]])
        let answering = Thread {
            for _ in 0..<3 {
                guard let question = try? delegate.readObject() else { return }
                let item = params(question)["item"] as? String
                let answer = item == "eggs" ? #"{"allow":false,"reason":"for the cake"}"# : #"{"allow":true}"#
                try? delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}")
            }
        }
        answering.start()
        let run = try listctl(["clear", "Groceries"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stdout == "Cleared 1 checked item from Groceries.\n")
        #expect(run.stderr == "listctl: kept: “eggs” stays: keeper: for the cake.\n")
        let json = try listctl(["clear", "--json", "Groceries"], socket: socket)
        #expect(json.status == 1)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(result["items"] as? [String] == ["eggs"])
        #expect(result["cleared"] as? [String] == [], "eggs was kept again; nothing else was checked")
        #expect((result["kept"] as? [[String: Any]])?.first?["item"] as? String == "eggs")
    }
}
