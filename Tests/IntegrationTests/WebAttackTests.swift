// listd-web under attack, each case as the security review ran it against the real listd and
// listd-web: what a paired page may change (listd decides, undo and batches included), and
// what anyone on the network can do to listd-web.
import Foundation
import Glibc
import Testing

@Suite struct WebAttackTests {
    /// A page that undoes a list's creation, a rename and a deletion: each refused by listd, as
    /// a page may change items only; an item's undo still goes through.
    @Test(.timeLimit(.minutes(2)))
    func aPageCannotDeleteCreateOrRenameAListThroughUndo() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Secret", "milk"], socket: socket)  // #1
        _ = try listctl(["create", "Old name"], socket: socket)  // #2
        _ = try listctl(["rename", "Old name", "New name"], socket: socket)  // #3
        _ = try listctl(["create", "Gone"], socket: socket)  // #4
        _ = try listctl(["delete", "Gone"], socket: socket)  // #5
        let web = try WebServer(daemon.sandbox)
        let page = PageConnection(server: web, token: try web.pair("Phone A"))
        try await page.opened()

        for revision in [1, 3, 5] {
            let reply = try await page.call("undo", ["revision": revision])
            let error = reply["error"] as? [String: Any]
            let reason = (error?["data"] as? [String: Any])?["reason"] as? String
            #expect(reason == "notPermitted", "undo #\(revision) from a page: \(reply)")
        }
        let lists = try LineConnection(path: socket).result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.compactMap { $0["name"] as? String }.sorted() == ["New name", "Secret"], "\(lists)")

        // Items are the page's to change, and to undo.
        let added = try await page.call("addItem", ["list": "Secret", "item": "tea"])
        let revision = (added["result"] as? [String: Any])?["revision"] as? Int
        #expect(revision != nil, "\(added)")
        let undone = try await page.call("undo", ["revision": revision ?? 0])
        #expect(undone["result"] != nil, "\(undone)")
    }

    /// A connection that declared fewer rights in its hello (as listd-web's does) cannot widen
    /// them: not with a second hello, not in a batch, not by becoming a delegate.
    @Test(.timeLimit(.minutes(2)))
    func rightsDeclaredInHelloOnlyNarrow() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries", "milk"], socket: socket)
        let narrow = try LineConnection(path: socket)
        _ = try narrow.result("hello", ["name": "narrow", "rights": ["items"]])
        let wider = try narrow.call("hello", ["rights": ["items", "lists", "delegate"]])
        #expect(wider["result"] != nil, "\(wider)")
        let renamed = try narrow.error("renameList", ["list": "Groceries", "name": "Mine"])
        #expect((renamed["data"] as? [String: Any])?["reason"] as? String == "notPermitted", "\(renamed)")
        try narrow.send(#"[{"jsonrpc":"2.0","id":7,"method":"deleteList","params":{"list":"Groceries"}}]"#)
        let batch = try narrow.readJSON() as? [[String: Any]] ?? []
        let batchError = batch.first?["error"] as? [String: Any]
        #expect((batchError?["data"] as? [String: Any])?["reason"] as? String == "notPermitted", "\(batch)")
        let delegate = try narrow.error("registerDelegate", ["name": "sneaky"])
        #expect((delegate["data"] as? [String: Any])?["reason"] as? String == "notPermitted", "\(delegate)")
        let unknown = try LineConnection(path: socket).error("hello", ["rights": ["everything"]])
        #expect(unknown["code"] as? Int == -32602, "\(unknown)")
        #expect(try narrow.call("addItem", ["list": "Groceries", "item": "tea"])["result"] != nil)
        let lists = try LineConnection(path: socket).result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.compactMap { $0["name"] as? String } == ["Groceries"])
    }
}
