// Issue 30 over the socket, with the real listd: sections and amounts through addItem, moveItem,
// the section methods and setQuantity; their deny reasons and codes; a delegate refusing a move;
// undo; and the section an item was last in, across a restart.
import Foundation
import Testing

private func reason(_ error: [String: Any]) -> String? { (error["data"] as? [String: Any])?["reason"] as? String }

/// `["Dairy: milk,butter", …]` from a `List`'s `sections`.
private func sections(_ list: [String: Any]) -> [String] {
    (list["sections"] as? [[String: Any]] ?? []).map {
        "\($0["name"] as? String ?? "?"): \(($0["items"] as? [String] ?? []).joined(separator: ","))"
    }
}

@Suite(.offThePool) struct SectionsProtocolTests {
    @Test func sectionsAndAmountsThroughEveryMethod() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["batteries"]])
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try subscriber.result("subscribe", ["events": ["didUpdateShoppingList"]])

        var list = try client.result("addItem", ["list": "Groceries", "item": "milk", "section": "Dairy", "quantity": "2 l"])
        #expect(sections(list) == ["Dairy: milk"])
        #expect(list["items"] as? [String] == ["batteries", "milk"], "items stay the whole list")
        #expect(list["quantities"] as? [String: String] == ["milk": "2 l"])
        let note = try subscriber.readObject()
        let steps = ((note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []).map { $0["op"] as? String ?? "?" }
        #expect(steps == ["addSection", "add"], "the section made in the same change")

        _ = try client.result("addItem", ["list": "Groceries", "item": "butter", "section": "dairy"])
        _ = try client.result("addSection", ["list": "Groceries", "section": "Bakery"])
        list = try client.result("moveItem", ["list": "Groceries", "item": "butter", "section": "Bakery"])
        #expect(sections(list) == ["Dairy: milk", "Bakery: butter"])
        list = try client.result("moveItem", ["list": "Groceries", "item": "batteries", "before": "milk"])
        #expect(sections(list) == ["Dairy: batteries,milk", "Bakery: butter"])
        list = try client.result("renameSection", ["list": "Groceries", "section": "Bakery", "to": "Bread"])
        #expect(sections(list) == ["Dairy: batteries,milk", "Bread: butter"])
        list = try client.result("setQuantity", ["list": "Groceries", "item": "butter", "quantity": "250 g"])
        #expect(list["quantities"] as? [String: String] == ["milk": "2 l", "butter": "250 g"])
        list = try client.result("setQuantity", ["list": "Groceries", "item": "milk", "quantity": NSNull()])
        #expect(list["quantities"] as? [String: String] == ["butter": "250 g"], "null clears it")
        list = try client.result("removeSection", ["list": "Groceries", "section": "Bread"])
        #expect(sections(list) == ["Dairy: batteries,milk,butter"], "its items join the section above")

        // Each new deny reason, with its code and a sentence.
        let denials: [(String, [String: Any], String, Int)] = [
            ("addSection", ["list": 1, "section": "DAIRY"], "sectionExists", 1013),
            ("moveItem", ["list": 1, "item": "milk", "section": "Frozen"], "sectionNotFound", 1014),
            ("addSection", ["list": 1, "section": "  "], "invalidSection", 1015),
            ("setQuantity", ["list": 1, "item": "milk", "quantity": "12 (large"], "invalidQuantity", 1016),
            ("addItem", ["list": 1, "item": "Milk", "quantity": "1 l"], "itemExists", 1001),
        ]
        for (method, params, expected, code) in denials {
            let error = try client.error(method, params)
            #expect(reason(error) == expected, "\(method) \(params): \(error)")
            #expect(error["code"] as? Int == code)
        }
        let duplicate = try client.error("addItem", ["list": 1, "item": "Milk", "quantity": "1 l"])
        #expect(duplicate["message"] as? String == "“milk” is already on Groceries, under Dairy. To buy 1 l, change its amount instead.")
    }

    @Test func aDelegateDeniesAMoveAndAnUndoMovesBack() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": []])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy"])
        _ = try client.result("addItem", ["list": 1, "item": "bread", "section": "Bakery"])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        let registered = try delegate.result("registerDelegate", ["name": "aisles"])
        let questions = registered["questions"] as? [String] ?? []
        #expect(["shouldMove", "shouldSetQuantity", "shouldEditSection"].allSatisfy(questions.contains), "in the default set: \(questions)")

        try client.send(#"{"jsonrpc":"2.0","id":1,"method":"moveItem","params":{"list":1,"item":"milk","section":"Bakery"}}"#)
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldMove")
        let asked = question["params"] as? [String: Any] ?? [:]
        #expect(asked["item"] as? String == "milk")
        #expect(asked["section"] as? String == "Bakery")
        try delegate.send(#"{"jsonrpc":"2.0","id":"\#(question["id"] as? String ?? "")","result":{"allow":false,"reason":"milk stays cold"}}"#)
        let denied = try client.readObject()
        #expect(reason(denied["error"] as? [String: Any] ?? [:]) == "deniedByDelegate", "\(denied)")
        _ = try delegate.result("unregisterDelegate")

        let moved = try client.result("moveItem", ["list": 1, "item": "milk", "section": "Bakery"])
        #expect(sections(moved) == ["Dairy: ", "Bakery: bread,milk"])
        let undone = try client.result("undo", ["revision": moved["revision"] as? Int ?? -1])
        let list = try client.result("getList", ["list": 1])
        #expect(sections(list) == ["Dairy: milk", "Bakery: bread"], "\(undone)")
    }

    /// Each new kind of change undone with the real listd, as a new change with `undoes`: a
    /// section added, renamed and removed (put back with its items), an amount set, an item added
    /// into a new section; and an undo that no longer applies, denied with what is in the way.
    @Test func undoOfEachNewKindOfChange() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["tape"]])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy", "quantity": "2 l"])
        _ = try client.result("addItem", ["list": 1, "item": "butter", "section": "Dairy"])
        func revision(_ list: [String: Any]) -> Int { list["revision"] as? Int ?? -1 }
        func undo(_ change: [String: Any]) throws -> [String: Any] {
            let result = try client.result("undo", ["revision": revision(change)])
            return result["list"] as? [String: Any] ?? [:]
        }
        var change = try client.result("setQuantity", ["list": 1, "item": "milk", "quantity": "1 l"])
        #expect((try undo(change))["quantities"] as? [String: String] == ["milk": "2 l"], "the old amount back")
        change = try client.result("renameSection", ["list": 1, "section": "Dairy", "to": "Milk"])
        #expect(sections(try undo(change)) == ["Dairy: milk,butter"])
        change = try client.result("addSection", ["list": 1, "section": "Bakery"])
        #expect(sections(try undo(change)) == ["Dairy: milk,butter"])
        change = try client.result("removeSection", ["list": 1, "section": "Dairy"])
        #expect(sections(change) == [])
        #expect(sections(try undo(change)) == ["Dairy: milk,butter"], "the heading back with the same items")
        change = try client.result("addItem", ["list": 1, "item": "bread", "section": "Bakery"])
        var list = try undo(change)
        #expect(list["items"] as? [String] == ["tape", "milk", "butter"])
        let history = try client.result("getHistory", ["limit": 1])
        #expect(((history["changes"] as? [[String: Any]])?.first?["undoes"] as? Int) == revision(change))
        // An amount set on an item removed since: denied, saying so.
        change = try client.result("setQuantity", ["list": 1, "item": "butter", "quantity": "250 g"])
        _ = try client.result("removeItem", ["list": 1, "item": "butter"])
        let denied = try client.error("undo", ["revision": revision(change)])
        #expect(reason(denied) == "itemNotFound")
        #expect((denied["message"] as? String)?.contains("“butter” is not on Groceries") == true, "\(denied)")
        list = try client.result("getList", ["list": 1])
        #expect(sections(list) == ["Dairy: milk", "Bakery: "], "an add that made its section is undone by taking the item off; the section stays")
    }

    /// Every new kind of change logs a line independent of the list's size: indexes and the
    /// one item or section, never the list.
    @Test func aLogLineStaysSmallOnALongListWithSections() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let items = (0..<5_000).map { "item number \($0) of a long list" }
        _ = try client.result("createList", ["name": "Long", "items": items])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy", "quantity": "2 l"])
        _ = try client.result("addSection", ["list": 1, "section": "Bakery", "before": "Dairy"])
        _ = try client.result("moveItem", ["list": 1, "item": items[2_500], "section": "Bakery"])
        _ = try client.result("setQuantity", ["list": 1, "item": items[10], "quantity": "3"])
        _ = try client.result("renameSection", ["list": 1, "section": "Bakery", "to": "Bread"])
        _ = try client.result("removeSection", ["list": 1, "section": "Bread"])
        let undone = try client.result("getHistory", ["limit": 1])
        let last = ((undone["changes"] as? [[String: Any]])?.first?["revision"] as? Int) ?? -1
        _ = try client.result("undo", ["revision": last])
        let log = try String(contentsOfFile: daemon.sandbox.path + "/.lists.md.listd-log", encoding: .utf8)
        let changes = log.split(separator: "\n").filter { $0.contains(#""op":"#) }
        #expect(changes.count == 8, "the create, then seven changes: \(changes.count)")
        for line in changes.dropFirst() {
            #expect(line.utf8.count < 400, "\(line.prefix(300))")
        }
    }

    /// A brief subscriber (steps without the list) is told the section an item was added to, an
    /// undone removal's section and amount, and a created list's sections and amounts.
    @Test func aBriefSubscriberHearsSectionsAndAmounts() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let listener = try LineConnection(path: daemon.sandbox.socket)
        _ = try listener.result("hello", ["brief": true])
        _ = try listener.result("subscribe")
        _ = try client.result("createList", ["name": "Groceries", "items": ["tape"]])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy", "quantity": "2 l"])
        _ = try client.result("addItem", ["list": 1, "item": "butter", "section": "Dairy"])
        let removed = try client.result("removeItem", ["list": 1, "item": "milk"])
        _ = try client.result("undo", ["revision": removed["revision"] as? Int ?? -1])
        _ = try client.result("deleteList", ["list": 1])
        let latest = try client.result("getLists")["revision"] as? Int ?? -1
        _ = try client.result("undo", ["revision": latest])
        func steps(_ note: [String: Any]) -> [String] {
            ((note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []).map { step in
                ["op", "item", "section", "quantity"].compactMap { step[$0].map { "\($0)" } }.joined(separator: " ")
            }
        }
        _ = try listener.readObject()  // created
        #expect(steps(try listener.readObject()) == ["addSection Dairy", "add milk Dairy 2 l"])
        #expect(steps(try listener.readObject()) == ["add butter Dairy"])
        #expect(steps(try listener.readObject()) == ["remove milk"])
        #expect(steps(try listener.readObject()) == ["add milk Dairy 2 l"], "an undone removal: back into its section, with its amount")
        _ = try listener.readObject()  // deleted
        let recreated = try listener.readObject()["params"] as? [String: Any] ?? [:]
        #expect(recreated["items"] as? [String] == ["tape", "milk", "butter"])
        let sections = (recreated["sections"] as? [[String: Any]] ?? []).map { "\($0["name"] as? String ?? ""): \(($0["items"] as? [String] ?? []).joined(separator: ","))" }
        #expect(sections == ["Dairy: milk,butter"], "\(recreated)")
        #expect(recreated["quantities"] as? [String: String] == ["milk": "2 l"])
    }

    /// "milk" added again next week goes under Dairy again, after a restart in between.
    @Test func anItemGoesBackToItsSectionAcrossARestart() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        var client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["tape"]])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy"])
        _ = try client.result("removeItem", ["list": 1, "item": "milk"])
        #expect(daemon.stop() == 0)
        try daemon.start()
        client = try LineConnection(path: daemon.sandbox.socket)
        let list = try client.result("addItem", ["list": 1, "item": "milk"])
        #expect(sections(list) == ["Dairy: milk"], "\(list)")
    }

    /// The list file shows sections and amounts; a person renaming a `##` heading and moving a
    /// line under another one in real vim is one rename and one move, and an amount typed is one
    /// quantity change.
    @Test func aPersonRenamesASectionAndMovesALineInVim() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["batteries (4)"]])
        _ = try client.result("addItem", ["list": 1, "item": "milk", "section": "Dairy", "quantity": "2 l"])
        _ = try client.result("addItem", ["list": 1, "item": "butter", "section": "Dairy"])
        _ = try client.result("addItem", ["list": 1, "item": "bread", "section": "Bakery"])
        let expected = """
            # Groceries <!-- listd id=1 -->
            - [ ] batteries \\(4)
            ## Dairy
            - [ ] milk (2 l)
            - [ ] butter
            ## Bakery
            - [ ] bread
            """
        let shown = try daemon.sandbox.read { $0.withoutRevisions.contains(expected) }
        #expect(shown.withoutRevisions.contains(expected), "the file shows sections, amounts and an escaped text: \(shown)")

        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try subscriber.result("subscribe", ["events": ["didUpdateShoppingList"]])
        // :m moves butter below bread; the heading is retyped; milk gets another amount.
        try shell(
            in: daemon.sandbox,
            "vim -Nu NONE -n -es -c '/^- \\[ \\] butter$/m /^- \\[ \\] bread$/' -c '%s/^## Bakery$/## Bread \\& cakes/' -c '%s/milk (2 l)/milk (1 l)/' -c 'wq' lists.md"
        )
        var steps: [String] = []
        for _ in 0..<3 {
            let note = try subscriber.readObject()
            for step in (note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? [] {
                steps.append([step["op"], step["item"], step["section"], step["to"], step["quantity"]].compactMap { $0 as? String }.joined(separator: " "))
            }
        }
        #expect(steps.sorted() == ["move butter Bread & cakes", "quantity milk 1 l", "renameSection Bread & cakes"].sorted())
        let list = try client.result("getList", ["list": 1])
        #expect(sections(list) == ["Dairy: milk", "Bread & cakes: bread,butter"])
        #expect(list["items"] as? [String] == ["batteries (4)", "milk", "bread", "butter"])
    }

    /// The list file, change log and snapshot a listd from before sections and amounts wrote (made
    /// by today's main, 3f386b6): every item loads with its text unchanged (`batteries (4)` stays
    /// that item, with no amount), and the file shows it escaped from then on.
    @Test func listsFromBeforeAmountsKeepTheirItems() throws {
        let sandbox = try Sandbox()
        // The person added a line while listd was stopped: the file is read against the lists.
        try (Self.earlierFile + "- [ ] tape\n").write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        try Self.earlierLog.write(toFile: sandbox.path + "/.lists.md.listd-log", atomically: true, encoding: .utf8)
        try Self.earlierState.write(toFile: sandbox.path + "/.lists.md.listd-state.json", atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: sandbox.socket)
        var list = try client.result("getList", ["list": "Groceries"])
        #expect(list["items"] as? [String] == ["batteries (4)", "milk (organic)", "bread", "eggs (6)", "tape"])
        #expect(list["quantities"] as? [String: String] == [:])
        #expect(list["checked"] as? [String] == ["bread"])
        list = try client.result("addItem", ["list": "Groceries", "item": "jam (1 jar)"])
        #expect(list["quantities"] as? [String: String] == [:], "an item given over the socket is its text")
        let text = try sandbox.read { $0.contains("jam") }
        // The lines of items named before amounts stay as they were (read whole, as the items
        // listd keeps); a new one is written escaped.
        #expect(text.hasSuffix("- [ ] batteries (4)\n- [ ] milk (organic)\n- [x] bread\n- [ ] eggs (6)\n- [ ] tape\n- [ ] jam \\(1 jar)\n"), "\(text)")
        // Read back after a restart: the same items.
        #expect(daemon.stop() == 0)
        try daemon.start()
        let again = try LineConnection(path: sandbox.socket).result("getList", ["list": "Groceries"])
        #expect(again["items"] as? [String] == ["batteries (4)", "milk (organic)", "bread", "eggs (6)", "tape", "jam (1 jar)"])
    }

    static let earlierFile = #"""
<!-- Shopping lists kept by listd. A list is a `# Name` line, its items `- [ ] item` lines below it; `- [x] item` is ticked off. -->

# Groceries <!-- listd id=1 -->
- [ ] batteries (4)
- [ ] milk (organic)
- [x] bread
- [ ] eggs (6)
"""# + "\n"

    static let earlierLog = #"""
{"r":1,"t":1795638551936,"o":{"kind":"client","pid":10390,"uid":0,"name":"listctl"},"op":"create","id":1,"name":"Groceries","items":["batteries (4)","milk (organic)","bread","tea (20 bags)"]}
{"r":2,"t":1795638551953,"o":{"kind":"client","pid":10391,"uid":0,"name":"listctl"},"op":"check","id":1,"at":2}
{"listd":"fileShows","digest":"fnv1a64:e7393edf3c42e542:239","revision":2}
{"r":3,"t":1795638551969,"o":{"kind":"client","pid":10393,"uid":0,"name":"listctl"},"op":"remove","id":1,"at":3}
{"r":4,"t":1795638551984,"o":{"kind":"client","pid":10396,"uid":0,"name":"listctl"},"op":"add","id":1,"item":"eggs (6)","at":3}
{"listd":"fileShows","digest":"fnv1a64:c7cb56fcc9b90c69:234","revision":4}
"""# + "\n"

    static let earlierState = #"""
{"format":3,"instance":"61a92dcc-eec0-45c9-a1ce-88ebcee6e650","listFileDigest":"fnv1a64:40bee275a99d3797:133","lists":[],"nextID":1,"revision":0}
"""#
}
