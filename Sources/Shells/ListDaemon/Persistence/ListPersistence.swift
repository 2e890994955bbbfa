import ListCore
import ListModel
import NIOCore

/// Where confirmed changes are made durable and found again at the next start. listd's own
/// files (`LocalPersistence`) are one such store; the core never knows which one it has, so
/// another (a database shared by a household's machines) can take its place.
protocol ListPersistence: Sendable {
    /// Where the lists are safe while the list file cannot be written, as people read it
    /// (`the change log`; a shared store: `the shared lists at listd@…`).
    var keptIn: String { get }
    /// Everything kept, read back; called once, before listd serves. `listFileDigest` is the list
    /// file's as it is now (nil when there is none), to tell whether listd knows what it shows.
    func recover(listFileDigest: String?) throws(DaemonError) -> RecoveredLists
    /// Makes `entries` durable, in order, all with one flush; the future (on `loop`, the owner's)
    /// succeeds once they are, and a confirm may be sent then. On failure (a `DaemonError`) none
    /// of them counts. listd's own log completes before returning (the owner's pass waits for its
    /// `fdatasync`); a shared store completes later, and the owner's passes go on meanwhile.
    func append(_ entries: [LogEntry], on loop: any EventLoop) -> EventLoopFuture<Void>
    /// Whether enough has been appended that `compact` should run.
    var compactionDue: Bool { get }
    /// Writes a snapshot and drops what it makes unnecessary, keeping the history
    /// `subscribe {since}` replays. `state` is the lists and the list file as of the last append;
    /// the owner calls this off its loop with no append under way, and only while the list file
    /// is settled (no write whose note may be appended, no save not yet durable): a snapshot
    /// naming the file before that write would drop the note that names the file after it, and a
    /// start would take listd's own write for a person's save.
    func compact(_ state: PersistedView) throws(DaemonError)
    /// Keeps `state` as the base the next appends follow, when nothing is kept after a base yet
    /// (a first start, whose lists are in no log); otherwise does nothing.
    func writeSnapshot(of state: PersistedView) throws(DaemonError)
}

/// What a store shared with other machines adds (`--share`): the changes they commit, whether
/// its server is reached, and appends that others got ahead of (`AppendBehind`) or whose outcome
/// is unknown (`AppendInDoubt`). The owner works with any such store; `SharedPersistence` is
/// PostgreSQL's.
protocol SharedListStore: ListPersistence {
    /// Where the lists are shared, as people read it (the status line, `getLists`).
    var serverDescription: String { get }
    /// The server is reached now.
    var connected: Bool { get }
    /// Called (from any thread) when another machine may have committed changes.
    var onWake: CallbackSlot<Void> { get }
    /// Called (from any thread) when the server is reached again (true) or lost (false).
    var onStatus: CallbackSlot<Bool> { get }
    /// Connects in the background when the start found the server away.
    func connectWhenDown()
    /// The changes committed after `revision`, oldest first; completes on `loop`.
    func changes(after revision: Revision, on loop: any EventLoop) -> EventLoopFuture<[RemoteChange]>
    /// Whether the append in doubt was made; waits for the server as long as listd runs.
    func wasMade(_ doubt: AppendInDoubt, on loop: any EventLoop) -> EventLoopFuture<Bool>
    /// Ends the connection and the store's work (listd stops): returns once it has ended.
    func stop() async
}

/// An append others got ahead of: `remote` committed first, from the append's base on. Nothing of
/// the append was written.
struct AppendBehind: Error, Sendable {
    var remote: [RemoteChange]
}

/// An append whose COMMIT went unanswered: it may or may not have been made
/// (`SharedListStore.wasMade` tells, once the server can be asked).
struct AppendInDoubt: Error, Sendable {
    /// Its first change's revision, and that change as it was written.
    var revision: Revision
    var line: String
    /// The server session that sent the COMMIT (nil: not known).
    var session: ServerSession?
    var failure: DaemonError
}

/// One of a database server's sessions, as the server names it: its process and when it began
/// (a pid alone may be a later session's).
struct ServerSession: Sendable, Equatable {
    var pid: Int32
    var started: String
}

