import Foundation
import Glibc
import Testing

/// Every method, every deny and every protocol error, against the real listd over its socket.
@Suite(.offThePool) struct ProtocolTests {
    /// `printf '…' | socat - UNIX:…` style: requests, then the sending side shut. Every request
    /// is answered (an edit that waits for its flush included), then listd ends the connection.
    @Test func aClientThatStopsSendingGetsEveryReplyThenTheEnd() throws {
        let daemon = try Daemon.start()
        let connection = try LineConnection(path: daemon.sandbox.socket)
        try connection.send(#"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Groceries"}}"#)
        try connection.send(#"{"jsonrpc":"2.0","id":2,"method":"addItem","params":{"list":1,"item":"milk"}}"#)
        try connection.send(#"{"jsonrpc":"2.0","id":3,"method":"getList","params":{"list":1}}"#)
        connection.finishSending()
        var ids: [Int] = []
        var items: [String]?
        while let line = try connection.readLine() {
            let reply = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            ids.append(reply["id"] as? Int ?? -1)
            items = (reply["result"] as? [String: Any])?["items"] as? [String] ?? items
        }
        #expect(ids == [1, 2, 3])
        #expect(items == ["milk"])
    }

    @Test func everyMethod() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)

        let hello = try client.result("hello", ["name": "tester"])
        #expect(hello["server"] as? String == "listd")
        #expect(hello["protocolVersion"] as? Int == 1)
        #expect(hello["pid"] as? Int32 == daemon.pid)

        let empty = try client.result("getLists")
        #expect(empty["revision"] as? Int == 0)
        #expect((empty["lists"] as? [Any])?.isEmpty == true)

        let created = try client.result("createList", ["name": " Groceries ", "items": ["milk", "eggs"]])
        #expect(created["id"] as? Int == 1)
        #expect(created["name"] as? String == "Groceries")
        #expect(created["items"] as? [String] == ["milk", "eggs"])
        #expect(created["revision"] as? Int == 1)
        let edited = try #require(created["edited"] as? String)
        #expect(parseRFC3339(edited) != nil)
        #expect(edited.hasSuffix("Z"))

        let added = try client.result("addItem", ["list": "groceries", "item": "bread"])
        #expect(added["items"] as? [String] == ["milk", "eggs", "bread"])
        #expect(added["revision"] as? Int == 2)

        let replaced = try client.result("replaceItem", ["list": 1, "item": "EGGS", "with": "free-range eggs"])
        #expect(replaced["items"] as? [String] == ["milk", "free-range eggs", "bread"])

        let removed = try client.result("removeItem", ["list": 1, "item": "milk"])
        #expect(removed["items"] as? [String] == ["free-range eggs", "bread"])

        let renamed = try client.result("renameList", ["list": "Groceries", "name": "Food"])
        #expect(renamed["id"] as? Int == 1)
        #expect(renamed["name"] as? String == "Food")
        #expect(renamed["revision"] as? Int == 5)

        let fetched = try client.result("getList", ["list": "food"])
        #expect(fetched["items"] as? [String] == ["free-range eggs", "bread"])

        let snapshot = try client.result("subscribe")
        #expect(snapshot["revision"] as? Int == 5)
        #expect((snapshot["lists"] as? [[String: Any]])?.first?["name"] as? String == "Food")
        #expect(try client.result("unsubscribe").isEmpty)

        let deleted = try client.result("deleteList", ["list": 1])
        #expect(deleted["name"] as? String == "Food")
        #expect(deleted["items"] as? [String] == ["free-range eggs", "bread"])
        #expect(try client.result("getLists")["revision"] as? Int == 6)
        #expect((try client.result("getLists")["lists"] as? [Any])?.isEmpty == true)
    }

    @Test func everyDenyReason() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try client.result("createList", ["name": "Hardware"])

        let cases: [(String, [String: Any], String, Int, String)] = [
            ("addItem", ["list": "Groceries", "item": " Milk"], "itemExists", 1001, "“milk” is already on Groceries."),
            ("removeItem", ["list": "Groceries", "item": "jam"], "itemNotFound", 1002, "“jam” is not on Groceries."),
            (
                "replaceItem", ["list": "Groceries", "item": "jam", "with": "honey"], "itemNotFound", 1002,
                "“jam” is not on Groceries."
            ),
            ("createList", ["name": "hardware"], "listExists", 1003, "There is already a list called “Hardware”."),
            (
                "renameList", ["list": "Groceries", "name": "HARDWARE"], "listExists", 1003,
                "There is already a list called “Hardware”, so Groceries keeps its name."
            ),
            ("deleteList", ["list": 99], "listNotFound", 1004, "There is no list with id 99."),
            ("renameList", ["list": "Nope", "name": "X"], "listNotFound", 1004, "There is no list called “Nope”."),
            ("getList", ["list": "Nope"], "listNotFound", 1004, "There is no list called “Nope”."),
            ("createList", ["name": "  "], "invalidName", 1005, "“  ” is not a valid list name: it is empty."),
            (
                "addItem", ["list": 1, "item": "a\nb"], "invalidItem", 1006,
                "“a\u{FFFD}b” is not a valid item: it contains the control character U+000A; it must be one line of text."
            ),
            ("addItem", ["list": 1, "item": String(repeating: "x", count: 1001)], "invalidItem", 1006, ""),
            (
                "addItem", ["list": 1, "item": "jam", "ifRevision": 0], "conflict", 1007,
                "Groceries has changed since revision 0 (it is at revision 1); reload it and try again."
            ),
        ]
        for (method, params, reason, code, message) in cases {
            let error = try client.error(method, params)
            #expect(error["code"] as? Int == code, "\(method) \(params)")
            #expect((error["data"] as? [String: Any])?["reason"] as? String == reason, "\(method) \(params)")
            if !message.isEmpty { #expect(error["message"] as? String == message) }
        }
        // Nothing denied was applied.
        let lists = try #require(try client.result("getLists")["lists"] as? [[String: Any]])
        #expect(lists.map { $0["items"] as? [String] ?? [] } == [["milk"], []])
        #expect(try client.result("getLists")["revision"] as? Int == 2)
    }

    @Test func compareAndSwapWithIfRevision() throws {
        let daemon = try Daemon.start()
        let alice = try LineConnection(path: daemon.sandbox.socket)
        let bob = try LineConnection(path: daemon.sandbox.socket)
        let list = try alice.result("createList", ["name": "Groceries"])
        let base = try #require(list["revision"] as? Int)
        _ = try alice.result("addItem", ["list": 1, "item": "milk", "ifRevision": base])
        let conflict = try bob.error("addItem", ["list": 1, "item": "jam", "ifRevision": base])
        #expect((conflict["data"] as? [String: Any])?["reason"] as? String == "conflict")
        #expect((conflict["data"] as? [String: Any])?["revision"] as? Int == base + 1)
        _ = try bob.result("addItem", ["list": 1, "item": "jam", "ifRevision": base + 1])
    }

    @Test func malformedInputGetsStandardErrorsAndTheConnectionStaysOpen() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)

        func errorCode(afterSending text: String) throws -> (Int?, Any?) {
            try client.send(text)
            let reply = try client.readObject()
            return ((reply["error"] as? [String: Any])?["code"] as? Int, reply["id"])
        }
        #expect(try errorCode(afterSending: "{\"jsonrpc\": \"2.0\", \"method\": ").0 == -32700)
        try client.sendBytes([0xFF, 0xFE, 0x7B, 0x0A])
        #expect(((try client.readObject())["error"] as? [String: Any])?["code"] as? Int == -32700)
        #expect(try errorCode(afterSending: "[]").0 == -32600)
        #expect(try errorCode(afterSending: "\"hello\"").0 == -32600)
        #expect(try errorCode(afterSending: #"{"jsonrpc":"2.0","id":5}"#).0 == -32600)
        let (code, id) = try errorCode(afterSending: #"{"jsonrpc":"1.0","id":6,"method":"getLists"}"#)
        #expect(code == -32600)
        #expect(id as? Int == 6)
        #expect(try errorCode(afterSending: #"{"jsonrpc":"2.0","id":7,"method":"launchRockets"}"#).0 == -32601)
        #expect(
            try errorCode(afterSending: #"{"jsonrpc":"2.0","id":8,"method":"addItem","params":{"list":1}}"#).0 == -32602
        )
        #expect(
            try errorCode(
                afterSending: #"{"jsonrpc":"2.0","id":9,"method":"addItem","params":{"list":true,"item":"x"}}"#
            ).0 == -32602
        )
        #expect(
            try errorCode(afterSending: #"{"jsonrpc":"2.0","id":10,"method":"addItem","params":[1,"x"]}"#).0 == -32602
        )
        #expect(
            try errorCode(
                afterSending: #"{"jsonrpc":"2.0","id":11,"method":"subscribe","params":{"events":["didExplode"]}}"#
            ).0 == -32602
        )

        // Blank lines are ignored, a notification gets no reply, and the connection still works.
        try client.send("")
        try client.send("   ")
        try client.send(#"{"jsonrpc":"2.0","method":"getLists"}"#)
        let reply = try client.call("getLists")
        #expect(reply["result"] != nil)
    }

    /// `--max-json-depth`: a request nested deeper than the limit is refused (-32600, naming the
    /// limit) and the connection goes on; one nested exactly as deep is served.
    @Test func aRequestNestedDeeperThanMaxJSONDepthIsRefused() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-json-depth", "5"])
        let client = try LineConnection(path: daemon.sandbox.socket)
        // The request, its params and three arrays: 5 levels (an unknown member is ignored).
        let atTheLimit = #"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"A","x":[[["y"]]]}}"#
        let tooDeep = #"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"B","x":[[[["y"]]]]}}"#
        try client.send(tooDeep)
        let refused = try client.readObject()
        #expect((refused["error"] as? [String: Any])?["code"] as? Int == -32600)
        #expect(((refused["error"] as? [String: Any])?["message"] as? String)?.contains("deeper than 5 levels") == true)
        try client.send(atTheLimit)
        #expect(((try client.readObject())["result"] as? [String: Any])?["name"] as? String == "A")
        #expect(try client.result("getLists")["lists"].map { ($0 as? [[String: Any]])?.count } == 1)
    }

    @Test func aBatchIsAnsweredAsOneArray() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        try client.send(
            """
            [{"jsonrpc":"2.0","id":"a","method":"addItem","params":{"list":1,"item":"milk"}},\
            {"jsonrpc":"2.0","id":"b","method":"addItem","params":{"list":1,"item":"MILK"}},\
            {"jsonrpc":"2.0","method":"addItem","params":{"list":1,"item":"notified"}},\
            {"jsonrpc":"2.0","id":"c","method":"nope"},\
            17]
            """
        )
        let replies = try #require(try client.readJSON() as? [[String: Any]])
        #expect(replies.count == 4)
        #expect(replies[0]["id"] as? String == "a")
        #expect((replies[0]["result"] as? [String: Any])?["items"] as? [String] == ["milk"])
        #expect(replies[1]["id"] as? String == "b")
        #expect(
            ((replies[1]["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String == "itemExists"
        )
        #expect(replies[2]["id"] as? String == "c")
        #expect((replies[2]["error"] as? [String: Any])?["code"] as? Int == -32601)
        #expect((replies[3]["error"] as? [String: Any])?["code"] as? Int == -32600)
        #expect(try client.result("getList", ["list": 1])["items"] as? [String] == ["milk", "notified"])

        // A batch of notifications only gets no reply at all.
        try client.send(#"[{"jsonrpc":"2.0","method":"getLists"},{"jsonrpc":"2.0","method":"getLists"}]"#)
        try client.expectNothingBeforeAReply("a reply to a batch of notifications")
    }

    @Test func anOverlongLineIsRefusedAndTheConnectionClosed() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        try client.sendBytes(Array(repeating: UInt8(ascii: "x"), count: 1 << 20 + 10))
        let reply = try client.readObject()
        #expect((reply["error"] as? [String: Any])?["code"] as? Int == -32600)
        #expect(try client.readLine() == nil)
        // listd itself is fine.
        #expect(try LineConnection(path: daemon.sandbox.socket).result("getLists")["revision"] as? Int == 0)
    }

    @Test func originNamesTheClientByKernelCredentials() throws {
        let daemon = try Daemon.start()
        let watcher = try LineConnection(path: daemon.sandbox.socket)
        _ = try watcher.result("subscribe")
        let editor = try LineConnection(path: daemon.sandbox.socket)
        _ = try editor.result("hello", ["name": "kitchen-tablet"])
        _ = try editor.result("createList", ["name": "Groceries"])
        let note = try watcher.readObject()
        #expect(note["method"] as? String == "didCreateShoppingList")
        let origin = try #require((note["params"] as? [String: Any])?["origin"] as? [String: Any])
        #expect(origin["kind"] as? String == "client")
        #expect(origin["pid"] as? Int32 == getpid())
        #expect(origin["uid"] as? UInt32 == getuid())
        #expect(origin["name"] as? String == "kitchen-tablet")
    }
}

/// Parses an RFC 3339 stamp with fractional seconds, independently of listd's own code.
func parseRFC3339(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
}
