// Issue 62, case 1: where docs/protocol.md and the daemon disagreed, each as a third party met it
// over the socket: the parameter at fault named, replies as brief as the connection asked, a
// resend told from a fresh apply, a delegate's error told from its silence, ids echoed as sent.
import Foundation
import Testing

@Suite(.offThePool) struct ProtocolMismatchTests {
    /// Every `-32602` names its parameter in `data.param`, and says what it must be in words.
    @Test func everyInvalidParamsNamesTheParameter() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        let cases: [(line: String, param: String)] = [
            (#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"events":["didFly"]}}"#, "events"),
            (#"{"jsonrpc":"2.0","id":2,"method":"registerDelegate","params":{"name":"d","timeoutMs":0}}"#, "timeoutMs"),
            (#"{"jsonrpc":"2.0","id":3,"method":"getList","params":["Groceries"]}"#, "params"),
            (#"{"jsonrpc":"2.0","id":4,"method":"addItem","params":{"list":"Groceries","item":"milk","quantity":5}}"#, "quantity"),
            (#"{"jsonrpc":"2.0","id":5,"method":"getHistory","params":{"since":-1}}"#, "since"),
            (#"{"jsonrpc":"2.0","id":6,"method":"subscribe","params":{"since":-1}}"#, "since"),
            (#"{"jsonrpc":"2.0","id":7,"method":"hello","params":{"name":"a\nb"}}"#, "name"),
        ]
        for (line, param) in cases {
            try client.send(line)
            let reply = try client.readObject()
            let error = reply["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? Int == -32602, "\(line) → \(reply)")
            #expect((error["data"] as? [String: Any])?["param"] as? String == param, "\(line) → \(reply)")
            let message = error["message"] as? String ?? ""
            #expect(!message.contains("another kind") && !message.contains("docs/protocol.md"), "says what it must be: \(message)")
        }
    }

    /// On a brief connection every edit answers with the list's summary: `clearChecked` and
    /// `undo` too (they answered with the whole list).
    @Test func briefConnectionsGetBriefRepliesFromClearAndUndo() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("hello", ["brief": true])
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk", "eggs"]])
        _ = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        let cleared = try client.result("clearChecked", ["list": "Groceries"])
        #expect(cleared["items"] == nil && cleared["checked"] == nil, "a summary: \(cleared)")
        #expect(cleared["cleared"] as? [String] == ["milk"] && cleared["revision"] as? Int == 3)
        let undone = try client.result("undo")
        let list = undone["list"] as? [String: Any] ?? [:]
        #expect(list["items"] == nil && list["revision"] as? Int == 4, "a summary: \(undone)")
        // A connection that is not brief gets the whole list, sections and amounts included.
        let whole = try LineConnection(path: daemon.sandbox.socket)
        _ = try whole.result("checkItem", ["list": "Groceries", "item": "eggs"])
        let clearedWhole = try whole.result("clearChecked", ["list": "Groceries"])
        // (the undo put milk back ticked)
        #expect(clearedWhole["cleared"] as? [String] == ["milk", "eggs"] && clearedWhole["items"] as? [String] == [])
        #expect(clearedWhole["sections"] != nil && clearedWhole["quantities"] != nil, "every field of a List: \(clearedWhole)")
    }

    /// An `editId` resend answers with the revision of the change it made and says it is a
    /// resend; a fresh apply says neither.
    @Test func aResendIsToldFromAFreshApply() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        let first = try client.result("addItem", ["list": "Groceries", "item": "milk", "editId": "fridge-1"])
        #expect(first["resent"] == nil && first["appliedRevision"] == nil && first["revision"] as? Int == 2)
        _ = try client.result("addItem", ["list": "Groceries", "item": "eggs"])
        let again = try client.result("addItem", ["list": "Groceries", "item": "milk", "editId": "fridge-1"])
        #expect(again["resent"] as? Bool == true, "\(again)")
        #expect(again["appliedRevision"] as? Int == 2, "the revision of the change it made")
        #expect(again["revision"] as? Int == 3 && again["items"] as? [String] == ["milk", "eggs"], "the list as it is now")
    }

    /// A delegate that answers at once with an error, or with what is not an answer, is not
    /// reported as having timed out: the deny says what it did.
    @Test func aDelegatesErrorIsNotReportedAsATimeout() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries"])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "broken", "timeoutMs": 30000, "onTimeout": "deny"])
        for (answer, words) in [
            (#""error":{"code":-32603,"message":"database down"}"#, "database down"),
            (#""result":{"permit":"yes"}"#, "not an answer"),
        ] {
            try client.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"milk"}}"#)
            let question = try delegate.readObject()
            let id = question["id"] as? String ?? ""
            try delegate.send(#"{"jsonrpc":"2.0","id":"\#(id)",\#(answer)}"#)
            let error = try client.readObject()["error"] as? [String: Any] ?? [:]
            let data = error["data"] as? [String: Any] ?? [:]
            #expect(data["timedOut"] as? [String] == [], "not a timeout: \(error)")
            let reasons = (data["denials"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
            #expect(reasons.count == 1 && reasons[0].contains(words), "\(error)")
            #expect((error["message"] as? String ?? "").contains(words))
        }
    }

    /// Every number JSON-RPC allows as an id is echoed as sent, so the client can match its
    /// reply: `7.5`, `2^63`, `1e2` (they were answered `-32600` with id null, or `100`).
    @Test func numberIdsAreEchoedAsSent() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: daemon.sandbox.socket)
        for id in ["7.5", "9223372036854775808", "1e2", "-0", "42", "-3"] {
            try client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"getLists"}"#)
            let line = try client.readLine() ?? ""
            #expect(line.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"result":"#), "\(id) → \(line)")
        }
        // null is served as JSON-RPC allows (docs/protocol.md says it cannot be told from an
        // error about an unreadable message).
        try client.send(#"{"jsonrpc":"2.0","id":null,"method":"getLists"}"#)
        #expect((try client.readLine() ?? "").hasPrefix(#"{"jsonrpc":"2.0","id":null,"result":"#))
    }
}
