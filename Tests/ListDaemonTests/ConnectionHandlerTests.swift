// The connection layer: listd's own line decoder and ConnectionHandler on a real socket (a
// socketpair) served on the owner's loop, as listd serves every connection, for a real ListOwner on
// a temporary list file. Bytes go in as a client writes them; what listd writes is read back line
// by line.
import Foundation
import ListModel
import ListRPC
import ListRPCTransport
import Logging
import NIOCore
import ServiceLifecycleTestKit
import Testing

@testable import ListCore
@testable import ListDaemon

/// A socket whose kernel buffer is full: writes are kept, never completed, until the connection
/// closes (then they fail, as they would).
private final class StalledSocket: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    private(set) var stalledBytes = 0
    private var promises: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        stalledBytes += unwrapOutboundIn(data).readableBytes
        if let promise { promises.append(promise) }
    }

    func flush(context: ChannelHandlerContext) {}

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        for promise in promises { promise.fail(ChannelError.ioOnClosedChannel) }
        promises = []
        context.close(mode: mode, promise: promise)
    }
}

private func id(_ reply: Any) -> Int? { (reply as? [String: Any])?["id"] as? Int }

/// The journal's lines of every test here, thrown away: one descriptor for the whole run, as
/// stderr is for listd.
private let nowhere = StderrLines(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC))

private func service() async throws -> ListdParts {
    let directory = try ScratchDirectories.make("connection", create: false)
    return try await ListdParts(filePath: directory + "/lists.md", logger: Logger(label: "test"), journal: .stderr(label: "test", lines: nowhere))
}

@Suite struct ConnectionHandlerTests {
    /// An edit that reaches the service once it has stopped taking edits is refused with -32603
    /// ("listd is shutting down"), not left unanswered. (Over a socket it takes a read in the
    /// moment between the two: listd closes its connections as it stops.)
    @Test func anEditAfterTheServiceStoppedTakingEditsIsRefusedAsShuttingDown() async throws {
        let parts = try await service()
        try await within(60, "the service to stop") {
            try await testGracefulShutdown { trigger in
                trigger.triggerGracefulShutdown()
                try await parts.owner.run()
            }
        }
        let connection = try await LoopConnection(parts, id: 1)
        connection.send(#"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Late"}}"# + "\n")
        let error = (try connection.nextLine("the reply to a late edit") as? [String: Any])?["error"]
        #expect((error as? [String: Any])?["code"] as? Int == -32603)
        #expect(
            (error as? [String: Any])?["message"] as? String
                == "Internal error: listd is shutting down; the change was not applied."
        )
    }

    @Test func aRequestSplitAcrossReadsAndTwoInOneReadAreEachAnsweredInOrder() async throws {
        let parts = try await service()
        let connection = try await LoopConnection(parts, id: 1)
        connection.send(#"{"jsonrpc":"2.0","id":1,"meth"#)
        // Turns of the loop go by: the first half is read on its own (as a rule).
        for _ in 0..<3 { try await parts.owner.loop.submit {}.get() }
        connection.send(#"od":"hello"}"# + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"getLists"}"# + "\n")
        #expect(id(try connection.nextLine("the reply to the split request")) == 1)
        let second = try connection.nextLine("the reply to the second request of the read")
        #expect(id(second) == 2)
        #expect(((second as? [String: Any])?["result"] as? [String: Any])?["lists"] as? [Any] != nil)
    }

    @Test func aLineLongerThanTheLimitIsRefusedAndTheConnectionEnds() async throws {
        let connection = try await LoopConnection(try await service(), id: 1, maximumLineLength: 64)
        connection.send(String(repeating: "x", count: 100))
        let reply = try connection.nextLine("the error for a long line")
        let error = (reply as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == -32600)
        #expect((error?["message"] as? String)?.contains("longer than 64 bytes") == true)
        try connection.waitUntilClosed("the connection to end after a long line")
    }

    @Test func aBatchIsAnsweredByOneLineInOrderAndItsNotificationGetsNoReply() async throws {
        let connection = try await LoopConnection(try await service(), id: 1)
        connection.send(
            "["
                + #"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Groceries","items":["milk"]}},"#
                + #"{"jsonrpc":"2.0","method":"hello","params":{"name":"batcher"}},"#
                + #"{"jsonrpc":"2.0","id":2,"method":"getLists"}"#
                + "]\n"
        )
        let replies = try #require(try connection.nextLine("the batch's reply") as? [[String: Any]])
        #expect(replies.map { $0["id"] as? Int } == [1, 2])
        // The read after the edit in the same batch sees it: the batch is handled in order.
        let lists = (replies[1]["result"] as? [String: Any])?["lists"] as? [[String: Any]]
        #expect(lists?.map { $0["name"] as? String } == ["Groceries"])
    }

    @Test func aClientThatShutsItsSendingSideGetsEveryReplyThenTheEnd() async throws {
        let connection = try await LoopConnection(try await service(), id: 1)
        connection.send(
            #"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Groceries"}}"# + "\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"addItem","params":{"list":"Groceries","item":"milk"}}"# + "\n"
        )
        connection.shutDownSending()
        #expect(id(try connection.nextLine("the create's reply after the half-close")) == 1)
        let added = try connection.nextLine("the add's reply after the half-close")
        #expect(id(added) == 2)
        #expect(((added as? [String: Any])?["result"] as? [String: Any])?["items"] as? [String] == ["milk"])
        try connection.waitUntilClosed("the connection to end once every reply is written")
    }

    @Test func aSubscriberThatStopsReadingIsDisconnectedOnceTooMuchWaitsForIt() async throws {
        let lists = try await service()
        let stalled = StalledSocket()
        let limit = 4_096
        let subscriber = try await LoopConnection(lists, id: 1, outboundLimit: limit, before: stalled)
        let editor = try await LoopConnection(lists, id: 2)
        subscriber.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        editor.send(#"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Groceries"}}"# + "\n")
        _ = try editor.nextLine("the create's reply")
        var edits = 0
        func edit() async throws {
            edits += 1
            let method = edits % 2 == 1 ? "addItem" : "removeItem"
            editor.send(
                #"{"jsonrpc":"2.0","id":\#(edits + 1),"method":"\#(method)","params":{"list":"Groceries","item":"milk"}}"#
                    + "\n"
            )
            _ = try editor.nextLine("edit \(edits)'s reply")
        }
        let stalledBytes = { try await lists.owner.loop.submit { stalled.stalledBytes }.get() }
        while try await stalledBytes() <= limit / 2 {
            try #require(edits < 200, "the subscriber's outbox was not half full after \(edits) notifications")
            try await edit()
        }
        // Half full: it lags, and is sent nothing more while it takes nothing.
        let lagging = try await stalledBytes()
        for _ in 0..<20 { try await edit() }
        #expect(try await stalledBytes() == lagging, "nothing more is queued for a lagging subscriber")
        try subscriber.waitUntilClosed("the stalled subscriber to be disconnected once it read nothing for a while")
        #expect(try await stalledBytes() <= limit)
        #expect(edits > 3, "a few notifications fit under the limit first")
        // The editor is served on, unaffected.
        editor.send(#"{"jsonrpc":"2.0","id":999,"method":"getLists"}"# + "\n")
        #expect(id(try editor.nextLine("a reply after the subscriber was dropped")) == 999)
    }
}
