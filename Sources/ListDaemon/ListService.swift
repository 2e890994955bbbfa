import Dispatch
import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The sole owner of the lists: holds the core (`ListCore`) and performs what it decides through
/// the shells — persistence, the subscription hub, the list file, the delegates, the journal.
/// Every event is fed to the core under one lock; the actions it returns are performed by the
/// thread that fed it, and what they bring back (an append done, an answer given at once) is fed
/// in turn. Threads race to perform them, so the subscription hub puts publications back in
/// revision order. An append is made by the thread whose edit needed it, unless appends follow
/// one another (edits keep coming): then a serial queue makes them, so no thread that serves
/// clients waits for the disk twice, and the edits that arrive during an `fdatasync` are vetted
/// meanwhile and share the next one. File reads and writes go to the thread pool, questions to
/// delegates to tasks.
public final class ListService: Service, Sendable {
    private let core: Mutex<ListCore>
    private let hub: SubscriptionHub
    private let delegates: DelegateRegistry
    private let persistence: any ListPersistence
    private let fileSync: ListFileSync
    private let journal: JournalEntries
    private let logger: Logger
    private let replies = Mutex<[Int: @Sendable (Result<ShoppingList, EditFailure>) -> Void]>([:])
    private let nextProposal = Atomic<Int>(1)
    private let commitObserver = CallbackSlot<String>()
    /// Makes the appends that follow one another while edits keep coming, off the threads that
    /// serve clients. The first append after a quiet spell is made by the thread whose edit
    /// needed it (no hand-over: a lone edit is confirmed sooner).
    private let flushes = DispatchQueue(label: "listd.flushes")

    /// The list file listd works on (a symlink resolved to its target).
    public var filePath: String { fileSync.path }
    /// Names this state (see `PersistedState.instance`).
    public var instance: String { hub.instance }

    /// Starts from what `persistence` recovered: takes in whatever the person changed in the list
    /// file (`fileBytes`, as read before recovery) while listd was not running, and writes the
    /// file before this returns when it lags behind. `ListdParts` builds the parts.
    init(
        recovered: RecoveredLists,
        fileBytes: [UInt8]?,
        persistence: any ListPersistence,
        hub: SubscriptionHub,
        fileSync: ListFileSync,
        delegates: DelegateRegistry,
        journal: JournalEntries,
        logger: Logger
    ) throws(DaemonError) {
        self.logger = logger
        self.journal = journal
        self.fileSync = fileSync
        self.delegates = delegates
        self.persistence = persistence
        self.hub = hub
        let storage = fileSync.storage
        var fileBytes = fileBytes
        core = Mutex(ListCore(recovered: recovered, filePath: storage.path))

        if recovered.isFirstStart, fileBytes == nil {
            // A new file tells the person what it is.
            let welcome = Array((ListFileWriter.introduction + "\n").utf8)
            try storage.write(welcome)
            fileBytes = welcome
        }
        // A file listd knows (it wrote it, or took it in) holds nothing of the person's to take in.
        let recognized = recovered.isFirstStart ? nil : recovered.shownByFile
        let content = fileBytes.map { ListFileSync.content($0, known: recognized ?? recovered.lastShown) } ?? .missing
        drive(synchronously: true) { core, now, time in
            core.start(content, recognized: recognized, firstStart: recovered.isFirstStart, now: now, at: time)
        }
        drive(synchronously: true) { core, now, _ in core.writeDue(now: now, force: true) }
        if recovered.instance == nil {
            // A first start (its lists are in no log), or a state from before the instance name.
            try persistence.writeSnapshot(of: view())
        }
        fileSync.watcher.setHandler { [weak self] in self?.drive { core, _, _ in core.fileTouched() } }
    }

    // MARK: Reads

    public var snapshot: ListsSnapshot { hub.snapshot }

    public func list(_ reference: ListReference) throws(ListError) -> ShoppingList {
        try hub.book.list(reference)
    }

    public var subscriberCount: Int { hub.subscriberCount }

    /// `3 lists, 2 subscribers, last change: revision 41 by the list file at 2026-11-22T07:19:34.038Z`
    public var summary: String {
        let book = hub.book
        let subscribers = hub.subscriberCount
        var text =
            "\(book.lists.count) list\(book.lists.count == 1 ? "" : "s"), \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        if let last = hub.lastChange {
            text += ", last change: revision \(last.revision) by \(last.origin) at \(last.list.edited)"
        }
        let (offset, line, writeFailure) = core.withLock {
            ($0.file.invalidOffset, $0.file.invalidLine, $0.file.writeFailure)
        }
        if offset != nil {
            text += "; line \(line) of the list file is not UTF-8, edits wait"
        }
        if let writeFailure {
            text += "; the list file is behind the lists, retrying: \(writeFailure)"
        }
        return text
    }

    /// Called after every change of the lists or of the file's state, with a one-line summary
    /// (for a service manager's status line).
    public func onCommit(_ observer: @escaping @Sendable (String) -> Void) {
        commitObserver.set(observer)
    }

    // MARK: Edits

    /// Proposes `edit` and returns once it is decided: applied and durable, or why not.
    /// - Returns: the list after the edit (for a delete, as it was before).
    public func propose(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        origin: ChangeOrigin
    ) async -> Result<ShoppingList, EditFailure> {
        await withCheckedContinuation { continuation in
            propose(edit, ifRevision: ifRevision, origin: origin) { continuation.resume(returning: $0) }
        }
    }

    /// Proposes `edit`; `decided` runs once it is decided, on whatever thread decided it (often
    /// the caller's, before this returns, when no delegate is asked; else the one that made the
    /// change durable). No task, no hop: a connection's event loop calls this and stays on.
    public func propose(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        origin: ChangeOrigin,
        decided: @escaping @Sendable (Result<ShoppingList, EditFailure>) -> Void
    ) {
        let id = nextProposal.wrappingAdd(1, ordering: .relaxed).oldValue
        // A person's save that came first is taken in first.
        let saveUnderway = fileSync.watcher.saveUnderway()
        replies.withLock { $0[id] = decided }
        drive { core, _, time in
            let read = saveUnderway ? core.saveSeenBeforeAnEdit() : []
            return read + core.propose(id, edit, ifRevision: ifRevision, origin: origin, at: time)
        }
    }

    /// Reads the list file again from scratch (SIGHUP) and returns once that is done.
    public func reload() async {
        drive { core, _, _ in
            core.file.bytes = nil
            return core.fileTouched()
        }
        await waitUntil { !$0.file.readInFlight && !$0.file.readWanted && $0.save == nil }
    }

    public func run() async throws {
        try? await gracefulShutdown()
        // Shutting down: refuse new edits, finish every one accepted (delegates are gone by now,
        // so each open question is settled by its delegate's onTimeout), then write the file. A
        // save still undecided stays in the file and is taken in at the next start.
        core.withLock { $0.accepting = false }
        await waitUntil {
            $0.proposals.isEmpty && $0.heldForSave.isEmpty && $0.inFlight == nil && $0.open.isEmpty
                && !$0.file.writeInFlight
        }
        drive(synchronously: true) { core, now, _ in core.writeDue(now: now, force: true) }
    }

    /// Waits (polling the core every few milliseconds, up to 30 s) until `condition` holds.
    private func waitUntil(_ condition: @Sendable (ListCore) -> Bool) async {
        for _ in 0..<6_000 {
            if core.withLock({ condition($0) }) { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        logger.warning("gave up waiting for the lists to settle")
    }

    // MARK: Driving the core

    /// Feeds one event to the core and performs what it returns, feeding back what the actions
    /// bring. `synchronously`: file reads and writes are done here too (at start and stop).
    /// `flushing`: this is the flush queue, which makes every append it meets.
    private func drive(
        synchronously: Bool = false,
        flushing: Bool = false,
        _ event: (inout ListCore, ContinuousClock.Instant, Timestamp) -> [CoreAction]
    ) {
        var actions = step(event)
        var flushed = false
        while !actions.isEmpty {
            // The append (an fdatasync) waits until everything else is done: edits queued behind
            // the one just decided are vetted meanwhile, and join the next batch instead of
            // waiting a whole flush each (group commit).
            let next = actions.firstIndex { if case .append = $0.action { false } else { true } } ?? 0
            let (action, durable) = actions.remove(at: next)
            if case .append(let entries) = action, !synchronously, !flushing, flushed {
                // A second flush in a row means edits keep coming: the flush queue takes over, so
                // this thread (which serves clients) does not wait for the disk again.
                flushes.async { self.drive(flushing: true, self.append(entries)) }
                continue
            }
            if case .append = action { flushed = true }
            if let next = perform(action, synchronously: synchronously, durable: durable) {
                actions += step(next)
            }
        }
    }

    /// Feeds one event to the core; returns its actions, each with the revision durable when it
    /// was decided (an announcement waits until the changes up to there are published).
    private func step(_ event: Event) -> [(action: CoreAction, durable: Revision)] {
        core.withLock { core in
            let actions = event(&core, .now, .now())
            let durable = core.durable.revision
            return actions.map { ($0, durable) }
        }
    }

    private typealias Event = (inout ListCore, ContinuousClock.Instant, Timestamp) -> [CoreAction]

    /// Performs one action; returns the event it brings back at once, if any.
    private func perform(_ action: CoreAction, synchronously: Bool, durable: Revision) -> Event? {
        switch action {
        case .ask(let asker, let question, let params, let list, let name):
            guard delegates.wants(question, list: list, name: name) else {
                return { core, _, time in core.answered(asker, .allowed, at: time) }
            }
            Task {
                let verdict = await delegates.ask(question, params, list: list, name: name)
                drive { core, _, time in core.answered(asker, verdict, at: time) }
            }
        case .append(let entries):
            return append(entries)
        case .publish(let changes, let records, let book):
            hub.publish(changes, records: records, book: book)
        case .reply(let id, let outcome):
            replies.withLock { $0.removeValue(forKey: id) }?(outcome)
        case .announceDenial(let denial):
            hub.announce(.didDenyChange, denial, listID: denial.proposal.list?.id, after: durable)
        case .announceRejection(let rejection):
            hub.announce(.didRejectFileEdit, rejection, listID: nil, after: durable)
        case .journal(let entry):
            journal.write(entry)
        case .readFile(let known):
            if synchronously {
                do throws(DaemonError) {
                    let content = try fileSync.readNow(known: known)
                    return { core, now, time in core.fileRead(content, now: now, at: time) }
                } catch {
                    return readFailed(error)
                }
            }
            Task {
                do {
                    let content = try await fileSync.read(known: known)
                    drive { core, now, time in core.fileRead(content, now: now, at: time) }
                } catch {
                    drive(readFailed(error))
                }
            }
        case .renderFile(let book, let reading, let rejected):
            if synchronously {
                let rendered = ListFileSync.render(book, onto: reading, rejected: rejected)
                return { core, now, _ in core.fileRendered(rendered, now: now) }
            }
            Task {
                let rendered = try await NIOThreadPool.singleton.runIfActive {
                    ListFileSync.render(book, onto: reading, rejected: rejected)
                }
                drive { core, now, _ in core.fileRendered(rendered, now: now) }
            }
        case .replaceFile(let rendered, let expecting):
            if synchronously {
                let outcome = fileSync.replace(rendered, expecting: expecting)
                return { core, now, _ in core.fileReplaced(rendered, outcome, now: now) }
            }
            Task {
                let outcome =
                    (try? await NIOThreadPool.singleton.runIfActive {
                        self.fileSync.replace(rendered, expecting: expecting)
                    })
                    ?? .failed(.cannotWriteListFile(path: filePath, step: "run on the thread pool", errno: ECANCELED))
                drive { core, now, _ in core.fileReplaced(rendered, outcome, now: now) }
                // A compaction put off while the write was under way runs now.
                if persistence.compactionDue { compactSoon() }
            }
        case .scheduleWrite(let delay):
            guard !synchronously else { return nil }
            Task {
                try? await Task.sleep(for: delay)
                drive { core, now, _ in core.writeDue(now: now) }
            }
        case .recheckFile(let delay):
            fileSync.watcher.recheck(after: delay)
        case .statusChanged:
            if commitObserver.isSet { commitObserver(summary) }
        }
        return nil
    }

    /// Makes `entries` durable; returns the event that says how it went.
    private func append(_ entries: [LogEntry]) -> Event {
        do throws(DaemonError) {
            try persistence.append(entries)
        } catch {
            return { core, _, _ in core.appendFailed(error) }
        }
        if persistence.compactionDue { compactSoon() }
        return { core, now, _ in core.appended(now: now) }
    }

    private func readFailed(_ error: any Error) -> Event {
        logger.error("could not read the list file; it is read again at its next save", metadata: ["error": "\(error)"])
        return { core, _, time in core.fileReadFailed(at: time) }
    }

    /// What a snapshot holds now.
    private func view() -> PersistedView {
        view(requiringSettledFile: false)!
    }

    /// What a snapshot holds now; nil, with `requiringSettledFile`, while the list file is not
    /// settled (`ListCore.fileSettled`, checked in the same look at the core as the file's state).
    private func view(requiringSettledFile: Bool) -> PersistedView? {
        let file = core.withLock { core -> (bytes: [UInt8], shown: ListBook)? in
            if requiringSettledFile, !core.fileSettled { return nil }
            return (core.file.bytes ?? [], core.file.shown)
        }
        guard let file else { return nil }
        return PersistedView(book: hub.book, fileDigest: digest(file.bytes), shown: file.shown, instance: hub.instance)
    }

    /// Compacts the change log on the thread pool (appends wait meanwhile, a few milliseconds).
    private func compactSoon() {
        Task {
            do {
                try await NIOThreadPool.singleton.runIfActive {
                    try self.persistence.compact { self.view(requiringSettledFile: true) }
                }
            } catch {
                logger.error(
                    "could not compact the change log; it is tried again after the next change",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }
}
