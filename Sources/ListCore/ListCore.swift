import ListFileFormat
import ListModel
import ListRPC

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
public struct ListCore {
    /// The lists as the change log has them: what reads and subscribers see.
    public internal(set) var durable: ListBook
    /// `durable` plus the changes applied and not yet durable: what the next edit is checked on.
    var working: ListBook
    var filePath: String

    enum QueueEntry: Equatable {
        case proposal(Int)
        /// The part of the current save that edits this queue's list.
        case save(Int)
    }
    /// Per list (see `ListEdit.gateKey`): who waits, the first one being decided.
    var queues: [String: [QueueEntry]] = [:]
    public struct Proposal {
        var edit: ListEdit
        var ifRevision: Revision?
        var origin: ChangeOrigin
        var key: String
        /// The change it undoes, when it is an undo.
        var undoes: Revision?
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
        /// The client's id for the edit, and the lists it was made on (see `ClientEdit`).
        var editId: String?
        var base: SaveBase?
        var rights: ClientRights

        init(_ request: ClientEdit, key: String) {
            edit = request.edit
            ifRevision = request.ifRevision
            origin = request.origin
            self.key = key
            undoes = request.undoes
            editId = request.editId
            base = request.base
            rights = request.rights
        }

        /// The request it came as, to be proposed again (held for a save, or a catch-up).
        var request: ClientEdit {
            ClientEdit(edit: edit, ifRevision: ifRevision, origin: origin, undoes: undoes, editId: editId, base: base, rights: rights)
        }
    }
    public internal(set) var proposals: [Int: Proposal] = [:]
    /// Proposals that came while a person's save was under way, in order: they go into their
    /// queues once the save is read, behind its edits (the save came first).
    public internal(set) var heldForSave: [(id: Int, request: ClientEdit)] = []
    /// Edits with a client's id being decided (by that id), and resends of them that wait for
    /// the same answer (by the first one's proposal).
    var editsUnderWay: [String: Int] = [:]
    var resends: [Int: [Int]] = [:]
    /// Questions out to delegates.
    var asking: Set<Asker> = []
    /// Questions no delegate turned out to want: allowed once the event at hand is decided.
    var unasked: [Asker] = []
    /// The registered delegates, what each wants to be asked and the questions out to them
    /// (none registered: every edit is decided by the rules).
    var panel = DelegatePanel()

    public internal(set) var open: Batch
    public internal(set) var inFlight: Batch?
    /// Confirms of an append whose COMMIT went unanswered (by its first revision), each with the
    /// failure it gets if the append was not made (`inDoubtSettled`).
    var heldInDoubt: [Revision: [(id: Int, outcome: Result<EditOutcome, EditFailure>, failure: EditFailure)]] = [:]
    /// Confirms of an append found made after all, sent once the lists here include it.
    var confirmsAwaitingRevision: [(revision: Revision, id: Int, outcome: Result<EditOutcome, EditFailure>)] = []

    public internal(set) var file = FileState()
    /// Whether the shared lists' server is reachable, as its connection last said (always,
    /// without `--share`).
    var storeReachable = true
    /// The durable changes kept (as many as `--history` says, on disk across restarts): a save's
    /// base is the lists at the revision its author read, rebuilt from them (`SaveBase`).
    var history: ChangeHistory
    public internal(set) var save: Save?
    var nextSaveID = 1
    var accepting = true
    /// The origin of a person's save: with the machine's host name when the lists are shared.
    var fileOrigin: ChangeOrigin = .file
    /// The lists are shared (`--share`): a client's edit the rules deny is not answered until this
    /// listd has caught up with what the database had committed when the edit came, and is then
    /// decided again (a confirm waits for the database; a denial must not rest on older lists).
    var catchesUpBeforeDenying = false
    /// Client edits the rules denied, waiting for that catch-up (`catchUp`), in the order they came.
    public internal(set) var heldForCatchUp: [(id: Int, request: ClientEdit)] = []
    /// How many of `heldForCatchUp`, from the first, the fetch under way covers (they were held
    /// before it began).
    var coveredByCatchUp = 0
    /// Edits decided again after a catch-up: a denial of them now stands.
    var caughtUpProposals: Set<Int> = []

    /// - Parameters:
    ///   - quietPeriod: how long the list file must be left alone before a save is read.
    ///   - sharedFrom: the lists are shared with other machines (`--share`) from this host: a
    ///     person's save names it, and a denial waits for the database's changes.
    public init(recovered: RecoveredLists, filePath: String, quietPeriod: Duration = .milliseconds(30), sharedFrom host: String? = nil) {
        durable = recovered.book
        working = recovered.book
        history = recovered.history
        self.filePath = filePath
        open = Batch()
        file.shown = recovered.lastShown
        file.settle = SettleTracker(quietPeriod: quietPeriod)
        if let host {
            catchesUpBeforeDenying = true
            fileOrigin = .file(host: host)
        }
    }

    // MARK: What the shells may ask

    /// A batch waits for the next commit (`passEnded`). A mutating getter: read on the owner's
    /// stored core at the end of every pass, a plain one made Swift copy the whole core first.
    public var commitDue: Bool {
        mutating get { inFlight == nil && !open.isEmpty }
    }

    /// Nothing is on its way to the log or the list file, or waits to be committed.
    public var settled: Bool {
        inFlight == nil && open.isEmpty && !file.readInFlight && !file.writeInFlight
    }

    /// A read of the list file that was asked for is done, and what it brought is decided.
    public var fileTaken: Bool { !file.readInFlight && !file.readWanted && save == nil }

    /// Every edit accepted is decided and durable, and the file is not being written (a stop
    /// waits for this after `stopping`).
    public var editsFinished: Bool {
        proposals.isEmpty && heldForSave.isEmpty && heldForCatchUp.isEmpty && inFlight == nil && open.isEmpty
            && !file.writeInFlight
    }

    /// Keeps `records`, durable now; `book` is the lists after the last of them.
    mutating func keep(_ records: [ChangeRecord], book: ListBook) {
        for record in records {
            do throws(RedoError) {
                try history.append(record, after: record.revision == book.revision ? book : nil)
            } catch {
                // A record that does not fit starts the history afresh (as the hub's does).
                history = ChangeHistory(base: book, limit: history.limit)
            }
        }
    }

    /// The lists a first start found (in no log) are the base of the history.
    mutating func startHistory(from base: ListBook) {
        guard history.records.isEmpty else { return }
        history = ChangeHistory(base: base, limit: history.limit)
    }

    // MARK: Client proposals


    /// The same, with what the client said of an edit made away from listd (`ClientEdit`).
    mutating func propose(_ id: Int, _ request: ClientEdit, at time: Timestamp) -> [CoreAction] {
        var actions: [CoreAction] = []
        guard accepting else { return [.reply(id, .failure(.shuttingDown))] }
        let needed = request.edit.neededRight
        guard request.rights.contains(needed) else {
            let error = ListError.notPermitted(needed: needed, held: request.rights)
            let list = request.edit.target.flatMap { try? working.list($0) }
            return [.journal(.denied(error, edit: request.edit, origin: request.origin, list: list)), .reply(id, .failure(.denied(error)))]
        }
        if let editId = request.editId {
            // A resend: answered as the first was; the edit is not applied again.
            if let applied = request.appliedAt {
                let target = request.edit.target ?? .name(request.edit.proposedName ?? "")
                guard let list = try? working.list(target) else { return [.reply(id, .failure(.denied(.listNotFound(target))))] }
                return [.reply(id, .success(EditOutcome(list: list, revision: applied)))]
            }
            if let first = editsUnderWay[editId], first != id {
                resends[first, default: []].append(id)
                return []
            }
            editsUnderWay[editId] = id
        }
        if !file.settle.isSettled || file.unreadEvents {
            // A person's save came first (or may have: the kernel reported events of the file
            // before this edit that are not read yet): the edit waits until the save is read,
            // and goes behind it.
            file.saveUnderway = true
        }
        if file.saveUnderway {
            heldForSave.append((id, request))
            return []
        }
        guard let key = request.edit.gateKey(in: working) else {
            // No such list: denied by the rules, behind nothing (unless the file is unreadable).
            decide(id, Proposal(request, key: ""), at: time, into: &actions)
            return actions
        }
        proposals[id] = Proposal(request, key: key)
        queues[key, default: []].append(.proposal(id))
        if queues[key]?.count == 1 { advance(key, at: time, into: &actions) }
        return actions
    }

    /// The delegates' verdict on a question.
    mutating func answered(_ asker: Asker, _ verdict: DelegateVerdict, at time: Timestamp) -> [CoreAction] {
        guard asking.remove(asker) != nil else { return [] }  // a superseded save's question
        var actions: [CoreAction] = []
        switch asker {
        case .proposal(let id):
            guard let proposal = proposals[id] else { return [] }
            // Only an edit that raises a question is asked about, so only such an edit is denied.
            if verdict.denied, let question = DelegateQuestion(proposal.edit) {
                announceRefusal(question, of: proposal.edit, verdict: verdict, origin: proposal.origin, into: &actions)
                settle(id, .failure(.deniedByDelegate(verdict.denials, timedOut: verdict.timedOut)), into: &actions)
            } else {
                apply(id, proposal, at: time, into: &actions)
            }
            finish(id, key: proposal.key, at: time, into: &actions)
        case .proposalPart(let id, let part):
            guard var proposal = proposals[id] else { return [] }
            proposal.unansweredParts -= 1
            if verdict.denied, let question = DelegateQuestion(proposal.parts[part]) {
                let item = proposal.partItems[part]
                proposal.refused.insert(ListText.key(item))
                proposal.kept.append(KeptItem(item: item, denials: verdict.denials, timedOut: verdict.timedOut))
                announceRefusal(question, of: proposal.parts[part], verdict: verdict, origin: proposal.origin, into: &actions)
            }
            proposals[id] = proposal
            guard proposal.unansweredParts == 0 else { return actions }
            proposal.edit = proposal.edit.leavingOut(proposal.refused)
            proposal.kept.sort { $0.item < $1.item }
            apply(id, proposal, at: time, into: &actions)
            finish(id, key: proposal.key, at: time, into: &actions)
        case .saveEdit(let saveID, let index):
            guard save?.id == saveID else { return [] }
            record(verdict, forSaveEdit: index, at: time, into: &actions)
        }
        return actions
    }

    /// `didDenyChange` subscribers and the journal hear that delegates refused `edit`.
    private func announceRefusal(
        _ question: DelegateQuestion,
        of edit: ListEdit,
        verdict: DelegateVerdict,
        origin: ChangeOrigin,
        into actions: inout [CoreAction]
    ) {
        let list = edit.target.flatMap { try? working.list($0) }
        let params = DelegateQuestionParams(edit, list: list, origin: origin, revision: working.revision)
        actions.append(
            .announceDenial(
                DeniedChangeParams(question: question, proposal: params, denials: verdict.denials, timedOut: verdict.timedOut)
            )
        )
        actions.append(.journal(.deniedByDelegates(question, verdict: verdict, origin: origin, list: list)))
    }

    /// Puts each item of an edit of several items to the delegates that want it; false when none
    /// does (the rules alone decide it) or the rules deny it or it changes nothing.
    private mutating func askAboutParts(_ id: Int, _ parts: [ListEdit], at time: Timestamp, into actions: inout [CoreAction]) -> Bool {
        guard var proposal = proposals[id] else { return false }
        let list = proposal.edit.target.flatMap { try? working.list($0) }
        let asked = parts.indices.compactMap { index -> (Int, DelegateQuestion)? in
            guard let question = DelegateQuestion(parts[index]),
                panel.wants(question, list: list?.id, name: nil)
            else { return nil }
            return (index, question)
        }
        guard !asked.isEmpty else { return false }
        var trial = working
        guard case .some(.some) = try? trial.apply(proposal.edit, ifRevision: proposal.ifRevision, at: time, origin: proposal.origin)
        else { return false }
        proposal.parts = parts
        proposal.partItems = parts.map { DelegateQuestionParams($0, list: nil, origin: proposal.origin, revision: 0).item ?? "" }
        proposal.unansweredParts = asked.count
        proposals[id] = proposal
        for (index, question) in asked {
            let params = DelegateQuestionParams(parts[index], list: list, origin: proposal.origin, revision: working.revision)
            asking.insert(.proposalPart(id, part: index))
            actions += ask(.proposalPart(id, part: index), question, params, list: list?.id, name: nil)
        }
        return true
    }

    /// Decides the first entry of `key`'s queue, and the ones after it that need no question.
    mutating func advance(_ key: String, at time: Timestamp, into actions: inout [CoreAction]) {
        while let head = queues[key]?.first {
            switch head {
            case .proposal(let id):
                guard !asking.contains(.proposal(id)), var proposal = proposals[id], proposal.parts.isEmpty else { return }
                if let base = proposal.base {
                    // A clear made on older lists clears what was ticked then and still is; an
                    // add of what was added meanwhile gives it the amount or section it says.
                    var merge = SaveMerge(base, now: working)
                    proposal.edit = merge.narrowed(proposal.edit)
                    if case .doneBut(let rest)? = merge.alreadyDone(proposal.edit) { proposal.edit = rest }
                    proposals[id] = proposal
                }
                if Self.merged(proposal, on: working) != nil {
                    // Done already, or changed meanwhile: decided without asking anyone.
                    proposals[id] = nil
                    decide(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if proposal.vetted {
                    proposals[id] = nil
                    apply(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if file.invalidOffset == nil, let parts = proposal.edit.parts(on: working) {
                    if askAboutParts(id, parts, at: time, into: &actions) { return }
                    // No delegate wants any of its items, or the rules decide it.
                    proposals[id] = nil
                    apply(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if file.invalidOffset == nil, let question = DelegateQuestion(proposal.edit) {
                    let list = proposal.edit.target.flatMap { try? working.list($0).id }
                    guard panel.wants(question, list: list, name: proposal.edit.proposedName) else {
                        // No delegate wants it: decided by the rules as it is applied.
                        proposals[id] = nil
                        apply(id, proposal, at: time, into: &actions)
                        queues[key]?.removeFirst()
                        continue
                    }
                    if let question = vet(
                        proposal.edit,
                        proposal.ifRevision,
                        origin: proposal.origin,
                        on: working,
                        at: time
                    ) {
                        asking.insert(.proposal(id))
                        actions += ask(.proposal(id), question.0, question.1, list: question.1.list?.id, name: question.1.name)
                        return
                    }
                }
                // Denied by a rule, or it changes nothing: decided without asking anyone.
                proposals[id] = nil
                decide(id, proposal, at: time, into: &actions)
                queues[key]?.removeFirst()
            case .save(let saveID):
                guard save?.id == saveID else {
                    queues[key]?.removeFirst()
                    continue
                }
                // The save holds this queue until it is taken in.
                advanceSave(key, at: time, into: &actions)
                completeSaveIfDecided(at: time, into: &actions)
                return
            }
        }
        queues[key] = nil
    }

    /// The question `edit` puts to delegates, or nil when the rules decide it (denied, or no
    /// change): checked on `book`, the lists as they will be when it is applied.
    func vet(
        _ edit: ListEdit,
        _ ifRevision: Revision?,
        origin: ChangeOrigin,
        on book: ListBook,
        at time: Timestamp
    )
        -> (DelegateQuestion, DelegateQuestionParams)?
    {
        guard file.invalidOffset == nil, let question = DelegateQuestion(edit) else { return nil }
        var trial = book
        guard case .some(.some) = try? trial.apply(edit, ifRevision: ifRevision, at: time, origin: origin) else {
            return nil
        }
        let list = edit.target.flatMap { try? book.list($0) }
        return (
            question, DelegateQuestionParams(edit, list: list, origin: origin, revision: book.revision)
        )
    }

    /// A proposal decided by the rules alone, on the lists as they will be.
    private mutating func decide(_ id: Int, _ proposal: Proposal, at time: Timestamp, into actions: inout [CoreAction]) {
        let (edit, ifRevision, origin) = (proposal.edit, proposal.ifRevision, proposal.origin)
        if let offset = file.invalidOffset {
            settle(id, .failure(.fileInvalid(path: filePath, line: file.invalidLine, byteOffset: offset)), into: &actions)
            return
        }
        var trial = working
        do throws(ListError) {
            switch Self.merged(proposal, on: working) {
            case .failure(let error)?: throw error
            // Done already (an add made on older lists of what was added meanwhile): confirmed
            // as it stands, without applying it again.
            case .success?: break
            case nil: _ = try trial.apply(edit, ifRevision: ifRevision, at: time, origin: origin)
            }
            caughtUpProposals.remove(id)
            settle(id, .success(EditOutcome(list: try working.list(edit.target ?? .name(edit.proposedName ?? "")))), into: &actions)
        } catch {
            if catchesUpBeforeDenying, caughtUpProposals.remove(id) == nil {
                // Perhaps only because another machine's change has not reached this one yet.
                holdForCatchUp((id, proposal.request), into: &actions)
                return
            }
            let list = edit.target.flatMap { try? working.list($0) }
            actions.append(.journal(.denied(error, edit: edit, origin: origin, list: list)))
            settle(id, .failure(.denied(error)), into: &actions)
        }
    }

    /// Applies an allowed proposal to `working` (rules checked again: another list may have
    /// taken its name meanwhile); it is confirmed once durable.
    private mutating func apply(_ id: Int, _ proposal: Proposal, at time: Timestamp, into actions: inout [CoreAction]) {
        let caughtUp = caughtUpProposals.remove(id) != nil
        do throws(ListError) {
            switch Self.merged(proposal, on: working) {
            case .failure(let error)?: throw error
            case .success?:
                settle(id, .success(EditOutcome(list: try working.list(proposal.edit.target ?? .name(proposal.edit.proposedName ?? "")))), into: &actions)
                return
            case nil: break
            }
            guard
                var (change, record) = try working.applyRecorded(
                    proposal.edit,
                    ifRevision: proposal.ifRevision,
                    at: time,
                    origin: proposal.origin
                )
            else {
                let list = try working.list(proposal.edit.target ?? .name(proposal.edit.proposedName ?? ""))
                settle(id, .success(EditOutcome(list: list, kept: proposal.kept)), into: &actions)
                return
            }
            change.undoes = proposal.undoes
            record.undoes = proposal.undoes
            record.editId = proposal.editId
            open.entries.append(.change(record))
            open.changes.append(change.withoutItems)
            open.replies.append((id, .success(EditOutcome(list: change.list, kept: proposal.kept, revision: change.revision, steps: change.steps))))
            open.retries.append((id, proposal))
            file.markDirty()
        } catch {
            // A retry after another machine got ahead (`vetted`) was decided on caught-up lists.
            if catchesUpBeforeDenying, !caughtUp, !proposal.vetted {
                holdForCatchUp((id, proposal.request), into: &actions)
                return
            }
            let list = proposal.edit.target.flatMap { try? working.list($0) }
            actions.append(.journal(.denied(error, edit: proposal.edit, origin: proposal.origin, list: list)))
            settle(id, .failure(.denied(error)), into: &actions)
        }
    }

    /// Replies at once when nothing applied is waiting to be durable, else with the next batch
    /// (a reply never runs ahead of a change it was decided on).
    private mutating func settle(
        _ id: Int,
        _ outcome: Result<EditOutcome, EditFailure>,
        into actions: inout [CoreAction]
    ) {
        if inFlight == nil, open.entries.isEmpty {
            actions.append(.reply(id, outcome))
        } else {
            open.replies.append((id, outcome))
        }
    }

    private mutating func finish(_ id: Int, key: String, at time: Timestamp, into actions: inout [CoreAction]) {
        proposals[id] = nil
        if queues[key]?.first == .proposal(id) { queues[key]?.removeFirst() }
        advance(key, at: time, into: &actions)
    }
}
