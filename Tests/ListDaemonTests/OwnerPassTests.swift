// One pass of the owner's loop, on a store whose appends complete when the test says (or fail):
// the confirm, the notification and the journal line of an edit wait for its append, then come
// in that order; the edits of one pass share one append; a failed append confirms nothing and
// tells no subscriber. The client is a real socket (a socketpair) served on the owner's loop by
// listd's own pipeline, as listd serves its connections.
import Foundation
import Glibc
import ListModel
import ListRPC
import ListRPCTransport
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ListCore
@testable import ListDaemon

/// A store whose appends complete at once until `hold()`, then when the test completes them.
private final class HeldPersistence: ListPersistence, @unchecked Sendable {
    struct Append: @unchecked Sendable {
        var entries: [LogEntry]
        var promise: EventLoopPromise<Void>
    }
    private let holding = Mutex(false)
    private let (held, heldSink) = AsyncStream.makeStream(of: Append.self)
    /// Appends that carry a change (not only a note of the list file's write, which follows an
    /// edit 25 ms later).
    let changeAppends = Atomic<Int>(0)

    func hold() { holding.withLock { $0 = true } }

    func recover(listFileDigest: String?) throws(DaemonError) -> RecoveredLists {
        RecoveredLists(
            instance: "test",
            book: ListBook(),
            history: ChangeHistory(base: ListBook(), limit: 100),
            shownByFile: nil,
            lastShown: ListBook(),
            isFirstStart: true,
            problems: []
        )
    }

    func append(_ entries: [LogEntry], on loop: any EventLoop) -> EventLoopFuture<Void> {
        if entries.contains(where: { if case .change = $0 { true } else { false } }) {
            changeAppends.add(1, ordering: .relaxed)
        }
        guard holding.withLock({ $0 }) else { return loop.makeSucceededVoidFuture() }
        let promise = loop.makePromise(of: Void.self)
        heldSink.yield(Append(entries: entries, promise: promise))
        return promise.futureResult
    }

    /// The next append made while holding.
    func nextHeldAppend(_ what: String) async throws -> Append {
        try await within(10, what) { [held] in
            var iterator = held.makeAsyncIterator()
            guard let next = await iterator.next() else { throw CancellationError() }
            return next
        }
    }

    var compactionDue: Bool { false }
    func compact(_ state: PersistedView) throws(DaemonError) {}
    func writeSnapshot(of state: PersistedView) throws(DaemonError) {}
}

/// Records what the journal is told, and how many bytes waited unread in the test's end of the
/// socket at that moment.
private final class JournalRecorder: @unchecked Sendable {
    struct Line: Sendable {
        var message: String
        var unreadBytes: Int
    }
    let lines = Mutex<[Line]>([])
    let clientEnd = Atomic<Int32>(-1)

    func waitFor(_ text: String) async throws -> Line {
        try await within(10, "a journal line with “\(text)”") { [self] in
            while true {
                if let line = lines.withLock({ $0.first { $0.message.contains(text) } }) { return line }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    struct Handler: LogHandler {
        let recorder: JournalRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            var unread: Int32 = 0
            let fd = recorder.clientEnd.load(ordering: .relaxed)
            if fd >= 0 { _ = ioctl(fd, UInt(FIONREAD), &unread) }
            recorder.lines.withLock { $0.append(Line(message: "\(event.message)", unreadBytes: Int(unread))) }
        }
    }
}

/// Returns once every task queued on the owner's loop before this call has run (the outboxes'
/// hand-overs), the journal's hand-over armed by then has run (it waits `ListOwner.journalLag`;
/// tasks due at the same time run in the order they were scheduled), and the journal's thread
/// has written what it was handed.
private func fence(_ parts: ListdParts) async throws {
    let owner = parts.owner
    for _ in 0..<3 { try await owner.loop.submit {}.get() }
    let lag = CoreLimits.standard.journalLag
    let journalLag = TimeAmount.nanoseconds(lag.components.seconds * 1_000_000_000 + lag.components.attoseconds / 1_000_000_000)
    try await owner.loop.flatScheduleTask(in: journalLag) { owner.journal.written(on: owner.loop) }
        .futureResult.get()
}

private func parts(_ persistence: HeldPersistence, recorder: JournalRecorder) async throws -> ListdParts {
    let directory = NSTemporaryDirectory() + "owner-pass-\(UUID().uuidString)"
    var logger = Logger(label: "test") { _ in JournalRecorder.Handler(recorder: recorder) }
    logger.logLevel = .info
    return try await ListdParts(filePath: directory + "/lists.md", logger: logger) { _ in persistence }
}

/// Parts on a held store, and a client that has subscribed (request 1).
private func subscribedClient() async throws -> (HeldPersistence, JournalRecorder, ListdParts, LoopConnection) {
    let (persistence, recorder) = (HeldPersistence(), JournalRecorder())
    let parts = try await parts(persistence, recorder: recorder)
    let client = try await LoopConnection(parts)
    recorder.clientEnd.store(client.fd, ordering: .relaxed)
    client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
    #expect(try client.line("the subscribe reply")["id"] as? Int == 1)
    return (persistence, recorder, parts, client)
}

@Suite struct OwnerPassTests {
    @Test func aConfirmItsNotificationAndItsJournalLineWaitForTheAppendThenComeInThatOrder() async throws {
        let (persistence, recorder, parts, client) = try await subscribedClient()

        persistence.hold()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries","items":["milk"]}}"#)
        let append = try await persistence.nextHeldAppend("the create's append")
        #expect(append.entries.contains { if case .change(let record) = $0 { record.revision == 1 } else { false } })
        try await fence(parts)
        #expect(client.unread == 0, "no confirm and no notification before the change is durable")
        #expect(recorder.lines.withLock { $0.allSatisfy { !$0.message.contains("Groceries") } }, "nor a journal line")

        append.promise.succeed()
        let journalled = try await recorder.waitFor("Groceries")
        let notification = try client.line("the notification")
        let confirm = try client.line("the confirm")
        #expect(notification["method"] as? String == "didCreateShoppingList", "the notification comes first")
        #expect(confirm["id"] as? Int == 2)
        #expect((confirm["result"] as? [String: Any])?["name"] as? String == "Groceries")
        #expect(client.unread == 0)
        // When the journal was written, both lines were in the client's socket already.
        let written = try JSONSerialization.data(withJSONObject: notification).count
        #expect(journalled.unreadBytes > written, "the journal line comes after the confirm is written")
    }

    /// listd's own log completes within the pass that made the append: the journal still waits
    /// for the confirm to be written.
    @Test func anAppendCompleteWithinItsPassIsJournalledAfterItsConfirmIsWritten() async throws {
        let (_, recorder, _, client) = try await subscribedClient()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries"}}"#)
        let journalled = try await recorder.waitFor("Groceries")
        let notification = try client.line("the notification")
        #expect(try client.line("the confirm")["id"] as? Int == 2)
        let written = try JSONSerialization.data(withJSONObject: notification).count
        #expect(journalled.unreadBytes > written, "the journal line comes after the confirm is written")
    }

    @Test func everyEditDecidedInOnePassSharesOneAppend() async throws {
        let (persistence, recorder) = (HeldPersistence(), JournalRecorder())
        let parts = try await parts(persistence, recorder: recorder)
        try await fence(parts)
        persistence.hold()
        let before = persistence.changeAppends.load(ordering: .relaxed)
        let owner = parts.owner
        let outcomes = Mutex<[String]>([])
        try await owner.loop.submit {
            for name in ["Groceries", "Hardware", "Pharmacy"] {
                owner.propose(.createList(name: name, items: []), origin: .file) { outcome in
                    outcomes.withLock { $0.append((try? outcome.get().list.name) ?? "failed") }
                }
            }
        }.get()
        let append = try await persistence.nextHeldAppend("the pass's append")
        let changes = append.entries.filter { if case .change = $0 { true } else { false } }
        #expect(changes.count == 3, "the three edits of the pass go to the log together")
        try await fence(parts)
        #expect(outcomes.withLock { $0 }.isEmpty, "none is confirmed before the append is durable")
        append.promise.succeed()
        try await fence(parts)
        #expect(outcomes.withLock { $0 } == ["Groceries", "Hardware", "Pharmacy"])
        // (The list file's write that follows may log its note in an append of its own: not
        // counted, it carries no change.)
        #expect(persistence.changeAppends.load(ordering: .relaxed) - before == 1, "one append for the pass")
    }

    @Test func aFailedAppendConfirmsNothingAndTellsNoSubscriber() async throws {
        let (persistence, recorder, _, client) = try await subscribedClient()

        persistence.hold()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries"}}"#)
        let append = try await persistence.nextHeldAppend("the create's append")
        append.promise.fail(DaemonError.changeLogFailed(path: "/log", step: "fdatasync", errno: EIO))
        let reply = try client.line("the reply to an edit whose append failed")
        #expect(reply["id"] as? Int == 2)
        let message = (reply["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("fdatasync") == true, "the storage failure is named: \(message ?? "none")")
        _ = try await recorder.waitFor("could not save the lists")

        // The next line is the reply to a read, with no notification before it, and no list.
        client.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"getLists"}"#)
        let read = try client.line("the reply to getLists")
        #expect(read["id"] as? Int == 3, "no notification of a change that never was durable")
        #expect(((read["result"] as? [String: Any])?["lists"] as? [Any])?.isEmpty == true)
    }
}
