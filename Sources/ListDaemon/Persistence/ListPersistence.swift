import ListModel

/// Where confirmed changes are made durable and found again at the next start. listd's own
/// files (`LocalPersistence`) are one such store; the core never knows which one it has, so
/// another (a database shared by a household's machines) can take its place.
protocol ListPersistence: Sendable {
    /// Everything kept, read back; called once, before listd serves. `listFileDigest` is the list
    /// file's as it is now (nil when there is none), to tell whether listd knows what it shows.
    func recover(listFileDigest: String?) throws(DaemonError) -> RecoveredLists
    /// Makes `entries` durable, in order, all with one flush: a confirm may be sent once this
    /// returns. On failure none of them counts.
    func append(_ entries: [LogEntry]) throws(DaemonError)
    /// Whether enough has been appended that `compact` should run.
    var compactionDue: Bool { get }
    /// Writes a snapshot and drops what it makes unnecessary, keeping the history
    /// `subscribe {since}` replays. `state` is asked for while no append can run, so the list
    /// file it names is the one the appended notes last said; it returns nil when the list file
    /// is not settled (a write whose note may be appended, a save not yet durable), and nothing
    /// is done: a snapshot naming the file before that write would drop the note that names the
    /// file after it, and a start would take listd's own write for a person's save.
    func compact(_ state: () -> PersistedView?) throws(DaemonError)
    /// Keeps `state` as the base the next appends follow, when nothing is kept after a base yet
    /// (a first start, whose lists are in no log); otherwise does nothing.
    func writeSnapshot(of state: PersistedView) throws(DaemonError)
}

/// What a store holds besides the changes: enough to recognise the list file at the next start.
struct PersistedView: Sendable {
    /// The committed lists (as of the last append).
    var book: ListBook
    /// Digest of the list file as listd last read or wrote it.
    var fileDigest: String
    /// The lists that file shows (older than `book` while a person's save waits for delegates).
    var shown: ListBook
    var instance: String
}

/// The state a start begins from.
struct RecoveredLists: Sendable {
    /// Names this state; nil when none was saved yet (a first start, or an older state file).
    var instance: String?
    /// Every confirmed change applied.
    var book: ListBook
    /// The last changes, for `subscribe {since}`.
    var history: ChangeHistory
    /// The lists the list file on disk shows, when listd wrote it or took it in (found by its
    /// digest); nil when a person changed it since.
    var shownByFile: ListBook?
    /// What the last such file shows.
    var lastShown: ListBook
    /// Nothing was kept at all: the list file is all there is.
    var isFirstStart: Bool
    /// What was found wrong and worked around (an unreadable snapshot), for the journal.
    var problems: [DaemonError]
}
