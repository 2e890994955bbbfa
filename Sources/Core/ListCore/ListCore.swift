import ListFileFormat
import ListModel

/// listd's decisions, as a value: the committed lists, the edits under way and the list file's
/// state, driven by events (an edit proposed, a delegates' verdict, an append done, a save read,
/// a timer) and answering each with the actions its shells perform (`CoreAction`). No locks, no
/// I/O, no clock read inside: times come with the events, so every rule is tested by feeding
/// events and reading actions.
///
/// One vetting path (this file): a client's proposal and each edit of a person's save wait in
/// their list's queue (one per list, in arrival order), are checked against the rules on the
/// lists as they will be when applied (after the earlier edits that were allowed, never one that
/// is denied or undecided), then put to the delegates, then applied. Applied changes go to the
/// change log in batches, one append at a time (group commit, `ListCore+Commit.swift`); only
/// once a batch is durable are its changes published and its edits confirmed.
package struct ListCore {
    /// The lists as the change log has them: what reads and subscribers see.
    package internal(set) var durable: ListBook
    /// `durable` plus the changes applied and not yet durable: what the next edit is checked on.
    var working: ListBook
    var filePath: String
    /// The name this listd gives itself in the list file's notes (`ListDocument.noteTag`): a
    /// copy of another listd's file is read as a copy without notes.
    package let noteTag: String?
    /// The timers and thresholds it decides by.
    let limits: CoreLimits

    enum QueueEntry: Equatable {
        case proposal(Int)
        /// The part of the current save that edits this queue's list.
        case save(Int)
    }
    /// Per list (see `ListEdit.gateKey`): who waits, the first one being decided.
    var queues: [GateKey: [QueueEntry]] = [:]
    /// A client's edit in its list's queue: the request as it came (`ClientEdit`, the one type
    /// of an edit request in the core), with where it waits and what was decided of it so far.
    package struct Proposal {
        /// The request it came as (its edit narrowed as it is decided: parts refused, a clear
        /// made on older lists), to be proposed again when held for a save or for a fetch.
        var request: ClientEdit
        var key: GateKey
        /// An edit of several items asked about item by item: each part's item, how many
        /// questions are still out, the keys delegates refused and why.
        var parts: [ListEdit] = []
        var partItems: [String] = []
        var unansweredParts = 0
        var refused: Set<String> = []
        var kept: [KeptItem] = []
        /// Allowed already, decided again by the rules only (its append was behind the shared
        /// lists: `appendBehind`).
        var vetted = false

        init(_ request: ClientEdit, key: GateKey) {
            self.request = request
            self.key = key
        }

        var edit: ListEdit {
            get { request.edit }
            set { request.edit = newValue }
        }
        var ifRevision: Revision? { request.ifRevision }
        var origin: ChangeOrigin { request.origin }
        /// The change it undoes, when it is an undo.
        var undoes: Revision? { request.undoes }
        /// The client's id for the edit, and the lists it was made on (see `ClientEdit`).
        var editId: String? { request.editId }
        var base: SaveBase? { request.base }
        var rights: ClientRights { request.rights }
    }
    package internal(set) var proposals: [Int: Proposal] = [:]
    /// Proposals that came while a person's save was under way, in order: they go into their
    /// queues once the save is read, behind its edits (the save came first).
    package internal(set) var heldForSave: [(id: Int, request: ClientEdit)] = []
    /// Edits with a client's id being decided (by that id), and resends of them that wait for
    /// the same answer (by the first one's proposal).
    var editsUnderWay: [String: Int] = [:]
    var resends: [Int: [Int]] = [:]
    /// Questions out to delegates.
    var asking: Set<Asker> = []
    /// Fetches and compactions, one at a time with the appends (`ListCore+Store`).
    var store = StoreWork()
    /// What the journal and the status line are owed (`ListCore+Telling`).
    var telling = Telling()
    /// Questions no delegate turned out to want: allowed once the event at hand is decided.
    var unasked: [Asker] = []
    /// The registered delegates, what each wants to be asked and the questions out to them
    /// (none registered: every edit is decided by the rules).
    var panel: DelegatePanel

    package internal(set) var open: Batch
    package internal(set) var inFlight: Batch?
    /// Confirms of an append whose COMMIT went unanswered (by its first revision), each with the
    /// failure it gets if the append was not made (`inDoubtResolved`).
    var heldInDoubt: [Revision: [(id: Int, outcome: Result<EditOutcome, EditFailure>, failure: EditFailure)]] = [:]
    /// Confirms of an append found made after all, sent once the lists here include it.
    var confirmsAwaitingRevision: [(revision: Revision, id: Int, outcome: Result<EditOutcome, EditFailure>)] = []

    package internal(set) var file: FileState
    /// Whether the shared lists' server is reachable, as its connection last said (always,
    /// without `--share`).
    var storeReachable = true
    /// The durable changes kept (as many as `--history` says, on disk across restarts): listd's
    /// one history. A save's base is the lists at the revision its author read, rebuilt from them
    /// (`SaveBase`); the hub reads it for `getHistory`, `subscribe {since}`, `undo` and `basedOn`.
    package internal(set) var history: ChangeHistory
    package internal(set) var save: Save?
    var nextSaveID = 1
    var accepting = true
    /// The origin of a person's save: with the machine's host name when the lists are shared.
    var fileOrigin: ChangeOrigin = .file
    /// The lists are shared (`--share`): a client's edit the rules deny is not answered until this
    /// listd has caught up with what the database had committed when the edit came, and is then
    /// decided again (a confirm waits for the database; a denial must not rest on older lists).
    var fetchesBeforeDenying = false
    /// Client edits the rules denied, waiting for the next fetch (`ListCore+Store`), in the order they came.
    package internal(set) var heldDenials: [(id: Int, request: ClientEdit)] = []
    /// How many of `heldDenials`, from the first, the fetch under way covers (they were held
    /// before it began).
    var coveredByFetch = 0
    /// Edits decided again after that fetch: a denial of them now stands.
    var decidedAfterFetch: Set<Int> = []

    /// - Parameters:
    ///   - limits: its timers and thresholds (listd's one table: `ListdParts.limits`).
    ///   - sharedFrom: the lists are shared with other machines (`--share`) from this host: a
    ///     person's save names it, and a denial waits for the database's changes.
    ///   - noteTag: the name it gives itself in the list file's notes; nil: none (every note taken).
    package init(
        recovered: RecoveredLists,
        filePath: String,
        limits: CoreLimits = .standard,
        sharedFrom host: String? = nil,
        noteTag: String? = nil
    ) {
        self.limits = limits
        self.noteTag = noteTag
        panel = DelegatePanel(limits: limits)
        durable = recovered.book
        working = recovered.book
        history = recovered.history
        self.filePath = filePath
        open = Batch()
        file = FileState(limits: limits)
        file.shown = recovered.lastShown
        // The saves taken in before the stop, each the lists its text shows (its headings tied
        // to the lists as they were right after it): a copy saved again from the same buffer is
        // read against them as before the restart.
        let keptSaves = recovered.savesTaken.suffix(limits.keptFileVersions)
        for saved in recovered.savesTaken.dropLast(keptSaves.count) {
            guard let text = String(validating: saved.text, as: UTF8.self),
                let revision = ListDocument(parsing: text, notesOf: noteTag).revisionNamed
            else { continue }
            file.forgottenSaves.insert(revision)
        }
        file.forgetSaves(before: recovered.history.base.revision)
        for saved in keptSaves {
            guard let text = String(validating: saved.text, as: UTF8.self),
                let after = try? recovered.history.book(at: saved.revision)
            else { continue }
            var reading = ListFileReading(ListDocument(parsing: text, notesOf: noteTag), known: after)
            // A heading typed without a note is the list whose items it shows (one the same
            // buffer made, renamed since by someone else), as when the save was taken in — never
            // a list of its name whose items it does not show (that heading was refused).
            ListFileText.tieTypedHeadings(&reading, to: after)
            ListFileText.tieByContent(&reading, to: after, retyingNamed: false)
            let tied = Set(reading.sections.compactMap { section in section.id.map { "\($0) \(ListText.key(section.name))" } })
            let shown = reading.book(at: after.lists.first?.edited ?? Timestamp(millisecondsSinceEpoch: 0))
            // A heading the save did not make a list of (refused, or said), or of a list deleted
            // before it, is no list of the text: given the next id here, it would be taken for
            // the list made later under that id.
            let book = ListBook(
                lists: shown.lists.filter { list in
                    (try? after.list(.id(list.id))) != nil && tied.contains("\(list.id) \(ListText.key(list.name))")
                },
                revision: shown.revision,
                nextID: after.nextID
            )
            remember(FileVersion(revision: reading.shownRevision, book: book, text: saved.text, through: saved.revision))
        }
        if let host {
            fetchesBeforeDenying = true
            fileOrigin = .file(host: host)
        }
    }

    // MARK: What the shells may ask

    /// A batch waits for the next commit (`passEnded`). A mutating getter: read on the owner's
    /// stored core at the end of every pass, a plain one made Swift copy the whole core first.
    package var commitDue: Bool {
        mutating get { inFlight == nil && !open.isEmpty && (open.entries.isEmpty || !store.holdsAppends) }
    }

    /// Nothing is on its way to the log or the list file, or waits to be sent there.
    package var idle: Bool {
        inFlight == nil && open.isEmpty && !file.readInFlight && !file.writeInFlight
    }

    /// A read of the list file that was asked for is done, and what it brought is decided.
    package var fileTaken: Bool { !file.readInFlight && !file.readWanted && save == nil }

    /// Every edit accepted is decided and durable, and the file is not being written (a stop
    /// waits for this after `stopping`).
    package var editsFinished: Bool {
        proposals.isEmpty && heldForSave.isEmpty && heldDenials.isEmpty && inFlight == nil && open.isEmpty
            && !file.writeInFlight
    }

    /// Keeps `records`, durable now; `book` is the lists after the last of them.
    mutating func keep(_ records: [ChangeRecord], book: ListBook) {
        for record in records {
            do throws(RedoError) {
                try history.append(record, after: record.revision == book.revision ? book : nil)
            } catch {
                // A record that does not fit starts the history afresh.
                history = ChangeHistory(base: book, limit: history.limit)
            }
        }
    }

    /// The lists a first start found (in no log) are the base of the history.
    mutating func startHistory(from base: ListBook) {
        guard history.records.isEmpty else { return }
        history = ChangeHistory(base: base, limit: history.limit)
    }
}

// MARK: The door: every event comes in here, every action goes out from here.

extension ListCore {
    /// Feeds `event` to the core and returns what its shells are to do, in order. `now` and
    /// `time` are the monotonic clock and the wall clock as the event is delivered.
    package mutating func handle(_ event: CoreEvent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        var actions = decide(event, now: now, at: time)
        // Questions no delegate turned out to want are decided here as allowed, after what the
        // event brought (their verdicts may ask more, which end the same way).
        while !unasked.isEmpty {
            actions += answered(unasked.removeFirst(), .allowed, at: time)
        }
        actions = answeringResends(actions)
        tell(after: &actions, now: now)
        return actions
    }

    private mutating func decide(_ event: CoreEvent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        switch event {
        case .started(let content, let recognized, let byNote, let firstStart):
            return start(content, recognized: recognized, byNote: byNote, firstStart: firstStart, now: now, at: time)
        case .historyBegan(let base):
            startHistory(from: base)
            return []
        case .stopping:
            accepting = false
            return []
        case .fileWriteForced:
            return writeDue(now: now, force: true)
        case .fileNoteForced:
            return noteFileNow()
        case .proposed(let id, let request):
            return propose(id, request, at: time)
        case .delegateSeated(let seat):
            delegateRegistered(seat)
            return []
        case .delegateLeft(let connection):
            return panel.involves(connection) ? delegateGone(connection, at: time) : []
        case .delegateReplied(let id, let reply):
            return panel.isOut(id) ? delegateReplied(id, reply, at: time) : []
        case .passEnded:
            return passEnded()
        case .appended(let compactionDue):
            store.compactionDue = store.compactionDue || compactionDue
            return appended(now: now)
        case .appendFailed(let error, let inDoubt):
            return appendFailed(error, inDoubt: inDoubt)
        case .appendBehind(let remote):
            return appendBehind(remote, now: now, at: time)
        case .inDoubtResolved(let revision, let made):
            // Made: what others committed after it may be waiting (its notification came while
            // the outcome was unknown).
            if made { store.remoteDue = true }
            return inDoubtResolved(revision, made: made)
        case .inDoubtBoundPassed(let revision):
            return inDoubtUnanswered([revision], why: "the shared lists' server did not answer within \(limits.inDoubtAnswerBound) of its deadline")
        case .repliesDue:
            return inDoubtUnanswered(Array(heldInDoubt.keys), why: "listd stopped before the shared lists' server answered")
                + confirmsAtStop()
        case .storeStatusChanged(let connected):
            return storeStatusChanged(connected: connected, now: now)
        case .remoteWoke:
            store.remoteDue = true
            return []
        case .fetched(let remote):
            return fetched(remote, now: now, at: time)
        case .fetchFailed(let failure):
            return fetchFailed(failure)
        case .compacted:
            store.compacting = false
            return []
        case .journalHandedOver:
            telling.journalArmed = false
            return []
        case .statusTimerFired:
            return statusTimerFired(now: now)
        case .fileChanged(let changes):
            return fileChanged(changes, now: now, at: time)
        case .fileRecheckDue:
            return fileTouched()
        case .reloadAsked:
            file.bytes = nil
            return fileTouched()
        case .settleCheckDue:
            return settleCheckDue(now: now)
        case .fileRead(let content):
            return fileRead(content, now: now, at: time)
        case .fileReadFailed:
            return fileReadFailed(at: time)
        case .writeDue:
            return writeDue(now: now)
        case .fileRendered(let rendered):
            return fileRendered(rendered, now: now)
        case .fileReplaced(let rendered, let outcome):
            return fileReplaced(rendered, outcome, now: now)
        }
    }

    /// `actions` with, after each reply, the same reply to every resend of its edit (by the
    /// client's id) that waited for it.
    private mutating func answeringResends(_ actions: [CoreAction]) -> [CoreAction] {
        guard !resends.isEmpty || !editsUnderWay.isEmpty else { return actions }
        var answered: [CoreAction] = []
        answered.reserveCapacity(actions.count)
        for action in actions {
            answered.append(action)
            guard case .reply(let id, let outcome) = action else { continue }
            for resend in replied(to: id) { answered.append(.reply(resend, outcome)) }
        }
        return answered
    }
}
