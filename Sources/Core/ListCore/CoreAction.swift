// What the core asks its shells to do, and what it tells the journal.
import ListFileFormat
import ListModel

/// What the core asks its shells to do, in order (`ListCore.handle` returns them). "Feed" names
/// the `CoreEvent` the shell delivers when it is done.
package enum CoreAction: Sendable {
    /// Delegate shell: send the question to its delegate and start its timer (which feeds
    /// `delegateReplied(id, .timedOut)`); its answer feeds `delegateReplied`.
    case putQuestion(DelegatePanel.Put)
    /// Delegate shell: the question ended before its timer fired: cancel it.
    case endQuestion(String)
    /// Delegate shell: this delegate is no longer asked; tell it so, and the journal.
    case dropDelegate(DelegatePanel.Seat)
    /// Persistence: make these durable with one flush, then feed `appended` or `appendFailed`.
    case append([LogEntry])
    /// Subscription hub: these changes are durable, made on the committed lists `from` (the
    /// core's `durable` lists are the ones after them: the hub reads those, it keeps none).
    case publish([ListChange], records: [ChangeRecord], from: ListBook)
    /// A client's proposal is decided.
    case reply(Int, Result<EditOutcome, EditFailure>)
    /// `didDenyChange` subscribers hear of a proposal delegates refused.
    case announceDenial(DeniedChangeParams)
    /// `didRejectFileEdit` subscribers hear what of a save was not taken.
    case announceRejection(FileRejectionParams)
    case journal(JournalEntry)
    /// File shell: read the list file (no save is under way: the core asks only once one has
    /// settled), tie it to the lists the request names and find the version it was made from,
    /// then feed `fileRead`.
    case readFile(FileReadRequest)
    /// File shell: render `book` onto `reading` (marking `rejected` lines, writing `notes` under
    /// their lists' headings), then feed `fileRendered`.
    case renderFile(book: ListBook, reading: ListFileReading?, rejected: [Int: String], notes: [ListID: [String]])
    /// File shell: replace the list file by `file` unless it no longer holds `expecting`, then
    /// feed `fileReplaced`.
    case replaceFile(RenderedFile, expecting: [UInt8]?)
    /// Feed `writeDue` after this long.
    case scheduleWrite(after: Duration)
    /// Feed `fileRecheckDue` after this long (an emptied file is given time to be filled).
    case recheckFile(after: Duration)
    /// Feed `settleCheckDue` after this long (a save is over once the file is left alone).
    case checkSettled(after: Duration)
    /// Shared lists: fetch what other machines committed after `revision`, then feed `fetched`
    /// (or `fetchFailed`). One at a time, never with an append.
    case fetchRemote(after: Revision)
    /// Feed `inDoubtBoundPassed(revision)` after this long: the edits held while the append in
    /// doubt that began at `revision` is checked are answered by then.
    case boundDoubt(Revision, after: Duration)
    /// Compact the store's log (off the owner's loop), then feed `compacted`. Appends wait.
    case compact
    /// Journal shell: after this long, hand the journal's lines to its thread, then feed
    /// `journalHandedOver`.
    case handJournalOver(after: Duration)
    /// Status shell: the status line's facts changed (the lists, the file's state, the store); its
    /// text is made anew before it is next told.
    case publishStatus
    /// Status shell: tell the service manager the status line now.
    case tellStatus
    /// Status shell: feed `statusTimerFired` after this long.
    case scheduleStatus(after: Duration)
}

/// What the journal is told (`JournalEntries` writes it).
package enum JournalEntry: Sendable {
    case applied(ListChange)
    /// Applied on another machine sharing the lists (`--share`), taken in here.
    case remote(ListChange, machine: String)
    /// Denied by a rule; `list` is the list the edit was about, when it exists.
    case denied(ListError, edit: ListEdit, origin: ChangeOrigin, list: ShoppingList?)
    case deniedByDelegates(DelegateQuestion, verdict: DelegateVerdict, origin: ChangeOrigin, list: ShoppingList?)
    case fileRejected(FileRejectionParams)
    case fileEmptied(path: String, deleted: Bool)
    case storageFailed(DaemonError, edits: Int)
    /// A shared store's COMMIT went unanswered (`error`): these edits may have been made; their
    /// clients wait until listd knows, or `inDoubtAnswerBound`.
    case inDoubt(DaemonError, edits: Int)
    /// Edits held in doubt answered `outcomeUnknown`, and why.
    case outcomeUnknown(edits: Int, why: String)
    case fileWriteFailed(DaemonError)
    case fileWrittenAgain(path: String)
    /// A person's save settled (at debug level: how long it took, for the quiet period).
    case fileSettled(events: Int, span: Duration)
}
