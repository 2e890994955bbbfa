// Every timer and threshold listd decides by, in one table: the core reads its own from the
// instance it was made with (a test changes one and sees the core follow it); the shells' few
// stand here too, so that one file tells a newcomer every number listd waits or counts by.

/// listd's timers and thresholds. listd makes one table from `standard` with what its flags set
/// (`--settle-ms` → `quietPeriod`, `--idle-ms` → `idleLimit`, in Listd.swift) and hands that one to
/// every part that waits or counts (`ListdParts.limits`: the core, the connections' rules, the
/// delegates' seats, the shared store); none reads `standard` on its own.
package struct CoreLimits: Sendable, Equatable {
    // MARK: The list file (the core)

    /// How long the list file must be left alone before a person's save is read.
    package var quietPeriod: Duration = .milliseconds(30)
    /// How long a save is waited for while an editor still has the file open for writing.
    package var openWriterLimit: Duration = .seconds(2)
    /// How long an emptied list file is given to be filled before listd writes the lists back.
    package var emptyFileGrace: Duration = .seconds(2)
    /// How long the committed lists must be left alone before the list file is rewritten: edits
    /// within that time share one rewrite of the file.
    package var fileWriteDelay: Duration = .milliseconds(25)
    /// How long the list file may lag behind the committed lists while edits keep coming: under
    /// load the file is rewritten about four times a second, not after every pause (a rewrite
    /// renders and fsyncs the whole file, and would compete with the edits).
    package var longestFileLag: Duration = .milliseconds(250)
    /// A failed write of the list file is tried again after this, doubling up to
    /// `longestWriteRetry`: a directory made writable again gets the file within a second.
    package var firstWriteRetry: Duration = .milliseconds(100)
    package var longestWriteRetry: Duration = .seconds(1)
    /// Versions of the list file (listd's writes, the saves it took in) kept in memory to read a
    /// save against the one its editor read.
    package var keptFileVersions = 16

    // MARK: Delegates (the core)

    /// How long a delegate has to answer when it does not say (`registerDelegate {timeoutMs}`),
    /// and the longest it may ask for.
    package var defaultDelegateTimeout: Duration = .seconds(2)
    package var longestDelegateTimeout: Duration = .seconds(30)
    /// Timeouts in a row after which a delegate is no longer asked.
    package var delegateStrikeLimit = 3
    /// Questions out to one delegate at a time; more wait their turn, and each one's time starts
    /// when it is sent. A clear of 1,000 ticked items asks 1,000 questions, each with the list
    /// whole: all at once, they would fill the delegate's connection (and be cut off as a client
    /// that stopped reading) and make its answers wait behind each other past their time.
    package var questionsOutPerDelegate = 32

    // MARK: The shells' (decided by `ConnectionRules` and the shells; listed so every number is here)

    /// How long a journal line may wait for others to go to the journal's thread with it.
    package var journalLag: Duration = .milliseconds(10)
    /// The service manager's status line is told at most this often.
    package var statusInterval: Duration = .seconds(1)
    /// How long a closing connection's last bytes may take to be read.
    package var closeGrace: Duration = .seconds(5)
    /// How long a lagging subscriber may take nothing from its socket before it is disconnected.
    package var stallGrace: Duration = .seconds(3)
    /// How long a connection that never said `hello`, subscribed or became a delegate may send
    /// nothing (with no request in hand) before it is let go (`--idle-ms`).
    package var idleLimit: Duration = .seconds(60)
    /// How many lines of one connection are read ahead of the request being handled.
    package var requestsReadAhead = 16
    /// The shared store (`--share`): how long one operation may take before the connection is
    /// taken for lost (a server that vanished without closing the socket is noticed), how long a
    /// connection may take to be made, and the wait before connecting again (doubling up to
    /// `longestReconnectDelay`).
    package var shareOperationDeadline: Duration = .seconds(5)
    package var shareConnectTimeout: Duration = .seconds(5)
    /// How often a sharing listd asks its server whether it still answers, so that `connected`
    /// turns false within this and the operation deadline of a server gone silent.
    package var shareLivenessInterval: Duration = .seconds(5)
    package var firstReconnectDelay: Duration = .milliseconds(100)
    package var longestReconnectDelay: Duration = .seconds(1)
    /// How long an edit whose COMMIT went unanswered waits for listd to learn whether it was made
    /// (after the operation's deadline); past it, its client is told the outcome is not known.
    package var inDoubtAnswerBound: Duration = .seconds(10)

    /// What listd runs with.
    package static let standard = CoreLimits()

    package init() {}
}
