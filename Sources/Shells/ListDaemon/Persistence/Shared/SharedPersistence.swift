// The store for lists a household's machines share: PostgreSQL, with its changes table as the
// source of truth every listd catches up from, and LISTEN/NOTIFY only to wake them up.
import DurableFiles
import Foundation
import ListCore
import ListModel
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// listd's lists in a PostgreSQL database that several listd share. One revision counter for
/// all of them, in `listd_state`, locked by each append's transaction: an append whose first
/// change does not follow the committed revision is refused as a whole (`Behind`, with the
/// changes that came first), and the owner decides its edits again on the lists those changes
/// leave. A confirm is sent only once the transaction is committed.
///
/// One connection, used by one operation at a time (the owner never runs an append and a
/// fetch together); it also LISTENs, and LISTEN in place (at start and at each reconnection) and each notification call `onWake`.
/// When it is lost, appends fail at once with `shareUnavailable` while a task connects again
/// (100 ms, doubling up to 1 s).
final class SharedPersistence: SharedListStore, @unchecked Sendable {
    let server: ShareServer
    /// This listd: its host and list file (`kitchen:/home/ann/.local/share/listd/lists.md`).
    let machine: String
    let configuration: PostgresConnection.Configuration
    let historyLimit: Int
    /// The deadlines, liveness interval and reconnect delays, from listd's one table.
    let limits: CoreLimits
    let logger: Logger

    struct State {
        var connection: PostgresConnection?
        /// Why the last connection was lost or could not be made.
        var failure = ""
        var reconnecting = false
        var stopped = false
        var nextConnectionID = 1
        /// The database's `instance`, and the last change this listd saw in it: a server found
        /// again must still have both (not a database made anew, nor one restored from an older
        /// backup), or listd stops using it rather than mix two histories.
        var instance = ""
        var seenRevision: Revision = 0
        /// Started from the copy: `connectWhenDown` starts connecting.
        var connectionDue = false
        /// Who waits for a connection (`nextConnection`): told when one is made, or when listd
        /// stops (nil).
        var connectionWaiters: [CheckedContinuation<PostgresConnection?, Never>] = []
        /// The server session of each connection made, by the connection's id, until it is lost.
        var sessions: [Int: ServerSession] = [:]
    }
    let state = Mutex(State())
    /// Another machine may have committed changes, or the server is back: catch up.
    let onWake = CallbackSlot<Void>()
    /// The connection was lost or made again.
    let onStatus = CallbackSlot<Bool>()
    /// Read at `open`, handed over once by `recover`.
    var loaded: Loaded?
    /// This machine's copy of what it last saw, to start from while the server is down.
    let copy: SharedCopy
    /// The copy is to be written anew from what `open` read (by `recover`: once listd holds the
    /// lock on the list file's state, so that a second listd never replaces a running one's).
    var copyDue = false
    /// Every operation, the LISTEN and the reconnections run here, until `stop`.
    let tasks = StoreTasks()

    typealias Behind = AppendBehind
    typealias InDoubt = AppendInDoubt

    struct Loaded: Sendable, Equatable {
        var instance: String
        var records: [ChangeRecord]
        /// What this machine's list file showed when it last noted it.
        var fileDigest: String? = nil
        var fileRevision: Revision? = nil
    }

    private init(
        server: ShareServer,
        machine: String,
        copyPath: String,
        historyLimit: Int,
        limits: CoreLimits,
        logger: Logger
    ) throws(DaemonError) {
        self.server = server
        self.limits = limits
        self.machine = machine
        self.copy = SharedCopy(path: copyPath)
        self.historyLimit = max(historyLimit, 1)
        self.logger = logger
        var configuration: PostgresConnection.Configuration
        switch server.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            do {
                switch server.tls {
                case .disable: tls = .disable
                case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            } catch {
                throw .shareFailed(server: server.description, detail: "TLS cannot be set up: \(error)")
            }
            configuration = .init(
                host: host,
                port: port,
                username: server.user,
                password: server.password,
                database: server.database,
                tls: tls
            )
        case .unixSocket(let path):
            configuration = .init(
                unixSocketPath: path,
                username: server.user,
                password: server.password,
                database: server.database
            )
        }
        configuration.options.connectTimeout = .seconds(Int64(limits.shareConnectTimeout.components.seconds))
        configuration.options.additionalStartupParameters = Self.sessionSettings
        self.configuration = configuration
    }

    /// Connects, creates or migrates listd's tables, reads everything kept, and keeps a copy of
    /// it beside the list file. When the server cannot be reached and this machine has a copy
    /// from it, starts from the copy, not connected (edits are refused until the server is back,
    /// found by connecting again in the background). Otherwise throws with a sentence a person
    /// can act on (a bad password, a missing database, no server there and no copy).
    static func open(
        server: ShareServer,
        machine: String,
        copyPath: String,
        historyLimit: Int,
        limits: CoreLimits,
        logger: Logger
    ) async throws(DaemonError) -> SharedPersistence {
        let store = try SharedPersistence(
            server: server,
            machine: machine,
            copyPath: copyPath,
            historyLimit: historyLimit,
            limits: limits,
            logger: logger
        )
        var connection: PostgresConnection?
        do {
            connection = try await store.connect()
            try await store.migrate(connection!)
            let loaded = try await store.load(connection!)
            store.loaded = loaded
            store.state.withLock { state in
                state.connection = connection
                state.instance = loaded.instance
                state.seenRevision = loaded.records.last?.revision ?? 0
            }
            store.listen(on: connection!)
        } catch {
            try? await connection?.close()
            guard Self.isUnreachable(error) else {
                if let error = error as? DaemonError { throw error }
                throw .shareFailed(server: server.description, detail: store.explain(error))
            }
            try store.startFromCopy(unreachable: store.explain(error))
            return store
        }
        store.copyDue = true
        return store
    }

    var keptIn: String { "the shared lists at \(server.description)" }

    /// Whether listd is connected to the server now.
    var connected: Bool { state.withLock { $0.connection != nil } }
    var serverDescription: String { server.description }

    /// Closes the connection and returns once the store's work has ended (an operation under way
    /// fails with the connection), or after `operationDeadline` if some of it does not: it is
    /// left, and said. Nothing reconnects after this.
    func stop() async {
        let (connection, waiters) = state.withLock { state in
            state.stopped = true
            defer {
                state.connection = nil
                state.connectionWaiters = []
            }
            return (state.connection, state.connectionWaiters)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        try? await connection?.close()
        if !(await tasks.finish(within: limits.shareOperationDeadline)) {
            logger.warning(
                "the work on the shared lists at \(server.description) did not end within \(limits.shareOperationDeadline) of the stop: listd stops without waiting for it"
            )
        }
    }

    /// The connection: at once when there is one, else once one is made again — nil when listd
    /// stops first. Nothing polls: `reconnect` and `stop` wake the waiters.
    func nextConnection() async -> PostgresConnection? {
        await withCheckedContinuation { (waiter: CheckedContinuation<PostgresConnection?, Never>) in
            let now: PostgresConnection?? = state.withLock { state in
                if state.stopped { return .some(nil) }
                if let connection = state.connection { return .some(connection) }
                state.connectionWaiters.append(waiter)
                return nil
            }
            if let now { waiter.resume(returning: now) }
        }
    }

    // MARK: ListPersistence

    func recover(listFileDigest: String?) throws(DaemonError) -> RecoveredLists {
        // Read by `open`; called once, before listd serves (the records are let go after).
        let loaded = self.loaded ?? Loaded(instance: UUID().uuidString.lowercased(), records: [])
        self.loaded = nil
        if copyDue {
            copyDue = false
            do throws(FileIO.Failure) {
                try copy.replace(with: .init(server: server.description, lists: loaded))
            } catch {
                logger.warning(
                    "cannot keep a copy of the shared lists in \(copy.path) (\(error)): listd could not start from it while \(server.description) is down"
                )
            }
        }
        var book = ListBook()
        var history = ChangeHistory(base: book, limit: historyLimit)
        // A machine that never noted its file shows nothing of the shared lists: its file's lists
        // are taken in as new ones (see docs/sharing.md), and the rules say what clashes.
        var shown = loaded.fileRevision == 0 ? book : nil
        for record in loaded.records {
            do throws(RedoError) {
                try book.redo(record)
                try history.append(record, after: book)
            } catch {
                throw .shareDamaged(server: server.description, revision: record.revision, detail: error.reason)
            }
            if record.revision == loaded.fileRevision { shown = book.withoutItemKeys }
        }
        let lastShown = shown ?? ListBook()
        return RecoveredLists(
            instance: loaded.instance,
            book: book,
            history: history,
            shownByFile: loaded.fileDigest != nil && loaded.fileDigest == listFileDigest ? shown : nil,
            lastShown: lastShown,
            isFirstStart: loaded.records.isEmpty && loaded.fileDigest == nil,
            problems: []
        )
    }

    func append(_ entries: [LogEntry], on loop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        guard let connection = state.withLock({ $0.connection }) else {
            promise.fail(DaemonError.shareUnavailable(server: server.description, detail: state.withLock { $0.failure }))
            return promise.futureResult
        }
        let once = Once(promise)
        let gate = CommitGate()
        // The server session the transaction runs in: a doubt is settled by ending it.
        let session = state.withLock { $0.sessions[connection.id] }
        deadline(once, connection) { error in
            // Past the deadline, the COMMIT may have been made if it was sent; if not, it never
            // will be (the gate keeps it from going, and the transaction can only roll back).
            guard !gate.abandon(), case .change(let record)? = entries.first(where: \.isChange) else { return error }
            return InDoubt(revision: record.revision, line: String(decoding: LogEntry.change(record).line, as: UTF8.self), session: session, failure: error)
        }
        let started = tasks.run {
            do {
                try await self.write(entries, on: connection, gate: gate)
                // Before the confirms: the next append's changes follow these in the copy.
                self.remember(
                    entries.compactMap { if case .change(let record) = $0 { record } else { nil } },
                    note: entries.last { if case .fileShows = $0 { true } else { false } }
                )
                once.succeed(())
            } catch {
                let transaction = error as? PostgresTransactionError
                if let behind = transaction?.closureError as? Behind {
                    self.remember(behind.remote.map(\.record))
                    once.fail(behind)
                    return
                }
                let failure = self.lost(connection, error)
                if transaction?.commitError != nil, case .change(let record)? = entries.first(where: \.isChange) {
                    // COMMIT was sent and no answer came: it may have been made.
                    let line = String(decoding: LogEntry.change(record).line, as: UTF8.self)
                    once.fail(InDoubt(revision: record.revision, line: line, session: session, failure: failure))
                } else {
                    once.fail(failure)
                }
            }
        }
        if !started { once.fail(DaemonError.shareUnavailable(server: server.description, detail: "listd is stopping")) }
        return promise.futureResult
    }


    /// Whether the append in doubt was made: its first change is there, as written. Asked once
    /// the session that sent its COMMIT has ended (`end`): until then the COMMIT may still reach
    /// the server (a network that held its bytes) and be made after a "no". Waits for the
    /// server as long as listd runs (false if it stops first).
    func wasMade(_ doubt: InDoubt, on loop: any EventLoop) -> EventLoopFuture<Bool> {
        let promise = loop.makePromise(of: Bool.self)
        let started = tasks.run {
            while let connection = await self.nextConnection() {
                do {
                    if let session = doubt.session { try await self.end(session, on: connection) }
                    var stored: String?
                    for try await (machine, entry) in try await connection.query(
                        "SELECT machine, entry FROM listd_changes WHERE revision = \(doubt.revision)",
                        logger: self.logger
                    ).decode((String, String).self) where machine == self.machine {
                        stored = entry
                    }
                    if stored == doubt.line {
                        self.logger.notice("change #\(doubt.revision) was made before the connection was lost: confirmed")
                    }
                    return promise.succeed(stored == doubt.line)
                } catch {
                    _ = self.lost(connection, error)
                }
            }
            promise.succeed(false)
        }
        if !started { promise.succeed(false) }
        return promise.futureResult
    }

    /// Every change is kept in the database: nothing to compact here.
    var compactionDue: Bool { false }
    func compact(_ state: PersistedView) throws(DaemonError) {}
    func writeSnapshot(of state: PersistedView) throws(DaemonError) {}

    /// The changes committed after `revision`, in order.
    func changes(after revision: Revision, on loop: any EventLoop) -> EventLoopFuture<[RemoteChange]> {
        let promise = loop.makePromise(of: [RemoteChange].self)
        guard let connection = state.withLock({ $0.connection }) else {
            promise.fail(DaemonError.shareUnavailable(server: server.description, detail: state.withLock { $0.failure }))
            return promise.futureResult
        }
        let once = Once(promise)
        deadline(once, connection) { $0 }
        let started = tasks.run {
            do {
                let changes = try await Self.changes(after: revision, on: connection, logger: self.logger)
                self.remember(changes.map(\.record))
                once.succeed(changes)
            } catch {
                once.fail(self.lost(connection, error))
            }
        }
        if !started { once.fail(DaemonError.shareUnavailable(server: server.description, detail: "listd is stopping")) }
        return promise.futureResult
    }

    /// What each of listd's server sessions is set to, so that one machine cut off from the
    /// server never holds the others up for long: listd never pauses inside a transaction, so a
    /// session idle in one for 3 s is a listd gone (a partition, a power loss, a stopped
    /// process), and the server ends it, rolling back and letting go of the revision row's lock
    /// the other machines' appends wait for; over TCP, the server also drops a session whose
    /// bytes go unacknowledged for 10 s, and one whose client stops answering keepalives (after
    /// 10 s idle, every 5 s, 3 times). (PostgreSQL 12 or later.)
    static let sessionSettings: [(String, String)] = [
        ("idle_in_transaction_session_timeout", "3s"),
        ("tcp_user_timeout", "10000"),
        ("tcp_keepalives_idle", "10"),
        ("tcp_keepalives_interval", "5"),
        ("tcp_keepalives_count", "3"),
    ]


    /// Fails `once` (with `failure(error)`) when the operation has not ended by the deadline,
    /// and drops the connection.
    private func deadline<T>(
        _ once: Once<T>,
        _ connection: PostgresConnection,
        failure: @escaping @Sendable (DaemonError) -> any Error
    ) {
        // A timer on the loop the operation completes on (the owner's), cancelled when it ends.
        let timer = once.eventLoop.scheduleTask(in: TimeAmount(limits.shareOperationDeadline)) {
            guard !once.done else { return }
            let error = self.lost(connection, DeadlinePassed(deadline: self.limits.shareOperationDeadline))
            once.fail(failure(error))
        }
        once.ended { timer.cancel() }
    }
}
