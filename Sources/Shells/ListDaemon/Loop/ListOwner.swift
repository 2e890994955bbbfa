import Foundation
import ListCore
import ListFileFormat
import ListModel
import ListRPC
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The one owner of the lists: a single event loop of its own runs the core (`ListCore`), the
/// change log, the subscription hub and the delegate registry, as Redis's event loop
/// and NIO's `SelectableEventLoop` own their state. Nothing else touches them: no lock around
/// the core, no reordering after the fact, no polling. listd's connections are served on this
/// same loop, so an edit goes from its socket line to the core with no hand-over at all.
///
/// Work comes in as events (an edit, a delegate's answer, a settled save, a timer, a file read
/// or written on the thread pool); each is fed to the core at once and its actions performed.
/// Then one **pass** ends (`endPass`, run once per turn of the loop, after the turn's I/O):
/// every change decided in the pass goes to the log in one append — one `write`, one
/// `fdatasync` — and once it is durable each change is published (encoded once, the same bytes
/// to every subscriber), each edit confirmed, and the pass's journal entries handed, after the
/// replies, to the journal's thread (`JournalWriter`), which formats and writes them together.
/// Each connection's outbox hands its bytes to its socket once per pass.
package final class ListOwner: Service, @unchecked Sendable {
    /// The owner's loop (one thread); `ListdParts.server` serves the socket on it too.
    let group: MultiThreadedEventLoopGroup
    let loop: any EventLoop
    let hub: SubscriptionHub
    let delegates: DelegateRegistry
    let published: PublishedStatus
    let persistence: any ListPersistence
    let fileSync: ListFileShell
    /// Reports what happens to the list file, read on this loop.
    let watcher: FileWatcher
    let journal: JournalWriter
    let logger: Logger
    let statusObserver = CallbackSlot<String>()
    /// listd's one table of timers and thresholds, as the core was made with it (read from any
    /// thread: it never changes).
    let limits: CoreLimits

    // Owned by `loop` (internal only for ListOwner+Actions.swift):
    var core: ListCore
    var replies: [Int: (Result<EditOutcome, EditFailure>) -> Void] = [:]
    private var nextProposal = 1
    /// An `endPass` is scheduled on the loop.
    private var passScheduled = false
    /// Client edits read in this turn of the loop, proposed at its end (`propose`).
    private var proposedThisTurn: [(id: Int, request: ClientEdit)] = []
    /// Inside `endPass`: events handled meanwhile need no further pass of their own.
    private var inPass = false
    /// The batch the core sent to the log in this pass, handed to persistence at its end.
    var appendDue: [LogEntry]?
    /// The lists are shared with other machines (`--share`): what they commit is fetched here.
    let share: (any SharedListStore)?
    /// The journal's lines of the passes since the last hand-over (`CoreAction.handJournalOver`).
    var journalDue: [JournalEntry] = []
    var waiters: [(condition: (ListCore) -> Bool, promise: EventLoopPromise<Void>)] = []
    /// The status line's facts changed since its text was made (`CoreAction.publishStatus`).
    var statusTextStale = false

    /// The list file listd works on, as named (a symlink stays one: see `ListFileStorage`).
    package var filePath: String { fileSync.path }
    /// Names this state (see `PersistedState.instance`).
    package var instance: String { published.instance }

    /// Starts from what `persistence` recovered: takes in whatever the person changed in the list
    /// file (`fileBytes`, as read before recovery) while listd was not running, and writes the
    /// file before this returns when it lags behind. `ListdParts` builds the parts.
    init(
        recovered: RecoveredLists,
        fileBytes: [UInt8]?,
        persistence: any ListPersistence,
        hub: SubscriptionHub,
        fileSync: ListFileShell,
        watcher: FileWatcher,
        limits: CoreLimits,
        delegates: DelegateRegistry,
        journal: JournalWriter,
        group: MultiThreadedEventLoopGroup,
        logger: Logger
    ) async throws(DaemonError) {
        self.group = group
        loop = group.next()
        self.logger = logger
        self.journal = journal
        self.fileSync = fileSync
        self.watcher = watcher
        self.delegates = delegates
        self.limits = limits
        self.persistence = persistence
        let share = persistence as? any SharedListStore
        self.share = share
        self.hub = hub
        published = hub.published
        let storage = fileSync.storage
        core = ListCore(
            recovered: recovered,
            filePath: storage.path,
            limits: limits,
            // Every machine's subscribers hear which machine's file a person saved.
            sharedFrom: share == nil ? nil : ProcessInfo.processInfo.hostName,
            // Its notes name it: another machine's copy of the file is no copy of these lists.
            noteTag: ListDocument.noteTag(ofInstance: hub.published.instance)
        )
        // One copy of the committed lists and one history: the hub reads the core's, on this loop
        // (the recovered ones, should a connection ask after the owner is gone).
        let (recoveredBook, recoveredHistory) = (recovered.book, recovered.history)
        hub.bookSource = { [weak self] in self?.core.durable ?? recoveredBook }
        hub.historySource = { [weak self] in self?.core.history ?? recoveredHistory }

        // A file listd knows (it wrote it, or took it in) holds nothing of the person's to take in:
        // one a note names, or one that shows exactly the lists (written before its note was).
        let recognized =
            recovered.isFirstStart
            ? nil
            : recovered.shownByFile
                ?? fileBytes.flatMap {
                    ListFileText.listsShownExactly(by: $0, history: recovered.history, newest: recovered.book, tag: core.noteTag)
                }.flatMap {
                    // The newest lists (a write whose note the stop cut off), never an older
                    // revision's text: that is a person's save putting an earlier text back.
                    $0.revision == recovered.book.revision ? $0 : nil
                }
        // A file changed while listd was stopped is a save like any other: read against the
        // revision its headings name, rebuilt from the kept history, or a save taken in from it.
        let versions = core.versionsKept
        let content =
            fileBytes.map {
                ListFileText.content(
                    $0,
                    FileReadRequest(
                        known: recognized ?? recovered.lastShown,
                        history: recovered.history,
                        versions: versions,
                        tag: core.noteTag
                    ),
                    withEdits: recognized == nil && !recovered.isFirstStart
                )
            }
            ?? .missing
        let needsSnapshot = recovered.instance == nil
        // What the start takes in is durable before the file is written, and the file is
        // written (and its note made) before listd serves: through the same actions as ever.
        let view = try? await loop.flatSubmit {
            // Whether the shared lists' server is reachable, before the start's save is taken
            // in: a save that cannot be made durable now waits for the server (`heldForStore`),
            // rather than be read and refused again and again before listd serves.
            if let share = self.share { self.handle(.storeStatusChanged(connected: share.connected)) }
            self.handle(
                .started(content, recognized: recognized, byNote: recovered.shownByFile != nil, firstStart: recovered.isFirstStart)
            )
            return self.writeFileNow().map {
                self.publishSummary()
                return needsSnapshot ? self.persistedView : nil
            }
        }.get()
        if let view = view ?? nil {
            // A first start (its lists are in no log), or a state from before the instance name.
            try persistence.writeSnapshot(of: view)
            // The history's first change follows these lists, not the empty ones it began with
            // (else `getHistory`, `undo` and `subscribe {since}` could not redo it).
            try? await loop.submit {
                self.handle(.historyBegan(from: view.book))
            }.get()
        }
        // From here on, what the watcher sees of the file comes to the core on this loop.
        do {
            try await loop.flatSubmit {
                watcher.start(on: self.loop) { [weak self] changes in
                    self?.handle(.fileChanged(changes))
                }
            }.get()
        } catch {
            throw error as? DaemonError ?? .cannotWatch(path: storage.path, detail: "\(error)")
        }
        share?.onWake.set { [weak self] in
            guard let owner = self else { return }
            owner.execute { owner.handle(.remoteWoke) }
        }
        share?.onStatus.set { [weak self] connected in
            guard let owner = self else { return }
            owner.execute { owner.handle(.storeStatusChanged(connected: connected)) }
        }
        if let share {
            // As the connection is now (a start from the copy has none); `onStatus` says each
            // change after this. And a first fetch: what was committed between the store's load
            // and these callbacks woke nobody.
            execute {
                self.handle(.storeStatusChanged(connected: share.connected))
                self.handle(.remoteWoke)
            }
        }
        share?.connectWhenDown()
    }

    // MARK: Reads, from any thread

    /// The committed lists, as `getLists` answers: read on the owner's loop (they are the core's
    /// alone), from anywhere.
    package var snapshot: ListsSnapshot {
        get async throws { try await loop.submit { self.hub.snapshot }.get() }
    }

    /// Delegates registered before and not now; nil when none is missed. Read on the loop.
    var missingDelegates: [MissingDelegate]? {
        let missing = delegates.missingDelegates
        return missing.isEmpty ? nil : missing
    }

    /// Where the lists are shared and whether listd reaches it now; nil when they are not.
    package var shareStatus: ShareStatus? {
        share.map { ShareStatus(server: $0.serverDescription, connected: $0.connected) }
    }

    /// `3 lists, 2 subscribers, last change: revision 41 by the list file at 2026-11-22T07:19:34.038Z`
    /// (as of the start, or of the last time it was told: `onCommit`).
    package var summary: String { published.current.summary }

    /// Called (on the owner's loop) after a pass that changed the lists or the file's state, with
    /// a one-line summary for a service manager's status line: at most once a second (a later
    /// change is told by a task on the loop, a second after the last).
    package func onCommit(_ observer: @escaping @Sendable (String) -> Void) {
        statusObserver.set(observer)
    }

    // MARK: Edits, on the loop

    /// Proposes a client's edit with what it said of it (`ClientEdit`: its id, the lists it was
    /// made on); `decided` runs on the owner's loop once it is decided (at once when the rules
    /// deny it and nothing waits to be durable; else at the end of the pass that makes it
    /// durable). Call on the owner's loop.
    func propose(_ request: ClientEdit, decided: @escaping (Result<EditOutcome, EditFailure>) -> Void) {
        loop.assertInEventLoop()
        let id = nextProposal
        nextProposal += 1
        replies[id] = decided
        // A person's save that came first is taken in first. The kernel queues a save's inotify
        // events before its write returns, so they are readable by the time the edit's bytes
        // are; epoll reports both to the same turn of the loop (or the save's to an earlier one),
        // and NIO reads every descriptor it reported before it runs the turn's tasks. So an edit
        // read during the turn's I/O goes to the core at the turn's end (`endPass`), behind what
        // the watcher read meanwhile: no system call per edit. One that comes once the turn's I/O
        // is over (a connection's next line, taken when its last was answered) goes at once.
        if inPass {
            handle(.proposed(id, request))
        } else {
            proposedThisTurn.append((id, request))
            schedulePass()
        }
    }

    // MARK: Delegates, on the loop

    /// A client registers as a delegate (again: its last registration is replaced).
    func delegateRegistered(_ seat: DelegatePanel.Seat, outbox: Outbox) {
        loop.assertInEventLoop()
        tellingMissedDelegates { delegates.register(connection: seat.connection, name: seat.name, pid: seat.pid, outbox: outbox) }
        handle(.delegateSeated(seat))
    }

    /// Runs `change` to the delegates, and tells the subscribers that asked (`didChangeDelegates`)
    /// when the ones missed are others after it: a page says a rule stopped as it stops.
    func tellingMissedDelegates(_ change: () -> Void) {
        let before = delegates.missingDelegates.map(\.name)
        change()
        let after = delegates.missingDelegates
        guard after.map(\.name) != before else { return }
        hub.announce(.didChangeDelegates, MissingDelegatesParams(missingDelegates: after), listID: nil)
    }

    /// `connection` unregistered as a delegate, or closed (then it is missed until it registers
    /// again).
    func delegateGone(_ connection: Int, unregistered: Bool = false) {
        loop.assertInEventLoop()
        tellingMissedDelegates { delegates.remove(connection: connection, unregistered: unregistered) }
        handle(.delegateLeft(connection: connection))
    }

    /// A response from a client: the answer to one of the delegates' questions, if it is one.
    func responseCame(_ response: RPCResponse) {
        loop.assertInEventLoop()
        guard let (id, reply) = DelegateRegistry.reply(response) else { return }
        handle(.delegateReplied(question: id, reply))
    }

    /// Runs `body` on the owner's loop: right here when this is the loop, else queued to it.
    func execute(_ body: @escaping @Sendable () -> Void) {
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }

    // MARK: The pass

    /// Feeds `event` to the core and performs what it returns, in order, feeding back what an
    /// action brings at once (a question that could not be sent).
    func handle(_ event: CoreEvent) {
        loop.assertInEventLoop()
        var actions = core.handle(event, now: .now, at: .now())[...]
        while let action = actions.popFirst() {
            if let next = perform(action) {
                actions += core.handle(next, now: .now, at: .now())
            }
        }
        schedulePass()
    }

    func schedulePass() {
        guard !inPass, !passScheduled else { return }
        passScheduled = true
        loop.execute { self.endPass() }
    }

    /// The end of a pass: the batch the pass made goes to the log in one append; once durable,
    /// what it publishes, confirms and journals follows (in `handle`, as the core says), then the
    /// journal lines, the status line and whoever waits for the core to be quiescent.
    private func endPass() {
        loop.assertInEventLoop()
        passScheduled = false
        inPass = true
        if !proposedThisTurn.isEmpty {
            let proposed = proposedThisTurn
            proposedThisTurn = []
            for (id, request) in proposed { handle(.proposed(id, request)) }
        }
        handle(.passEnded)
        if let entries = appendDue {
            // After the pass's events (the local log completes at once, and what it releases is
            // handled as an event of its own).
            appendDue = nil
            append(entries)
        }
        inPass = false
        if !waiters.isEmpty {
            let core = core
            let ready = waiters.filter { $0.condition(core) }.map(\.promise)
            waiters.removeAll { $0.condition(core) }
            for promise in ready { promise.succeed() }
        }
        if core.commitDue { schedulePass() }
    }
}
