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
@Suite struct CheckedItemTests {
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

    /// A delegate that does not know the new questions answers -32601: that counts as allowing.
    @Test func aDelegateThatDoesNotKnowShouldCheckAllowsIt() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        let registered = try delegate.result("registerDelegate", ["name": "old"])
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

        try shell(in: sandbox, "vim -Nu NONE -n -es -c '%s/^- \\[x\\] milk$/- [ ] milk/' -c '%s/^- eggs$/- [X] duck eggs/' -c 'wq' lists.md")
        note = try subscriber.readObject()
        #expect(steps(note) == ["uncheck milk"])
        note = try subscriber.readObject()
        #expect(steps(note) == ["replace eggs"], "the text and the box in one save: a replace…")
        note = try subscriber.readObject()
        #expect(steps(note) == ["check duck eggs"], "…and a check")
        #expect(try client.result("getList", ["list": 1])["checked"] as? [String] == ["duck eggs"])
        // listd had nothing of its own to write: the lines are as the person left them.
        _ = try client.result("addItem", ["list": 1, "item": "tea"])
        let text = try sandbox.read { $0.contains("tea") }
        #expect(text.contains("- [ ] milk\n- [X] duck eggs\n- [ ] tea"), "\(text)")
    }
}
