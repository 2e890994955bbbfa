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
    var keptIn: String { "the test's store" }
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

/// The journal's own output, listd's stderr writer, into a pipe of one page. To see what the
/// client's socket holds at the moment a journal line is written, the test fills the pipe
/// first: the journal's thread then stops in its write(2), the test looks at the socket, and
/// lets the line through by reading the pipe.
private final class JournalPipe: @unchecked Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    private var text = ""
    private var filler = 0

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        (readEnd, writeEnd) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (fcntl.h, Linux), which Glibc's module leaves out
        _ = fcntl(writeEnd, setPipeSize, 4096)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    var output: JournalOutput { .stderr(label: "test", lines: StderrLines(descriptor: writeEnd)) }

    /// Fills the pipe, so that the journal's next write blocks.
    func fill() {
        _ = readAvailable()
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let page = [UInt8](repeating: UInt8(ascii: "."), count: 4096)
        while true {
            let count = write(writeEnd, page, page.count)
            if count <= 0 { break }
            filler += count
        }
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) & ~O_NONBLOCK)
    }

    /// Waits until a thread of this process is blocked writing to the pipe: the journal's,
    /// in the middle of writing a line (`/proc/self/task/*/syscall`: the call's number, then
    /// its first argument, the descriptor).
    func waitForTheBlockedWrite() async throws {
        #if arch(x86_64)
            let writeCall = "1"
        #else
            let writeCall = "64"  // arm64
        #endif
        let descriptor = "0x" + String(writeEnd, radix: 16)
        try await within(10, "the journal's write to block on the full pipe") {
            while true {
                let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
                let blocked = tasks.contains { task in
                    let call = (try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8)) ?? ""
                    return call.split(separator: " ").prefix(2).map(String.init) == [writeCall, descriptor]
                }
                if blocked { return }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// What the journal wrote so far (the filler taken out).
    func readAvailable() -> String {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(readEnd, &chunk, chunk.count)
            if count <= 0 { break }
            var bytes = chunk[..<count]
            let skipped = min(filler, bytes.count)
            filler -= skipped
            bytes = bytes.dropFirst(skipped)
            text += String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    /// The first line with `text`, once the journal has written it.
    func waitFor(_ text: String) async throws -> String {
        try await within(10, "a journal line with “\(text)”") { [self] in
            while true {
                if let line = readAvailable().split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
                try await Task.sleep(for: .milliseconds(5))
            }
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

private func parts(_ persistence: HeldPersistence, journal: JournalPipe) async throws -> ListdParts {
    let directory = try ScratchDirectories.make("owner-pass", create: false)
    var logger = Logger(label: "test")
    logger.logLevel = .info
    return try await ListdParts(filePath: directory + "/lists.md", logger: logger, journal: journal.output) { _ in persistence }
}

/// Parts on a held store, and a client that has subscribed (request 1).
private func subscribedClient() async throws -> (HeldPersistence, JournalPipe, ListdParts, LoopConnection) {
    let (persistence, journal) = (HeldPersistence(), try JournalPipe())
    let parts = try await parts(persistence, journal: journal)
    let client = try await LoopConnection(parts)
    client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
    #expect(try client.line("the subscribe reply")["id"] as? Int == 1)
    return (persistence, journal, parts, client)
}

@Suite struct OwnerPassTests {
    @Test func aConfirmItsNotificationAndItsJournalLineWaitForTheAppendThenComeInThatOrder() async throws {
        let (persistence, journal, parts, client) = try await subscribedClient()

        persistence.hold()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries","items":["milk"]}}"#)
        let append = try await persistence.nextHeldAppend("the create's append")
        #expect(append.entries.contains { if case .change(let record) = $0 { record.revision == 1 } else { false } })
        try await fence(parts)
        #expect(client.unread == 0, "no confirm and no notification before the change is durable")
        #expect(journal.readAvailable().isEmpty, "nor a journal line")

        journal.fill()
        append.promise.succeed()
        try await journal.waitForTheBlockedWrite()
        let unreadWhenJournalled = client.unread
        #expect(try await journal.waitFor("Groceries").contains("created"), "the line it was writing is the create's")
        let notification = try client.line("the notification")
        let confirm = try client.line("the confirm")
        #expect(notification["method"] as? String == "didCreateShoppingList", "the notification comes first")
        #expect(confirm["id"] as? Int == 2)
        #expect((confirm["result"] as? [String: Any])?["name"] as? String == "Groceries")
        #expect(client.unread == 0)
        // When the journal was written, both lines were in the client's socket already.
        let written = try JSONSerialization.data(withJSONObject: notification).count
        #expect(unreadWhenJournalled > written, "the journal line comes after the confirm is written")
    }

    /// listd's own log completes within the pass that made the append: the journal still waits
    /// for the confirm to be written.
    @Test func anAppendCompleteWithinItsPassIsJournalledAfterItsConfirmIsWritten() async throws {
        let (_, journal, _, client) = try await subscribedClient()
        journal.fill()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries"}}"#)
        try await journal.waitForTheBlockedWrite()
        let unreadWhenJournalled = client.unread
        #expect(try await journal.waitFor("Groceries").contains("created"), "the line it was writing is the create's")
        let notification = try client.line("the notification")
        #expect(try client.line("the confirm")["id"] as? Int == 2)
        let written = try JSONSerialization.data(withJSONObject: notification).count
        #expect(unreadWhenJournalled > written, "the journal line comes after the confirm is written")
    }

    @Test func everyEditDecidedInOnePassSharesOneAppend() async throws {
        let (persistence, journal) = (HeldPersistence(), try JournalPipe())
        let parts = try await parts(persistence, journal: journal)
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
        let (persistence, journal, _, client) = try await subscribedClient()

        persistence.hold()
        client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"createList","params":{"name":"Groceries"}}"#)
        let append = try await persistence.nextHeldAppend("the create's append")
        append.promise.fail(DaemonError.changeLogFailed(path: "/log", step: "fdatasync", errno: EIO))
        let reply = try client.line("the reply to an edit whose append failed")
        #expect(reply["id"] as? Int == 2)
        let message = (reply["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("fdatasync") == true, "the storage failure is named: \(message ?? "none")")
        _ = try await journal.waitFor("could not save the lists")

        // The next line is the reply to a read, with no notification before it, and no list.
        client.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"getLists"}"#)
        let read = try client.line("the reply to getLists")
        #expect(read["id"] as? Int == 3, "no notification of a change that never was durable")
        #expect(((read["result"] as? [String: Any])?["lists"] as? [Any])?.isEmpty == true)
    }
}
