// Issue 37's ground in listd itself: an edit made away from listd (a phone's queue, sent when the
// network is back) carries its own id, so a resend after a lost reply is applied once — also a
// resend that comes while the first is still being decided, and one after a restart — and the
// revision it was made on, so it is merged as a save of an old copy is: a tick of an item someone
// removed meanwhile is reported, not resurrected; nothing confirmed elsewhere is undone.
import Foundation
import Glibc
import Testing

@Suite(.offThePool) struct OfflineEditTests {
    private func reason(_ error: [String: Any]) -> String? {
        (error["data"] as? [String: Any])?["reason"] as? String
    }

    /// Issue 50: a phone's queued add of what someone added meanwhile is confirmed without a
    /// second copy (as docs/web.md says), its amount and section taken when the item had none,
    /// and reported when they differ.
    @Test func aQueuedAddOfWhatWasAddedMeanwhileIsConfirmedOnce() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let client = try LineConnection(path: socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])  // #1
        _ = try listctl(["add", "Groceries", "cheese", "bread", "eggs (6)"], socket: socket)  // at home meanwhile
        let phone = try LineConnection(path: socket)
        let cheese = try phone.result("addItem", ["list": "Groceries", "item": "cheese", "basedOn": 1, "editId": "p1"])
        #expect(cheese["items"] as? [String] == ["milk", "cheese", "bread", "eggs"], "\(cheese)")
        let bread = try phone.result(
            "addItem", ["list": "Groceries", "item": "bread", "quantity": "2", "section": "Bakery", "basedOn": 1, "editId": "p2"]
        )
        #expect((bread["quantities"] as? [String: String])?["bread"] == "2", "the phone's amount, as bread had none: \(bread)")
        let sections = bread["sections"] as? [[String: Any]] ?? []
        #expect(sections.first { $0["name"] as? String == "Bakery" }?["items"] as? [String] == ["bread"], "and its section: \(bread)")
        let eggs = try phone.error("addItem", ["list": "Groceries", "item": "eggs", "quantity": "12", "basedOn": 1, "editId": "p3"])
        #expect(reason(eggs) == "changedMeanwhile", "\(eggs)")
        #expect((eggs["message"] as? String)?.contains("with the amount 6") == true, "\(eggs)")
        let list = try client.result("getList", ["list": "Groceries"])
        #expect(list["items"] as? [String] == ["milk", "cheese", "eggs", "bread"], "one copy of each, bread under Bakery: \(list)")
        #expect((list["quantities"] as? [String: String])?["eggs"] == "6")
        // Issue 63, case 6: an add in a section the list does not have yet, of what was added
        // meanwhile without one: the section is made and the item put in it, its amount kept.
        _ = try listctl(["add", "Groceries", "lemons (3)"], socket: socket)
        let lemons = try phone.result(
            "addItem", ["list": "Groceries", "item": "lemons", "section": "Produce", "basedOn": 1, "editId": "p4"]
        )
        let produce = (lemons["sections"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "Produce" }
        #expect(produce?["items"] as? [String] == ["lemons"], "in the phone's section: \(lemons)")
        #expect((lemons["quantities"] as? [String: String])?["lemons"] == "3", "\(lemons)")
        // Without `basedOn` an add of what is there is denied, as ever.
        #expect(reason(try phone.error("addItem", ["list": "Groceries", "item": "cheese"])) == "itemExists")
    }

    @Test func aResentEditIsAppliedOnceAlsoAfterARestart() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let first = try client.result("addItem", ["list": "Groceries", "item": "tea", "editId": "phone-7"])
        #expect(first["items"] as? [String] == ["milk", "tea"])
        // The reply was lost; the phone sends the same edit again: confirmed, not applied twice.
        let again = try LineConnection(path: daemon.sandbox.socket).result("addItem", ["list": "Groceries", "item": "tea", "editId": "phone-7"])
        #expect(again["items"] as? [String] == ["milk", "tea"], "\(again)")
        #expect(again["revision"] as? Int == first["revision"] as? Int, "no new change")
        // A different edit with its own id is an edit like any other.
        let denied = try client.error("addItem", ["list": "Groceries", "item": "tea", "editId": "phone-8"])
        #expect(reason(denied) == "itemExists")
        #expect(daemon.stop() == 0)
        try daemon.start()
        let afterRestart = try LineConnection(path: daemon.sandbox.socket).result(
            "addItem",
            ["list": "Groceries", "item": "tea", "editId": "phone-7"]
        )
        #expect(afterRestart["revision"] as? Int == first["revision"] as? Int, "the id is kept in the change log")
        let history = try LineConnection(path: daemon.sandbox.socket).result("getHistory", ["since": 0])
        #expect((history["changes"] as? [[String: Any]])?.count == 2, "\(history)")
        let bad = try LineConnection(path: daemon.sandbox.socket).error("checkItem", ["list": "Groceries", "item": "tea", "editId": 7])
        #expect((bad["message"] as? String)?.contains("editId must be a string") == true, "\(bad)")
    }

    /// A resend that comes while the first is still with a delegate waits for the same answer.
    @Test func aResendWhileTheFirstIsBeingDecidedGetsTheSameAnswer() throws {
        let daemon = try Daemon.start()
        _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": "Groceries"])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "slow", "questions": ["shouldAdd"], "timeoutMs": 20_000])
        let phone = try LineConnection(path: daemon.sandbox.socket)
        let again = try LineConnection(path: daemon.sandbox.socket)
        let add = #"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"bread","editId":"phone-1"}}"#
        try phone.send(add)
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldAdd")
        try again.send(add)
        // The resend is not put to the delegate again; once it allows, both are confirmed.
        #expect(throws: (any Error).self, "no second question") { _ = try delegate.readObject(timeout: 0.5) }
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":{\"allow\":true}}")
        let replies = try [phone.readObject(), again.readObject()].map { $0["result"] as? [String: Any] ?? [:] }
        #expect(replies.map { $0["items"] as? [String] } == [["bread"], ["bread"]], "\(replies)")
        #expect(replies[0]["revision"] as? Int == replies[1]["revision"] as? Int)
    }

    /// Edits queued offline on the lists of an older revision (`basedOn`): what was done since by
    /// others stands, and an edit of an item they changed or removed is denied in words.
    @Test func anEditMadeOnOlderListsNeverUndoesWhatWasDoneSince() throws {
        let daemon = try Daemon.start()
        let home = try LineConnection(path: daemon.sandbox.socket)
        let seen = try home.result("createList", ["name": "Groceries", "items": ["milk", "eggs", "rice"]])
        let offline = seen["revision"] as? Int ?? -1  // what the phone last saw, before it lost signal
        _ = try home.result("removeItem", ["list": "Groceries", "item": "milk"])
        _ = try home.result("checkItem", ["list": "Groceries", "item": "eggs"])
        let phone = try LineConnection(path: daemon.sandbox.socket)
        // Ticked on the phone, removed at home meanwhile: reported, not brought back.
        let tick = try phone.error("checkItem", ["list": "Groceries", "item": "milk", "basedOn": offline, "editId": "q1"])
        #expect(reason(tick) == "changedMeanwhile", "\(tick)")
        #expect(
            tick["message"] as? String
                == "“milk” was taken off Groceries after this edit was made, so your change of it was not taken.",
            "\(tick)"
        )
        #expect(tick["code"] as? Int == 1017)
        // Removed on the phone, ticked at home meanwhile: the tick stands, and it is said.
        let removal = try phone.error("removeItem", ["list": "Groceries", "item": "eggs", "basedOn": offline, "editId": "q2"])
        #expect(reason(removal) == "changedMeanwhile", "\(removal)")
        #expect((removal["message"] as? String)?.contains("“eggs” was ticked off on Groceries after this edit was made") == true, "\(removal)")
        // What nobody touched meanwhile is applied as made; an add too.
        _ = try phone.result("checkItem", ["list": "Groceries", "item": "rice", "basedOn": offline, "editId": "q3"])
        let last = try phone.result("addItem", ["list": "Groceries", "item": "bread", "basedOn": offline, "editId": "q4"])
        #expect(last["items"] as? [String] == ["eggs", "rice", "bread"], "\(last)")
        #expect(Set(last["checked"] as? [String] ?? []) == ["eggs", "rice"], "\(last)")
    }

    /// Issue 46, case 9: a clear made on older lists (`basedOn`) takes off what was ticked then
    /// and still is; what was ticked since stays ("Clear 11 ticked" removed 12 items). With
    /// `items`, only those are cleared.
    @Test func aClearMadeOnOlderListsClearsWhatWasTickedThen() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk", "eggs", "bread", "tea"]])
        let seen = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        let basedOn = try #require(seen["revision"] as? Int)
        // Meanwhile, at home: eggs ticked.
        _ = try client.result("checkItem", ["list": "Groceries", "item": "eggs"])
        let cleared = try client.result("clearChecked", ["list": "Groceries", "basedOn": basedOn, "editId": "phone-1"])
        #expect(cleared["cleared"] as? [String] == ["milk"], "\(cleared)")
        #expect(cleared["items"] as? [String] == ["eggs", "bread", "tea"] && cleared["checked"] as? [String] == ["eggs"], "\(cleared)")
        // Named items: only those, if still ticked.
        _ = try client.result("checkItem", ["list": "Groceries", "item": "bread"])
        let named = try client.result("clearChecked", ["list": "Groceries", "items": ["Bread", "tea"]])
        #expect(named["cleared"] as? [String] == ["bread"], "\(named)")
        #expect(named["checked"] as? [String] == ["eggs"], "\(named)")
    }
}
