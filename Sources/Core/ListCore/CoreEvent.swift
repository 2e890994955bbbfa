// What happens to listd, as data: the shells deliver each event to `ListCore.handle` (in
// ListCore.swift, the one door into the core) and carry out the actions it returns.
import ListModel

/// Something that happened: a client's edit, a delegate's answer, an append done, the list file
/// saved, a timer. Shells report facts only; what follows from them is the core's decision.
package enum CoreEvent: Sendable {
    // MARK: Start and stop

    /// The first look at the list file, before listd serves: `recognized` is the lists it shows
    /// when listd wrote it or took it in (`byNote`: a note in the log names it).
    case started(FileContent, recognized: ListBook?, byNote: Bool, firstStart: Bool)
    /// A first start's lists (in no log) are the base of the kept history.
    case historyBegan(from: ListBook)
    /// listd is stopping: edits from now on are refused; those accepted are finished.
    case stopping
    /// At start and stop: what is under way is durable; the file is written if it lags, and the
    /// note naming it goes into the next append (a restart knows the file by its note).
    case fileWriteForced
    case fileNoteForced

    // MARK: Clients and delegates

    /// A client's edit, `id` naming it in the reply (after what the watcher read with it: a save
    /// that came first goes first).
    case proposed(Int, ClientEdit)
    /// A delegate registers (again: its last registration is replaced).
    case delegateSeated(DelegatePanel.Seat)
    /// A delegate unregistered, or its connection ended.
    case delegateLeft(connection: Int)
    /// Question `question` ended as `reply` says: an answer, an error, its timer, or it could
    /// not be sent.
    case delegateReplied(question: String, DelegatePanel.Reply)

    // MARK: The pass and the store

    /// The owner's pass ends: what it decided may go to the log.
    case passEnded
    /// The append the core asked for is durable; `compactionDue`: the store says enough was
    /// appended that the log should be compacted.
    case appended(compactionDue: Bool)
    /// The append failed; `inDoubt`: its COMMIT went unanswered, it may have been made.
    case appendFailed(DaemonError, inDoubt: Revision?)
    /// The shared store refused the append: `remote` were committed first.
    case appendBehind([RemoteChange])
    /// Whether the append in doubt that began at this revision was made.
    case inDoubtResolved(Revision, made: Bool)
    /// The timer of `boundDoubt` fired: the edits still held for that append are answered.
    case inDoubtBoundPassed(Revision)
    /// The connections are ending (listd stops): every reply still held is given now.
    case repliesDue
    /// The shared store's server was reached again (true) or lost (false).
    case storeStatusChanged(connected: Bool)
    /// Another machine may have committed changes (a notification, or LISTEN in place).
    case remoteWoke
    /// The fetch the core asked for (`fetchRemote`) brought these changes (none, perhaps).
    case fetched([RemoteChange])
    /// The fetch failed: the store could not be asked.
    case fetchFailed(EditFailure)
    /// The compaction the core asked for ended (its failure is the shell's to log; it is tried
    /// again once the store says so after another append).
    case compacted

    // MARK: Telling

    /// The journal's lines were handed to its thread (`handJournalOver(after:)`).
    case journalHandedOver
    /// The timer of `scheduleStatus(after:)` fired.
    case statusTimerFired

    // MARK: The list file

    /// The watcher saw the list file change (no change: events of other files were read).
    case fileChanged([FileChange])
    /// Read the file again, whatever the watcher saw (the timer of `recheckFile`).
    case fileRecheckDue
    /// Read the file again from scratch, forgetting what listd knew of its bytes (SIGHUP).
    case reloadAsked
    /// The timer of `checkSettled` fired.
    case settleCheckDue
    case fileRead(FileContent)
    case fileReadFailed
    /// The timer of `scheduleWrite` fired.
    case writeDue
    case fileRendered(RenderedFile)
    case fileReplaced(RenderedFile, FileReplaceOutcome)
}
