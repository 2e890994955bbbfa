import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The sole owner of the lists. Every edit, whatever its source (a client, or a person saving
/// the list file), goes through one loop: checked by the model, made durable, and only then
/// confirmed and announced to subscribers.
///
/// Edits are queued and applied by `run`, so they are serialised without an actor's reentrancy.
/// A confirm means the change is in the change log and flushed (`fdatasync`); edits that queue up
/// while one flush is under way share the next (group commit). The list file is rewritten from
/// the lists in memory once the queue is empty, or at least every `fileWriteInterval` under
/// load. Before each pass the loop looks at the list file: a person's save that landed in the
/// meantime is taken in first, and listd's edits go on top. Reads and subscriptions take a lock
/// on the committed state, and fan-out happens under that same lock: a subscriber's snapshot (or
/// replayed history) and the notifications after it can neither miss nor repeat a revision.
public final class ListStore: Service, Sendable {
    /// Why the store did not apply an edit.
    public enum EditFailure: Error, Sendable {
        case denied(ListError)
        case fileInvalid(path: String, byteOffset: Int)
        case deniedByDelegate([DelegateDenial], timedOut: [String])
        case storageFailed(String)
        case shuttingDown
        /// An edit sent as one delegates need not see (it was expected to be denied or to change
        /// nothing) would change the lists now: it must be proposed again, through them.
        case needsVetting
    }

    /// What a subscriber wants to hear.
    struct Subscription: Sendable {
        var outbox: Outbox
        var events: Set<ListEventName>
        /// nil: every list.
        var lists: Set<ListID>?

        func wants(_ event: ListEventName, _ listID: ListID?) -> Bool {
            guard events.contains(event) else { return false }
            guard let listID, let lists else { return true }
            return lists.contains(listID)
        }
    }

    /// A change kept for `subscribe {since}`: its notification line is in the change log.
    struct HistoryEntry: Sendable {
        var revision: Revision
        var event: ListEventName
        var listID: ListID
        var line: ChangeLog.Line
    }

    /// Why a subscription was refused.
    public enum SubscribeFailure: Error, Sendable {
        /// A list named in `lists` does not exist.
        case denied(ListError)
        /// The changes after `since` are no longer all kept (or `since` is not a revision of this
        /// state); resync from a snapshot.
        case historyCompacted(since: Revision, revision: Revision, oldestKept: Revision?, instance: String)
        /// The client's revision belongs to another state (another list file, say).
        case instanceChanged(expected: String, instance: String, revision: Revision)
    }

    private struct State {
        var book: ListBook
        var subscribers: [Int: Subscription] = [:]
        /// Set while the list file is not UTF-8: edits are denied so the file is not clobbered.
        var invalidFileOffset: Int?
        var lastChange: ListChange?
        /// The last changes, oldest first, without gaps.
        var history: [HistoryEntry] = []
    }

    /// What the loop knows about the list file; touched only by the loop.
    private struct FileState {
        /// The file as listd last read or wrote it, tied to list ids.
        var reading: ListFileReading?
        /// Its exact bytes: a read that finds the same bytes is listd's own write (no echo).
        var bytes: [UInt8]?
        /// When the file was first seen empty (a truncate whose write has not come yet).
        var emptySince: ContinuousClock.Instant?
        /// The invalid content already reported, so it is reported once.
        var reportedInvalid: [UInt8]?
        /// The lists as the file at `bytes` shows them: the committed lists once the file is
        /// written, older ones until then (and while a person's save waits for delegates). A
        /// save's changes are computed from these and applied onto the committed lists.
        var shown = ListBook()
        /// Lines of `reading` not taken, marked when the file is next written.
        var rejected: [Int: String] = [:]
        /// The file does not show the committed lists (or lacks marks): write it.
        var dirty = false {
            didSet { if !dirty { dirtySince = nil } else if dirtySince == nil { dirtySince = .now } }
        }
        /// Since when the file has lagged behind.
        var dirtySince: ContinuousClock.Instant?
        /// The file holds a person's save that delegates have not decided on: never write it.
        var holding = false
        /// Lines in the change log, to know when to compact it.
        var logLines = 0
    }

    private struct PendingEdit: Sendable {
        var edit: ListEdit
        var ifRevision: Revision?
        var origin: ChangeOrigin
        var vetted: Bool
        var continuation: CheckedContinuation<Result<ShoppingList, EditFailure>, Never>
    }

    private struct Pending {
        var edits: [PendingEdit] = []
        var fileTouched = false
        var accepting = true
        /// Callers of `reload` waiting for the pass that re-reads the file.
        var reloads: [CheckedContinuation<Void, Never>] = []
        /// Delegates are being asked about a save (one save at a time).
        var vetting: Task<Void, Never>?
        /// Their answers, for the loop to take in.
        var verdict: FileVerdict?
        /// The list file is due to be written (set by a timer).
        var writeDue = false
        var writeTimer: Task<Void, Never>?
    }

    /// The outcome of one pass of the loop, computed off the event loops.
    private struct Pass {
        var changes: [ListChange] = []
        var outcomes: [Result<ShoppingList, EditFailure>] = []
        var rejection: FileRejectionParams?
        var invalidFileOffset: Int??
        var book: ListBook?
        /// A person's save that delegates must see before it is taken in.
        var saveToVet: SaveToVet?
        /// Each change's notification line (no newline), encoded once for the log and subscribers.
        var lines: [[UInt8]] = []
        /// Where each change went in the change log.
        var placed: [ChangeLog.Line] = []
    }

    /// A person's save waiting for delegates: the file's bytes, and the lists the file showed
    /// before it (what the save's edits are computed from).
    private struct SaveToVet: Sendable {
        var bytes: [UInt8]
        var base: ListBook
    }

    /// What delegates said about a save: the refused edits by index in
    /// `ListFileReading.edits(from: save.base)`, and the list queues held until it is taken in.
    private struct FileVerdict: Sendable {
        var save: SaveToVet
        /// The edits delegates were asked about; one not among them (it broke a rule then) is
        /// asked about before it is ever applied.
        var asked: Set<Int>
        var refused: [Int: String]
        var gateKeys: [String]
    }

    /// How long an emptied list file is given to be filled before listd writes the lists back.
    static let emptyFileGrace: Duration = .seconds(2)
    /// How long the list file may lag behind the committed lists: edits within that time share
    /// one rewrite of the file.
    static let fileWriteDelay: Duration = .milliseconds(25)

    private let state: Mutex<State>
    private let fileState: Mutex<FileState>
    private let pending = Mutex(Pending())
    private let commitObserver = CallbackSlot<String>()
    private let wakeStream: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let storage: ListFileStorage
    private let changeLog: ChangeLog
    /// How many changes `subscribe {since}` can always replay.
    private let historyLimit: Int
    private let logger: Logger
    /// Names this state (see `PersistedState.instance`).
    public let instance: String
    /// Tells the store when a person's save has settled.
    public let watcher: FileWatcher
    /// The delegates asked before any edit is applied, a person's saves included.
    let delegates: DelegateRegistry
    /// One queue per list: an edit waiting for delegates holds its list's queue, so later edits of
    /// that list wait behind it, in order, whether it came from a client or from the file.
    let listGates = KeyedFIFOLock<String>()

    /// The list file listd works on (a symlink resolved to its target).
    public var filePath: String { storage.path }

    /// Loads the lists: the snapshot, then every change logged after it, then whatever the person
    /// changed in the list file while listd was not running.
    ///
    /// - Parameter historyLimit: how many changes `subscribe {since}` can always replay (kept
    ///   in the change log across restarts).
    public init(
        filePath: String,
        quietPeriod: Duration = .milliseconds(30),
        historyLimit: Int = 10_000,
        logger: Logger
    ) throws(DaemonError) {
        try makeDirectories(directoryName(of: filePath), mode: 0o700)
        let storage = ListFileStorage(path: filePath)
        self.storage = storage
        for name in storage.removeAbandonedTemporaryFiles() {
            logger.notice("removed \(name), a temp file a listd that is gone left while writing the list file")
        }
        self.logger = logger
        self.historyLimit = max(historyLimit, 1)
        self.watcher = FileWatcher(path: storage.path, quietPeriod: quietPeriod, logger: logger)
        try watcher.open()
        self.delegates = DelegateRegistry(logger: logger)
        (wakeStream, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

        var snapshot: PersistedState?
        switch try storage.readState() {
        case .success(let saved)?: snapshot = saved
        case .failure(let error)?: logger.warning("\(error)")
        case nil: break
        }
        changeLog = try ChangeLog(path: storage.logPath)
        let records = try changeLog.readAll()
        let firstStart = snapshot == nil && records.isEmpty

        // The snapshot, then the log after it. Every list file listd wrote (or took in) is
        // logged with what it shows, so the file found now is known by its digest.
        var book = snapshot?.book ?? ListBook()
        let snapshotRevision = book.revision
        var shownByDigest: [String: ListBook] = [:]
        var lastShown = snapshot?.shownBook ?? book
        if let snapshot { shownByDigest[snapshot.listFileDigest] = snapshot.shownBook }
        var history: [HistoryEntry] = []
        for record in records {
            switch record {
            case .change(let change, let event, let line):
                history.append(HistoryEntry(revision: change.revision, event: event, listID: change.list.id, line: line))
                book.replay(change)
            case .order(let ids, let revision) where revision >= snapshotRevision:
                book.reorder(by: ids)
            case .fileShows(let fileDigest, let revision) where revision >= snapshotRevision:
                shownByDigest[fileDigest] = book
                lastShown = book
            case .order, .fileShows:
                break  // before the snapshot, which has it
            }
        }
        var fileState = FileState()
        fileState.shown = lastShown
        fileState.logLines = records.count
        fileState.dirty = true  // the file may lag behind the log: check once
        if !firstStart, let bytes = try storage.read(storage.path), let shown = shownByDigest[digest(bytes)],
            let text = String(validating: bytes, as: UTF8.self)
        {
            // A file listd knows: nothing of the person's to take in.
            fileState.reading = ListFileReading(ListDocument(parsing: text), known: shown)
            fileState.bytes = bytes
            fileState.shown = shown
        }
        instance = snapshot?.instance ?? UUID().uuidString.lowercased()
        self.state = Mutex(State(book: book, history: history))
        self.fileState = Mutex(fileState)

        if firstStart, try storage.read(storage.path) == nil {
            // A new file tells the person what it is.
            let welcome = "<!-- Shopping lists kept by listd. A list is a `# Name` line, its items `- item` lines below it. -->\n"
            try storage.write(Array(welcome.utf8), to: storage.path)
        }
        let pass = try synchronise(edits: [], firstStart: firstStart)
        commit(pass)
        try writeListFile()
        if snapshot?.instance == nil {
            // A first start (its lists are in no log), or a state from before the change log.
            try writeSnapshot()
        }
        if let rejection = pass.rejection { log(rejection) }
        for change in pass.changes { log(change) }
        watcher.setHandler { [weak self] in self?.fileTouched() }
    }

    // MARK: Reads

    public var snapshot: ListsSnapshot {
        state.withLock { ListsSnapshot(revision: $0.book.revision, lists: $0.book.lists, instance: instance) }
    }

    public func list(_ reference: ListReference) throws(ListError) -> ShoppingList {
        let book = state.withLock { $0.book }
        return try book.list(reference)
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The lists as committed now.
    var book: ListBook { state.withLock { $0.book } }

    /// Tells `didDenyChange` subscribers about an edit delegates refused.
    func announce(_ denial: DeniedChangeParams) {
        state.withLock { state in Self.broadcast(.didDenyChange, denial, listID: denial.proposal.list?.id, to: state.subscribers) }
    }

    // MARK: Subscriptions

    /// Registers (or replaces) a connection's subscription and returns the snapshot it starts
    /// from. Notifications for later revisions go to `outbox` from then on.
    ///
    /// - Parameters:
    ///   - since: first replays, to `outbox`, every change after this revision that the
    ///     subscription covers, in order; the live ones follow without a gap.
    ///   - expectedInstance: the state `since` belongs to, when the client knows it.
    func subscribe(
        connection: Int,
        outbox: Outbox,
        events: Set<ListEventName>,
        lists: [ListReference]?,
        since: Revision? = nil,
        expectedInstance: String? = nil
    ) throws(SubscribeFailure) -> ListsSnapshot {
        try state.withLock { state throws(SubscribeFailure) in
            let ids: Set<ListID>?
            do throws(ListError) {
                ids = try lists.map { references throws(ListError) in
                    Set(try references.map { reference throws(ListError) in try state.book.list(reference).id })
                }
            } catch {
                throw .denied(error)
            }
            if let since {
                let revision = state.book.revision
                if let expectedInstance, expectedInstance != instance {
                    throw .instanceChanged(expected: expectedInstance, instance: instance, revision: revision)
                }
                let oldest = state.history.first?.revision
                // Every revision after `since` must be kept (none is missing when nothing changed).
                guard since <= revision, since == revision || (oldest.map { $0 <= since + 1 } ?? false) else {
                    throw .historyCompacted(since: since, revision: revision, oldestKept: oldest, instance: instance)
                }
                let start = state.history.firstIndex { $0.revision > since } ?? state.history.endIndex
                let subscription = Subscription(outbox: outbox, events: events, lists: ids)
                for entry in state.history[start...] where subscription.wants(entry.event, entry.listID) {
                    var line = changeLog.read(entry.line)
                    line.append(UInt8(ascii: "\n"))
                    outbox.sendNotification(ByteBuffer(bytes: line))
                }
            }
            state.subscribers[connection] = Subscription(outbox: outbox, events: events, lists: ids)
            return ListsSnapshot(revision: state.book.revision, lists: state.book.lists, instance: instance)
        }
    }

    func unsubscribe(connection: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: connection) }
    }

    // MARK: Edits

    /// Applies `edit` once it is durable, or says why not.
    ///
    /// - Parameter vetted: false for an edit delegates were not asked about because it looked
    ///   bound to be denied or to change nothing: it is then never applied as a change (the
    ///   lists may have moved since it was looked at), and fails with `needsVetting` instead.
    /// - Returns: the list after the edit (for a delete, as it was before).
    public func edit(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        origin: ChangeOrigin,
        vetted: Bool = true
    ) async -> Result<ShoppingList, EditFailure> {
        await withCheckedContinuation { continuation in
            let accepted = pending.withLock { pending in
                guard pending.accepting else { return false }
                pending.edits.append(
                    PendingEdit(edit: edit, ifRevision: ifRevision, origin: origin, vetted: vetted, continuation: continuation)
                )
                return true
            }
            if accepted {
                wake.yield()
            } else {
                continuation.resume(returning: .failure(.shuttingDown))
            }
        }
    }

    /// The list file changed on disk (called by the watcher once a save has settled).
    func fileTouched() {
        pending.withLock { $0.fileTouched = true }
        wake.yield()
    }

    /// Reads the list file again from scratch (SIGHUP) and returns once that is done.
    public func reload() async {
        fileState.withLock { $0.bytes = nil }
        await withCheckedContinuation { continuation in
            pending.withLock { pending in
                pending.reloads.append(continuation)
                pending.fileTouched = true
            }
            wake.yield()
        }
    }

    /// Called after every pass that changed something, with a one-line summary (for a service
    /// manager's status line).
    public func onCommit(_ observer: @escaping @Sendable (String) -> Void) {
        commitObserver.set(observer)
    }

    /// `3 lists, 2 subscribers, last change: revision 41 by the list file at 2026-11-22T07:19:34.038Z`
    public var summary: String {
        state.withLock { state in
            let lists = state.book.lists.count
            var text = "\(lists) list\(lists == 1 ? "" : "s"), \(state.subscribers.count) subscriber\(state.subscribers.count == 1 ? "" : "s")"
            if let last = state.lastChange {
                text += ", last change: revision \(last.revision) by \(last.origin) at \(last.list.edited)"
            }
            if let offset = state.invalidFileOffset { text += "; the list file is not UTF-8 (offset \(offset)), edits wait" }
            return text
        }
    }

    public func run() async throws {
        for await _ in wakeStream.cancelOnGracefulShutdown() {
            await processPending()
        }
        // Shutting down: finish every edit already accepted, refuse the rest. A save being
        // vetted is taken in once its delegates have answered (they are gone by now, so each
        // question is settled by its delegate's onTimeout); a save still unvetted after that
        // stays in the file and is taken in at the next start.
        let vetting = pending.withLock { pending in
            pending.accepting = false
            return pending.vetting
        }
        await vetting?.value
        await processPending()
        do {
            try await NIOThreadPool.singleton.runIfActive { try self.writeListFile() }
        } catch {
            logger.error("could not write the list file on the way out; the lists are safe in the change log", metadata: ["error": "\(error)"])
        }
    }

    private func processPending() async {
        while true {
            let (batch, fileTouched, reloads, verdict, writeDue) = pending.withLock { pending in
                defer {
                    pending.edits.removeAll()
                    pending.fileTouched = false
                    pending.reloads.removeAll()
                    pending.verdict = nil
                    pending.writeDue = false
                }
                return (pending.edits, pending.fileTouched, pending.reloads, pending.verdict, pending.writeDue)
            }
            if batch.isEmpty, !fileTouched, verdict == nil {
                if writeDue { await writeListFileSoon() }
                return
            }
            defer {
                reloads.forEach { $0.resume() }
                // Edits of the save's lists queued behind it; they go on once it is in.
                verdict?.gateKeys.forEach(listGates.release)
            }
            let proposals = batch.map { ($0.edit, $0.ifRevision, $0.origin, $0.vetted) }
            let pass: Pass
            let readFile = fileTouched || verdict != nil
            do {
                // Never read the file in the middle of a person's save.
                if readFile {
                    await watcher.waitUntilSettled()
                    // Reading and merging a big file takes a while: off the event loops.
                    pass = try await NIOThreadPool.singleton.runIfActive {
                        try self.synchronise(edits: proposals, firstStart: false, readFile: true, verdict: verdict)
                    }
                } else {
                    // Edits only: apply, one append, one fdatasync, right here. This task runs on an
                    // event loop (see main.swift), which this blocks for that one flush; handing it
                    // to a thread pool instead cost two thread wake-ups per pass, more than the flush.
                    pass = try self.synchronise(edits: proposals, firstStart: false, readFile: false, verdict: nil)
                }
            } catch {
                logger.error("could not save the lists; \(batch.count) edit(s) not applied", metadata: ["error": "\(error)"])
                for proposal in batch { proposal.continuation.resume(returning: .failure(.storageFailed("\(error)"))) }
                continue
            }
            commit(pass)
            if !pass.changes.isEmpty || pass.invalidFileOffset != nil, commitObserver.isSet {
                commitObserver(summary)
            }
            if let rejection = pass.rejection { log(rejection) }
            for change in pass.changes { log(change) }
            if let save = pass.saveToVet { startVetting(save) }
            for (index, proposal) in batch.enumerated() {
                if case .failure(.denied(let error)) = pass.outcomes[index] { log(denial: error, of: proposal) }
                proposal.continuation.resume(returning: pass.outcomes[index])
            }
            await writeListFileSoon()
        }
    }

    /// Makes a pass's outcome the committed state and announces it, under the one lock reads and
    /// subscriptions take.
    private func commit(_ pass: Pass) {
        state.withLock { state in
            if let book = pass.book { state.book = book }
            if let offset = pass.invalidFileOffset { state.invalidFileOffset = offset }
            if let last = pass.changes.last { state.lastChange = last }
            for (index, change) in pass.changes.enumerated() {
                state.history.append(
                    HistoryEntry(revision: change.revision, event: ListEventName(change.kind), listID: change.list.id, line: pass.placed[index])
                )
                var line = pass.lines[index]
                line.append(UInt8(ascii: "\n"))
                Self.broadcast(ListEventName(change.kind), line: ByteBuffer(bytes: line), listID: change.list.id, to: state.subscribers)
            }
            if state.history.count >= 2 * historyLimit {
                state.history.removeFirst(state.history.count - historyLimit)
            }
            if let rejection = pass.rejection { Self.broadcast(rejection, to: state.subscribers) }
        }
    }

    /// Rewrites the list file once it has lagged `fileWriteDelay` (a timer wakes the loop for
    /// it); compacts the change log when it has grown past twice the history.
    private func writeListFileSoon() async {
        let now = ContinuousClock.now
        let lag = fileState.withLock { file in file.dirty ? file.dirtySince.map { now - $0 } : nil }
        let compact = fileState.withLock { $0.logLines } > 2 * historyLimit + 100
        let due = lag.map { $0 >= Self.fileWriteDelay } ?? false
        if let lag, !due { wakeToWrite(after: Self.fileWriteDelay - lag) }
        guard due || compact else { return }
        do {
            try await NIOThreadPool.singleton.runIfActive {
                if due { try self.writeListFile() }
                if compact { try self.compactLog() }
            }
        } catch {
            logger.error("could not write the list file; the lists are safe in the change log, and the write is tried again after the next change", metadata: ["error": "\(error)"])
        }
    }

    /// Wakes the loop to write the list file after `delay` (one timer at a time).
    private func wakeToWrite(after delay: Duration) {
        pending.withLock { pending in
            guard pending.writeTimer == nil else { return }
            pending.writeTimer = Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard let self else { return }
                self.pending.withLock { pending in
                    pending.writeTimer = nil
                    pending.writeDue = true
                }
                self.wake.yield()
            }
        }
    }

    /// Writes the committed lists into the list file (blocking), onto the person's text, unless
    /// it shows them already, a person's save waits for delegates, or the person saved since
    /// listd last read it (that save is taken in first, then this is tried again).
    private func writeListFile() throws(DaemonError) {
        try fileState.withLock { file throws(DaemonError) in
            guard file.dirty, !file.holding else { return }
            let book = state.withLock { $0.book }
            let text = ListFileWriter.text(for: book, onto: file.reading, rejected: file.rejected)
            let bytes = Array(text.utf8)
            if bytes != file.bytes {
                do throws(DaemonError) {
                    try storage.write(bytes, to: storage.path, expecting: .some(file.bytes)) { () throws(DaemonError) in
                        // Logged before the file is replaced: a start that finds this file then
                        // knows which lists it shows, and never takes listd's write for a person's.
                        try changeLog.append([ChangeLog.fileShowsLine(digest: digest(bytes), revision: book.revision)])
                        file.logLines += 1
                    }
                } catch .changedWhileWriting {
                    return  // the watcher brings that save in; still dirty
                }
                file.bytes = bytes
                file.reading = ListFileReading(ListDocument(parsing: text), known: book)
                file.rejected = [:]
            }
            file.shown = book
            file.dirty = false
        }
    }

    /// Writes a snapshot of the committed lists (blocking).
    private func writeSnapshot() throws(DaemonError) {
        try fileState.withLock { file throws(DaemonError) in
            let book = state.withLock { $0.book }
            try storage.writeState(PersistedState(book: book, listFile: file.bytes ?? [], shown: file.shown, instance: instance))
        }
    }

    /// Snapshot, then a log of only the history worth keeping (blocking). Until the new log is in
    /// place the old one is valid with the new snapshot too: a crash in between loses nothing.
    private func compactLog() throws(DaemonError) {
        try writeSnapshot()
        try fileState.withLock { file throws(DaemonError) in
            try state.withLock { state throws(DaemonError) in
                let kept = Array(state.history.suffix(historyLimit))
                let placed = try changeLog.rewrite(keeping: kept.map { changeLog.read($0.line) })
                state.history = zip(kept, placed).map { entry, line in
                    var entry = entry
                    entry.line = line
                    return entry
                }
                file.logLines = kept.count
            }
        }
    }

    /// One pass, blocking: take in the list file if a person changed it, apply `edits` on top,
    /// log what changed (durable when this returns), and say what to announce. Nothing is
    /// committed to `state` here; the caller does that. The list file is written later
    /// (`writeListFile`), from the committed lists.
    ///
    /// A save that delegates must vet first is not waited for: it is handed back in
    /// `saveToVet`, and the file is left as the person saved it until the pass that gets the
    /// delegates' `verdict` takes the save in.
    private func synchronise(
        edits: [(ListEdit, Revision?, ChangeOrigin, vetted: Bool)],
        firstStart: Bool,
        readFile: Bool = true,
        verdict: FileVerdict? = nil
    ) throws(DaemonError) -> Pass {
        try fileState.withLock { file throws(DaemonError) -> Pass in
            let before = file
            var pass = Pass()
            let committed = state.withLock { $0.book }
            var book = committed
            // What this pass logs, and which of those lines are changes (the rest say what the
            // file shows).
            var lines: [[UInt8]] = []
            var changeLines: [Int] = []
            func logChanges(_ changes: ArraySlice<ListChange>) throws(DaemonError) {
                for change in changes {
                    changeLines.append(lines.count)
                    lines.append(try Self.notificationLine(change))
                }
            }
            let now = Timestamp.now()
            let path = storage.path

            // 1. The file as it is now, when the watcher said it changed (inotify tells every
            //    save; without a word from it the file is what listd last read or wrote).
            let invalidOffset = state.withLock { $0.invalidFileOffset }
            let bytes = readFile ? try storage.read(path) : file.bytes
            if !readFile, let offset = invalidOffset {
                let failure = EditFailure.fileInvalid(path: path, byteOffset: offset)
                pass.outcomes = edits.map { _ in .failure(failure) }
                return pass
            } else if !readFile || (bytes != nil && bytes == file.bytes) {
                // Unchanged: listd's own write, or nothing new.
                file.emptySince = nil
            } else if bytes == nil || bytes?.isEmpty == true {
                let emptied = bytes != nil
                let since = file.emptySince ?? .now
                file.emptySince = since
                if !emptied || ContinuousClock.now - since >= Self.emptyFileGrace || file.bytes == nil {
                    // Deleted (or left empty): the lists are not deleted with it; write them back.
                    if file.bytes != nil || !firstStart {
                        logger.warning(
                            "the list file \(path) was \(emptied ? "emptied" : "deleted"); writing the lists back. To remove a list, delete its heading and items from the file."
                        )
                    }
                    file.bytes = bytes
                    file.dirty = true
                    file.emptySince = nil
                } else {
                    // Probably a truncate whose write is still to come: look again later.
                    watcher.recheck(after: Self.emptyFileGrace)
                }
            } else if let bytes, let text = String(validating: bytes, as: UTF8.self) {
                file.emptySince = nil
                file.reportedInvalid = nil
                pass.invalidFileOffset = .some(nil)
                var refused: [Int: String] = [:]
                // The save's edits that pass the rules now, each of which delegates must have seen.
                let shown = file.shown
                let questions = { Self.questions(for: ListFileReading(ListDocument(parsing: text), known: shown), from: shown, onto: book) }
                if let verdict, verdict.save.bytes == bytes, verdict.save.base.lists == file.shown.lists,
                    questions().allSatisfy({ verdict.asked.contains($0.index) })
                {
                    refused = verdict.refused
                } else if !delegates.isEmpty, !questions().isEmpty {
                    // Delegates first; meanwhile other edits go on without touching the file.
                    pass.saveToVet = SaveToVet(bytes: bytes, base: file.shown)
                }
                if pass.saveToVet != nil {
                    // Not taken in yet: the file keeps the person's save, listd's view stays.
                } else if committed.lists.isEmpty && firstStart {
                    var reading = ListFileReading(ListDocument(parsing: text), known: nil)
                    book = reading.book(at: now)
                    file.reading = reading
                    file.rejected = reading.rejectedLines
                    pass.rejection = Self.rejection(reading.diagnostics)
                    file.bytes = bytes
                    file.shown = book
                    file.dirty = true
                } else {
                    let ingested = ingest(text, from: file.shown, into: &book, at: now, refused: refused)
                    file.reading = ingested.reading
                    file.rejected = ingested.rejected
                    pass.changes = ingested.changes
                    pass.rejection = ingested.rejection
                    file.bytes = bytes
                    file.shown = book
                    file.dirty = true
                    // The save's changes, then what the file now shows (and its order of lists).
                    try logChanges(pass.changes[...])
                    lines.append(ChangeLog.orderLine(book.lists.map(\.id), revision: book.revision))
                    lines.append(ChangeLog.fileShowsLine(digest: digest(bytes), revision: book.revision))
                }
                file.holding = pass.saveToVet != nil
            } else if let bytes {
                // Not UTF-8: keep the last good state, never overwrite, deny edits until fixed.
                let offset = firstInvalidUTF8Offset(bytes)
                pass.invalidFileOffset = .some(offset)
                if file.reportedInvalid != bytes {
                    file.reportedInvalid = bytes
                    pass.rejection = FileRejectionParams(
                        reason: "fileInvalid",
                        message: "The list file \(path) is not UTF-8 text (first bad byte at offset \(offset)); listd keeps the lists as they were and will not write the file until it is fixed.",
                        lines: [],
                        byteOffset: offset
                    )
                }
                let failure = EditFailure.fileInvalid(path: path, byteOffset: offset)
                pass.outcomes = edits.map { _ in .failure(failure) }
                return pass
            }

            // 2. The edits, on top of the person's version.
            let fromFile = pass.changes.count
            for (edit, ifRevision, origin, vetted) in edits {
                do throws(ListError) {
                    var trial = book
                    if !vetted, try trial.apply(edit, ifRevision: ifRevision, at: now, origin: origin) != nil {
                        pass.outcomes.append(.failure(.needsVetting))
                        continue
                    }
                    if let change = try book.apply(edit, ifRevision: ifRevision, at: now, origin: origin) {
                        pass.changes.append(change)
                        pass.outcomes.append(.success(change.list))
                        file.dirty = true
                    } else {
                        pass.outcomes.append(.success(try book.list(edit.target!)))
                    }
                } catch {
                    pass.outcomes.append(.failure(.denied(error)))
                }
            }

            // 3. Durable before anyone is told: one append, one flush, for the whole pass.
            do throws(DaemonError) {
                try logChanges(pass.changes[fromFile...])
                let placed = try changeLog.append(lines)
                file.logLines += lines.count
                pass.placed = changeLines.map { placed[$0] }
                pass.lines = changeLines.map { lines[$0] }
            } catch {
                file = before
                throw error
            }
            pass.book = book
            return pass
        }
    }

    /// A change as the notification line subscribers get (and the change log keeps).
    private static func notificationLine(_ change: ListChange) throws(DaemonError) -> [UInt8] {
        do {
            return try RPCEncoding.requestBytes(id: nil, method: ListEventName(change.kind).rawValue, params: ListChangeParams(change))
        } catch {
            throw .unreadableState(path: "(a change notification)", detail: "\(error)")
        }
    }

    /// Takes in a person's save: the finest edits from `shown` (the lists the file showed before)
    /// to the file, each applied to `book` through the rules with origin `file`; lines not taken
    /// are returned for the file and the report. `book` has more than `shown` when clients edited
    /// while delegates vetted the save: their edits are kept (a three-way merge).
    private func ingest(
        _ text: String,
        from shown: ListBook,
        into book: inout ListBook,
        at now: Timestamp,
        refused: [Int: String] = [:]
    ) -> (reading: ListFileReading, changes: [ListChange], rejected: [Int: String], rejection: FileRejectionParams?) {
        var reading = ListFileReading(ListDocument(parsing: text), known: shown)
        var diagnostics = reading.diagnostics
        var changes: [ListChange] = []
        // A line not taken is reported and marked; a heading not taken takes its items with it.
        func reject(_ fileEdit: FileEdit, _ problem: ListFileDiagnostic.Problem) {
            guard fileEdit.line >= 0 else { return }
            let lines = reading.document.lines
            diagnostics.append(ListFileDiagnostic(line: fileEdit.line + 1, text: lines[fileEdit.line].raw, problem: problem))
            if case .createList = fileEdit.edit, let section = fileEdit.section {
                for item in reading.sections[section].items {
                    diagnostics.append(
                        ListFileDiagnostic(line: item.line + 1, text: lines[item.line].raw, problem: .underRejectedHeading(headingLine: fileEdit.line + 1))
                    )
                }
            }
        }
        for (index, fileEdit) in reading.edits(from: shown).enumerated() {
            if let message = refused[index] {
                // Delegates said no: handled like a rule break.
                reject(fileEdit, .deniedByDelegates(message))
                continue
            }
            do throws(ListError) {
                let change = try book.apply(fileEdit.edit, at: now, origin: .file)
                if case .createList = fileEdit.edit, let section = fileEdit.section {
                    reading.sections[section].id = change?.list.id
                }
                if let change { changes.append(change) }
            } catch {
                reject(fileEdit, .denied(error))
            }
        }
        book.reorder(by: reading.sections.compactMap(\.id))
        diagnostics.sort { $0.line < $1.line }
        reading.diagnostics = diagnostics
        return (reading, changes, reading.rejectedLines, Self.rejection(diagnostics))
    }

    /// The questions a save asks of delegates: its edits (from `shown`, by index) that pass the
    /// rules on `book`, tried in file order as the ingest will apply them.
    private static func questions(
        for reading: ListFileReading,
        from shown: ListBook,
        onto book: ListBook
    ) -> [(index: Int, question: DelegateQuestion, params: DelegateQuestionParams, list: ListID?)] {
        var book = book
        var questions: [(index: Int, question: DelegateQuestion, params: DelegateQuestionParams, list: ListID?)] = []
        for (index, fileEdit) in reading.edits(from: shown).enumerated() {
            let current = fileEdit.edit.target.flatMap { try? book.list($0) }
            let revision = book.revision
            guard case .some(.some) = try? book.apply(fileEdit.edit, at: .now(), origin: .file) else { continue }
            let params = EditCoordinator.params(for: fileEdit.edit, list: current, origin: .file, revision: revision)
            questions.append((index, DelegateQuestion(fileEdit.edit), params, current?.id))
        }
        return questions
    }

    /// Starts asking the delegates about a save, unless a save is being vetted already (the
    /// newer one is vetted once that verdict is in and found stale).
    private func startVetting(_ save: SaveToVet) {
        pending.withLock { pending in
            guard pending.accepting, pending.vetting == nil, pending.verdict == nil else { return }
            pending.vetting = Task { await self.vet(save) }
        }
    }

    /// Asks every matching delegate about every edit of the save, all at once, holding the
    /// queues of the lists it touches (so later edits of those lists wait behind it, as behind a
    /// client's proposal), and hands the verdict to the loop, which releases the queues.
    private func vet(_ save: SaveToVet) async {
        let reading = ListFileReading(ListDocument(parsing: String(decoding: save.bytes, as: UTF8.self)), known: save.base)
        let gateKeys = Set(reading.edits(from: save.base).compactMap { $0.edit.gateKey(in: save.base) }).sorted()
        // Always in the same order: two holders of several queues cannot wait for each other.
        for key in gateKeys { await listGates.acquire(key) }
        var refused: [Int: String] = [:]
        let questions = Self.questions(for: reading, from: save.base, onto: book)
        await withTaskGroup(of: (Int, DelegateRegistry.Verdict, DelegateQuestion, DelegateQuestionParams).self) { group in
            for question in questions {
                group.addTask {
                    (question.index, await self.delegates.ask(question.question, question.params, list: question.list, name: question.params.name),
                     question.question, question.params)
                }
            }
            for await (index, verdict, question, params) in group where verdict.denied {
                refused[index] = RPCError.deniedByDelegate(verdict.denials, timedOut: verdict.timedOut).message
                announce(DeniedChangeParams(question: question, proposal: params, denials: verdict.denials, timedOut: verdict.timedOut))
            }
        }
        pending.withLock { pending in
            pending.vetting = nil
            pending.verdict = FileVerdict(save: save, asked: Set(questions.map(\.index)), refused: refused, gateKeys: gateKeys)
        }
        wake.yield()
    }

    private static func rejection(_ diagnostics: [ListFileDiagnostic]) -> FileRejectionParams? {
        guard !diagnostics.isEmpty else { return nil }
        let count = diagnostics.count
        return FileRejectionParams(
            reason: "linesNotTaken",
            message: "\(count) line\(count == 1 ? "" : "s") of the list file could not be taken; the rest was applied. Each is marked in the file.",
            lines: diagnostics.map { .init(line: $0.line, text: $0.text, reason: $0.reason, message: $0.explanation) }
        )
    }

    // MARK: Fan-out

    /// Encodes the notification once and hands the same bytes to every interested subscriber.

    private static func broadcast(_ rejection: FileRejectionParams, to subscribers: [Int: Subscription]) {
        broadcast(.didRejectFileEdit, rejection, listID: nil, to: subscribers)
    }

    private static func broadcast(_ name: ListEventName, _ params: some Encodable, listID: ListID?, to subscribers: [Int: Subscription]) {
        guard subscribers.values.contains(where: { $0.wants(name, listID) }) else { return }
        var data = (try? RPCEncoding.request(id: nil, method: name.rawValue, params: params)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        broadcast(name, line: ByteBuffer(bytes: data), listID: listID, to: subscribers)
    }

    /// Hands the same bytes to every interested subscriber.
    private static func broadcast(_ name: ListEventName, line: ByteBuffer, listID: ListID?, to subscribers: [Int: Subscription]) {
        for subscription in subscribers.values where subscription.wants(name, listID) {
            subscription.outbox.sendNotification(line)
        }
    }

    // MARK: Journal

    private func log(_ change: ListChange) {
        // Built only when it is written (the summary and fields cost more than the edit).
        guard logger.logLevel <= .info else { return }
        var metadata = Self.metadata(change.origin)
        metadata["list_id"] = "\(change.list.id)"
        metadata["list_name"] = "\(change.list.name)"
        metadata["revision"] = "\(change.revision)"
        var summary: String
        switch change.kind {
        case .created: summary = "created list “\(change.list.name)”"
        case .deleted: summary = "deleted list “\(change.list.name)”"
        case .renamed, .updated: summary = "changed list “\(change.list.name)”"
        }
        for step in change.steps {
            switch step {
            case .add(let item):
                metadata["item"] = "\(item)"
                summary = "added “\(item)” to \(change.list.name)"
            case .remove(let item):
                metadata["item"] = "\(item)"
                summary = "removed “\(item)” from \(change.list.name)"
            case .replace(let item, let with):
                metadata["item"] = "\(item)"
                metadata["replacement"] = "\(with)"
                summary = "replaced “\(item)” with “\(with)” on \(change.list.name)"
            case .rename(let from, let to):
                summary = "renamed list “\(from)” to “\(to)”"
            }
        }
        logger.info("\(summary) (revision \(change.revision), by \(change.origin))", metadata: metadata)
    }

    private func log(denial: ListError, of proposal: PendingEdit) {
        var metadata = Self.metadata(proposal.origin)
        metadata["reason"] = "\(denial.reason)"
        switch proposal.edit {
        case .addItem(let item, _, _), .removeItem(let item, _), .replaceItem(let item, _, _):
            metadata["item"] = "\(item)"
        default: break
        }
        if let target = proposal.edit.target {
            switch target {
            case .id(let id): metadata["list_id"] = "\(id)"
            case .name(let name): metadata["list_name"] = "\(name)"
            }
        }
        logger.notice("denied: \(denial.message) (by \(proposal.origin))", metadata: metadata)
    }

    private func log(_ rejection: FileRejectionParams) {
        var metadata: Logger.Metadata = ["origin": "file", "reason": "\(rejection.reason)"]
        if let offset = rejection.byteOffset { metadata["byte_offset"] = "\(offset)" }
        logger.warning("\(rejection.message)", metadata: metadata)
        for line in rejection.lines {
            logger.warning(
                "not taken from the list file, line \(line.line): \(line.message)",
                metadata: ["origin": "file", "reason": "\(line.reason)", "line": "\(line.line)", "text": "\(line.text)"]
            )
        }
    }

    private static func metadata(_ origin: ChangeOrigin) -> Logger.Metadata {
        switch origin {
        case .client(let pid, let uid, let name):
            var metadata: Logger.Metadata = ["origin": "client", "client_pid": "\(pid)", "client_uid": "\(uid)"]
            if let name { metadata["client_name"] = "\(name)" }
            return metadata
        case .file:
            return ["origin": "file"]
        }
    }
}
