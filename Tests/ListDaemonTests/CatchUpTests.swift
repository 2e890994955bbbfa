// A subscriber that fell behind is caught up with the very bytes a live subscriber was sent:
// the lines kept from the live fan-out (RecentLines) go only to subscribers that want their list
// and event, and a brief line made again from the history is the one made live.
import Foundation
import ListModel
import ListRPC
import Logging
import NIOCore
import Testing

@testable import ListCore
@testable import ListDaemon

/// A socket that takes nothing while shut: writes wait, unfinished, as they would on a full
/// kernel buffer; once opened they go on, in order, and so does everything after.
private final class Valve: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    private var shut = false
    private var held: [(data: NIOAny, promise: EventLoopPromise<Void>?)] = []
    private var context: ChannelHandlerContext?
    private(set) var heldBytes = 0

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard shut else { return context.write(data, promise: promise) }
        heldBytes += unwrapOutboundIn(data).readableBytes
        held.append((data, promise))
    }

    func flush(context: ChannelHandlerContext) {
        if !shut { context.flush() }
    }

    /// On the connection's loop.
    func shutNow() { shut = true }

    /// On the connection's loop: what was held goes out, and the valve passes all from now on.
    func open() {
        shut = false
        guard let context else { return }
        for (data, promise) in held { context.write(data, promise: promise) }
        held = []
        context.flush()
    }
}

private let nowhere = StderrLines(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC))

/// The stall grace is long: the subscriber held behind is watched once it owes a quarter of its
/// limit, and the edits that take it from there to half took longer than 3 s in a loaded full run.
private func service() async throws -> ListdParts {
    let directory = try ScratchDirectories.make("catch-up", create: false)
    var limits = CoreLimits.standard
    limits.stallGrace = .seconds(60)
    return try await ListdParts(
        filePath: directory + "/lists.md",
        limits: limits,
        logger: Logger(label: "test"),
        journal: .stderr(label: "test", lines: nowhere)
    )
}

private func request(_ id: Int, _ method: String, _ params: String = "{}") -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n"
}

/// A notification line's revision and list id, read as JSON.
private func revisionAndList(_ line: String) throws -> (revision: Int, list: Int) {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let params = try #require(object["params"] as? [String: Any], "a notification: \(line)")
    let list = try #require(params["list"] as? [String: Any])
    return (try #require(params["revision"] as? Int), try #require(list["id"] as? Int))
}

@Suite struct CatchUpTests {
    /// A live subscriber to every list and one to Pantry alone that falls behind (its socket
    /// takes nothing) while both lists change: once its socket takes again it is sent Pantry's
    /// changes, no other list's, each the very line the live one got — brief or whole alike.
    @Test(arguments: [false, true])
    func aSubscriberThatFellBehindGetsTheLiveLinesOfItsListsOnly(brief: Bool) async throws {
        let parts = try await service()
        let editor = try await LoopConnection(parts, id: 1)
        editor.send(request(1, "createList", #"{"name":"Groceries"}"#))
        editor.send(request(2, "createList", #"{"name":"Pantry"}"#))
        _ = try editor.nextLine("Groceries' create")
        let pantryID = try #require((try editor.line("Pantry's create")["result"] as? [String: Any])?["id"] as? Int)

        let hello = request(1, "hello", #"{"brief":\#(brief)}"#)
        let live = try await LoopConnection(parts, id: 2)
        live.send(hello + request(2, "subscribe"))
        _ = try live.nextLine("the live one's hello")
        _ = try live.nextLine("the live one's snapshot")
        let valve = Valve()
        let limit = 4_096
        let behind = try await LoopConnection(parts, id: 3, outboundLimit: limit, before: valve)
        behind.send(hello + request(2, "subscribe", #"{"lists":["Pantry"]}"#))
        _ = try behind.nextLine("the other's hello")
        _ = try behind.nextLine("the other's snapshot")
        let loop = parts.owner.loop
        try await loop.submit { valve.shutNow() }.get()

        // Each edit a new item, so each is confirmed: revisions 3, 4, … (the creates had 1 and 2);
        // every third on Groceries, the others on Pantry.
        var edits = 0
        func nextEdit() -> String {
            edits += 1
            let list = edits % 3 == 0 ? "Groceries" : "Pantry"
            return #"{"jsonrpc":"2.0","id":\#(100 + edits),"method":"addItem","params":{"list":"\#(list)","item":"item \#(edits)"}}"#
        }
        // Until it owes more than half its limit: the next change starts its lag.
        while try await loop.submit({ valve.heldBytes }).get() <= limit / 2 {
            try #require(edits < 300, "the subscriber did not fall behind in \(edits) changes")
            editor.send(nextEdit() + "\n")
            let reply = try editor.line("edit \(edits)'s reply")
            try #require((reply["result"] as? [String: Any])?["revision"] as? Int == edits + 2, "\(reply)")
        }
        let heldWhenBehind = try await loop.submit { valve.heldBytes }.get()
        // The changes made while it lags, in one batch: its socket must take something within 3 s
        // of falling behind or it is disconnected, and thirty round trips took longer than that in
        // a loaded full run. The last change is Pantry's, so both subscribers end on it.
        let first = edits + 1
        var batch: [String] = []
        repeat { batch.append(nextEdit()) } while batch.count < 30 || edits % 3 == 0
        editor.send("[" + batch.joined(separator: ",") + "]\n")
        let replies = try editor.nextLine("the batch's replies") as? [[String: Any]]
        // Looked at and opened in one task on the loop, handed over as soon as the reply is read:
        // no wait for a thread of the test's in between.
        let heldWhileBehind = try await loop.submit { () -> Int in
            defer { valve.open() }
            return valve.heldBytes
        }.get()
        #expect(replies?.compactMap { ($0["result"] as? [String: Any])?["revision"] as? Int } == Array((first + 2)...(edits + 2)))
        #expect(heldWhileBehind == heldWhenBehind, "nothing more queued while it lags")
        var liveLines: [String] = []
        while liveLines.last.map({ try? revisionAndList($0).revision }) != .some(edits + 2) {
            liveLines.append(try live.nextText("the live notifications"))
        }
        var caughtUp: [String] = []
        while caughtUp.last.map({ try? revisionAndList($0).revision }) != .some(edits + 2) {
            caughtUp.append(try behind.nextText("the caught-up notifications"))
        }
        let pantrysLive = try liveLines.filter { try revisionAndList($0).list == pantryID }
        #expect(liveLines.count > pantrysLive.count, "other lists changed too")
        #expect(caughtUp.count == pantrysLive.count)
        #expect(caughtUp == pantrysLive, "the same bytes, Pantry's only")
        #expect(caughtUp.allSatisfy { $0.contains(#""items""#) == !brief }, "brief lines carry no items")
    }

    /// Catching up makes a brief line again from the history, with the list's items; live it is
    /// made from the change without them. For every kind of change both are the same bytes.
    @Test func aBriefLineMadeFromTheHistoryIsTheOneMadeLive() async throws {
        let parts = try await service()
        let editor = try await LoopConnection(parts, id: 1)
        let edits: [(String, String)] = [
            ("createList", #"{"name":"Groceries","items":["milk","eggs"],"quantities":{"milk":"2 l"}}"#),
            ("addItem", #"{"list":"Groceries","item":"bread","section":"Bakery","quantity":"1"}"#),
            ("addSection", #"{"list":"Groceries","section":"Dairy","before":"Bakery"}"#),
            ("moveItem", #"{"list":"Groceries","item":"milk","section":"Dairy"}"#),
            ("checkItem", #"{"list":"Groceries","item":"eggs"}"#),
            ("setQuantity", #"{"list":"Groceries","item":"bread","quantity":"2"}"#),
            ("replaceItem", #"{"list":"Groceries","item":"bread","with":"rolls"}"#),
            ("renameSection", #"{"list":"Groceries","section":"Dairy","to":"Fridge"}"#),
            ("uncheckItem", #"{"list":"Groceries","item":"eggs"}"#),
            ("checkItem", #"{"list":"Groceries","item":"milk"}"#),
            ("clearChecked", #"{"list":"Groceries"}"#),
            ("removeSection", #"{"list":"Groceries","section":"Fridge"}"#),
            ("removeItem", #"{"list":"Groceries","item":"eggs"}"#),
            ("renameList", #"{"list":"Groceries","name":"Shop"}"#),
            ("undo", "{}"),
            ("deleteList", #"{"list":"Groceries"}"#),
        ]
        for (number, (method, params)) in edits.enumerated() {
            editor.send(request(number + 1, method, params))
            let reply = try editor.line("\(method)'s reply")
            try #require(reply["result"] != nil, "\(method): \(reply)")
        }
        let history = try await parts.owner.loop.submit { parts.owner.core.history }.get()
        var book = try #require(try history.book(at: 0))
        var cursor = 0
        var kinds: Set<String> = []
        while let record = history.record(after: cursor) {
            let full = try book.redo(record)
            let live = try SubscriptionHub.briefLine(full.withoutItems, record)
            let remade = try SubscriptionHub.briefLine(full, record)
            #expect(live == remade, "revision \(record.revision): \(String(buffer: live)) ≠ \(String(buffer: remade))")
            kinds.insert(String(describing: full.kind))
            cursor = record.revision
        }
        #expect(cursor == edits.count, "every change was compared")
        #expect(kinds.count >= 3, "changes of several kinds: \(kinds)")
    }
}
