// Issue 62, case 3: automation without guesswork. An add that succeeds when the item is there
// (`ifAbsent`), a weekly script's `--edit-id` done once however often it runs, and subscriptions
// that hear only others' changes, or only some kinds of step — over the real socket and listctl.
import Foundation
import Testing

@Suite(.offThePool) struct AutomationTests {
    /// "Add milk when the fridge says so": there already, the add is confirmed `unchanged`;
    /// ticked, it is unticked (a change); absent, added. A plain add of it is still `itemExists`.
    @Test func anAddIfAbsentConfirmsWhatIsThere() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"], "quantities": ["milk": "1 l"]])
        let there = try client.result("addItem", ["list": "Groceries", "item": "Milk", "quantity": "2 l", "ifAbsent": true])
        #expect(there["unchanged"] as? Bool == true && there["revision"] as? Int == 1, "\(there)")
        #expect(there["quantities"] as? [String: String] == ["milk": "1 l"], "left as it is")
        #expect((try client.error("addItem", ["list": "Groceries", "item": "milk"])["data"] as? [String: Any])?["reason"] as? String == "itemExists")
        _ = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        let unticked = try client.result("addItem", ["list": "Groceries", "item": "milk", "ifAbsent": true])
        #expect(unticked["unchanged"] == nil && unticked["checked"] as? [String] == [] && unticked["revision"] as? Int == 3)
        let added = try client.result("addItem", ["list": "Groceries", "item": "eggs", "ifAbsent": true])
        #expect(added["unchanged"] == nil && added["items"] as? [String] == ["milk", "eggs"])
        // A stale ifRevision is not passed over.
        let stale = try client.error("addItem", ["list": "Groceries", "item": "eggs", "ifAbsent": true, "ifRevision": 1])
        #expect((stale["data"] as? [String: Any])?["reason"] as? String == "conflict")
        // The same for a list: made once.
        let list = try client.result("createList", ["name": "groceries", "ifAbsent": true])
        #expect(list["unchanged"] as? Bool == true && list["name"] as? String == "Groceries")
        #expect((try client.result("getLists")["lists"] as? [Any])?.count == 1)
        // Nothing changed, nothing kept: the history holds the four changes only.
        #expect((try client.result("getHistory")["changes"] as? [Any])?.count == 4)
    }

    /// A weekly cron job: `listctl add --edit-id` run twice adds once, and says so the second
    /// time; `--if-absent` leaves what is there.
    @Test func listctlEditIdAndIfAbsent() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        let first = try listctl(["add", "--edit-id", "weekly-48", "Groceries", "milk", "eggs"], socket: socket)
        #expect(first.status == 0 && first.stdout == "Added “milk” to Groceries.\nAdded “eggs” to Groceries.\n", "\(first)")
        _ = try listctl(["remove", "Groceries", "milk"], socket: socket)
        let again = try listctl(["add", "--edit-id", "weekly-48", "Groceries", "milk", "eggs"], socket: socket)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "Added “milk” to Groceries before (revision 2): not done again.\nAdded “eggs” to Groceries before (revision 3): not done again.\n")
        let items = try LineConnection(path: socket).result("getList", ["list": "Groceries"])["items"] as? [String]
        #expect(items == ["eggs"], "the removed milk was not brought back")
        let json = try listctl(["add", "--json", "--edit-id", "weekly-48", "Groceries", "eggs", "milk"], socket: socket)
        let outcomes = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(outcomes.map { $0["resentFrom"] as? Int } == [3, 2], "\(json.stdout)")
        let present = try listctl(["add", "--if-absent", "Groceries", "eggs"], socket: socket)
        #expect(present.status == 0 && present.stdout == "“eggs” is on Groceries already; left as it is.\n", "\(present)")
        let made = try listctl(["create", "--if-absent", "groceries"], socket: socket)
        #expect(made.status == 0 && made.stdout.contains("is there already"), "\(made)")
    }

    /// "Tell me when my partner adds something": a subscription to others' adds hears neither its
    /// own author's changes nor others' ticks.
    @Test func subscriptionsFilterByOriginAndStepKind() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        let me = try LineConnection(path: socket)
        _ = try me.result("hello", ["name": "kitchen-script"])
        _ = try me.result("createList", ["name": "Groceries"])
        _ = try me.result("subscribe", ["origin": "others", "steps": ["add"]])
        let partner = try LineConnection(path: socket)
        _ = try partner.result("hello", ["name": "phone"])
        _ = try me.result("addItem", ["list": "Groceries", "item": "milk"])  // mine: not told
        _ = try partner.result("checkItem", ["list": "Groceries", "item": "milk"])  // a tick: not told
        _ = try partner.result("addItem", ["list": "Groceries", "item": "eggs"])  // told
        let told = try me.readObject()
        #expect(told["method"] as? String == "didUpdateShoppingList")
        let params = told["params"] as? [String: Any] ?? [:]
        #expect(params["revision"] as? Int == 4, "the first told is the partner's add: \(told)")
        #expect((params["origin"] as? [String: Any])?["name"] as? String == "phone")
        // Only mine, by any step: the partner's next change is not told, mine is.
        _ = try me.result("subscribe", ["origin": "mine"])
        _ = try partner.result("addItem", ["list": "Groceries", "item": "tea"])
        // (its own change is heard before its confirm)
        try me.send(#"{"jsonrpc":"2.0","id":"mine","method":"removeItem","params":{"list":"Groceries","item":"tea"}}"#)
        let mine = try me.readObject()
        #expect((mine["params"] as? [String: Any])?["revision"] as? Int == 6, "\(mine)")
        #expect(try me.readObject()["id"] as? String == "mine")
        // A filter that is not one names its parameter.
        let wrong = try me.error("subscribe", ["steps": ["buy"]])
        #expect((wrong["data"] as? [String: Any])?["param"] as? String == "steps")
        // listctl watch takes the same filters.
        let watched = try listctl(["watch", "--origin", "nobody"], socket: socket)
        #expect(watched.status != 0 && watched.stderr.contains("not an origin"))
    }
}
