// Issue 62, case 2: what a third party had to guess, now said in docs/protocol.md and held here:
// the order of a resumed subscription's reply and its older notifications, of a client's own
// notification and its confirm, and what an undo of a create takes with it.
import Foundation
import Glibc
import Testing

@Suite(.offThePool) struct ProtocolOrderTests {
    /// `subscribe {since}`: the reply (the lists now, at revision N) comes first, then the changes
    /// after `since` up to N — older than that snapshot — then live ones.
    @Test func aResumedSubscriptionsReplyComesBeforeTheChangesItMissed() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let made = try client.result("createList", ["name": "Groceries"])  // #1
        for item in ["milk", "eggs", "tea"] { _ = try client.result("addItem", ["list": "Groceries", "item": item]) }  // #2–#4
        let instance = try client.result("getLists")["instance"] as? String
        #expect(made["revision"] as? Int == 1)
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        try subscriber.send(#"{"jsonrpc":"2.0","id":7,"method":"subscribe","params":{"since":2,"instance":"\#(instance ?? "")"}}"#)
        let first = try subscriber.readObject()
        #expect(first["id"] as? Int == 7, "the reply first: \(first)")
        #expect((first["result"] as? [String: Any])?["revision"] as? Int == 4)
        let missed = try (0..<2).map { _ in try subscriber.readObject() }
        #expect(missed.map { $0["method"] as? String } == ["didUpdateShoppingList", "didUpdateShoppingList"])
        #expect(missed.map { ($0["params"] as? [String: Any])?["revision"] as? Int } == [3, 4], "older than the snapshot, in order")
    }

    /// A subscriber's own edit: its notification comes before its confirm, on the same connection.
    @Test func aSubscribersOwnChangeIsHeardBeforeItIsConfirmed() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        _ = try client.result("subscribe")
        try client.send(#"{"jsonrpc":"2.0","id":9,"method":"addItem","params":{"list":"Groceries","item":"milk"}}"#)
        let first = try client.readObject()
        let second = try client.readObject()
        #expect(first["method"] as? String == "didUpdateShoppingList", "the notification first: \(first)")
        #expect(second["id"] as? Int == 9, "then the confirm: \(second)")
    }

    /// `undo` of a create deletes the list, with whatever was added to it since.
    @Test func undoingACreateDeletesTheListWithWhatWasAddedSince() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        let made = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try client.result("addItem", ["list": "Groceries", "item": "eggs"])
        let undone = try client.call("undo", ["revision": made["revision"] as? Int ?? 0])
        #expect(undone["error"] == nil, "\(undone)")
        #expect((try client.result("getLists")["lists"] as? [Any])?.isEmpty == true, "the list, eggs and all")
    }
}
