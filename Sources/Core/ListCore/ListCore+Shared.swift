// Lists shared with other machines (`--share`): changes committed elsewhere are taken in, and an
// append that others got ahead of is decided again on the lists their changes leave.
import ListModel

extension ListCore {
    /// Whether changes committed elsewhere can be taken in now: nothing of this listd's own is
    /// on its way to the store (it would be refused as behind, and bring them along), and no
    /// person's save is being taken in.
    package var canTakeRemote: Bool {
        mutating get { inFlight == nil && open.entries.isEmpty && save == nil }
    }

    /// Changes another machine committed after `durable`, in order: they become durable here as
    /// they are, published and journalled as such, and the list file follows. Nil when they do
    /// not follow the durable lists (a fetch that something else overtook): fetch again.
    mutating func remoteCommitted(_ remote: [RemoteChange], now: ContinuousClock.Instant) -> [CoreAction]? {
        guard canTakeRemote else { return nil }
        guard let first = remote.first else { return [] }
        guard first.record.revision == durable.revision + 1 else { return nil }
        var actions: [CoreAction] = []
        guard take(remote, into: &actions) else { return nil }
        working = durable
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    /// The append under way was refused: `remote` were committed first (from its base on).
    /// They are taken in, and every edit this listd applied since the durable lists (in the
    /// refused append and in the open batch) is decided again, in order and ahead of anything
    /// still waiting, by the rules on the lists as they are now. Delegates already allowed them
    /// and are not asked again. A person's save among them is read again.
    mutating func appendBehind(_ remote: [RemoteChange], now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        guard let batch = inFlight else { return [] }
        var actions: [CoreAction] = []
        guard take(remote, into: &actions) else {
            // Not a continuation of what this listd has: nothing it decided counts.
            let first = remote.first?.record.revision ?? durable.revision + 1
            return appendFailed(.shareDamaged(server: "the database", revision: first, detail: "it does not follow revision \(durable.revision)"))
        }
        inFlight = nil
        let failed = [batch, open]
        open = Batch()
        working = durable
        var retried: [GateKey: [QueueEntry]] = [:]
        var retriedIDs: Set<Int> = []
        for part in failed {
            for (id, proposal) in part.retries {
                var again = proposal
                again.vetted = true
                proposals[id] = again
                retried[proposal.key, default: []].append(.proposal(id))
                retriedIDs.insert(id)
            }
        }
        for part in failed {
            // Denials, and edits found to change nothing, stand: they are answered now.
            for (id, outcome) in part.replies where !retriedIDs.contains(id) {
                actions.append(.reply(id, outcome))
            }
            for action in part.after {
                switch action {
                case .replaceFile:
                    // Its note was not made durable: that file is not written; the lists are,
                    // as they are now.
                    file.writeInFlight = false
                    file.markDirty()
                case .announceRejection, .journal(.fileRejected):
                    break  // the save is read again, and what it breaks is said then
                default:
                    actions.append(action)
                }
            }
        }
        if let before = batch.fileBefore ?? failed[1].fileBefore {
            file = before
            file.bytes = nil
            file.markDirty()
            actions += requestRead()
        }
        for (key, entries) in retried {
            queues[key] = entries + (queues[key] ?? [])
            advance(key, at: time, into: &actions)
        }
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    /// The connection to the shared lists' server was lost, or made again: once it is back, a
    /// person's save that waited for it is read.
    mutating func storeStatusChanged(connected: Bool, now: ContinuousClock.Instant) -> [CoreAction] {
        storeReachable = connected
        statusChanged()
        guard connected, file.heldForStore else { return [] }
        file.heldForStore = false
        file.readWanted = false
        var actions = requestRead()
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    /// Whether the append in doubt that began at `revision` was made: its confirms are sent
    /// (once the lists here include it: read your writes) or refused with the failure it met.
    mutating func inDoubtResolved(_ revision: Revision, made: Bool) -> [CoreAction] {
        guard let held = heldInDoubt.removeValue(forKey: revision) else { return [] }
        guard made else { return held.map { .reply($0.id, .failure($0.failure)) } }
        let last = held.compactMap { try? $0.outcome.get().revision }.max() ?? revision
        confirmsAwaitingRevision += held.map { (last, $0.id, $0.outcome) }
        return releaseConfirms()
    }

    /// The edits still held for the appends in doubt that began at `revisions` are told their
    /// outcome is not known (`why`); what the check finds later reaches them as the lists do.
    mutating func inDoubtUnanswered(_ revisions: [Revision], why: String) -> [CoreAction] {
        let replies = revisions.sorted().flatMap { revision in
            (heldInDoubt.removeValue(forKey: revision) ?? []).map { CoreAction.reply($0.id, .failure(.outcomeUnknown(why))) }
        }
        return replies.isEmpty ? [] : [.journal(.outcomeUnknown(edits: replies.count, why: why))] + replies
    }

    /// At a stop, the confirms of appends found made that still wait for the lists here to
    /// include them: they were made, so they are sent.
    mutating func confirmsAtStop() -> [CoreAction] {
        defer { confirmsAwaitingRevision = [] }
        return confirmsAwaitingRevision.map { .reply($0.id, $0.outcome) }
    }

    /// The confirms found made whose changes the durable lists now include.
    private mutating func releaseConfirms() -> [CoreAction] {
        let due = confirmsAwaitingRevision.filter { $0.revision <= durable.revision }
        confirmsAwaitingRevision.removeAll { $0.revision <= durable.revision }
        return due.map { .reply($0.id, $0.outcome) }
    }

    /// Redoes `remote` on the durable lists and says so; false when they do not follow them.
    private mutating func take(_ remote: [RemoteChange], into actions: inout [CoreAction]) -> Bool {
        guard !remote.isEmpty else { return true }
        let before = durable
        var book = durable
        var changes: [ListChange] = []
        for change in remote {
            guard let redone = try? book.redo(change.record) else { return false }
            changes.append(redone)
            actions.append(.journal(.remote(redone, machine: change.machine)))
        }
        durable = book
        keep(remote.map(\.record), book: durable)
        file.markDirty()
        actions.insert(
            .publish(changes.map(\.withoutItems), records: remote.map(\.record), from: before),
            at: 0
        )
        statusChanged()
        actions += releaseConfirms()
        return true
    }

    // MARK: A denial decided on caught-up lists

    /// A client's edit the rules deny waits for a fetch of what the database holds (see `fetchesBeforeDenying`).
    mutating func holdDenial(
        _ held: (id: Int, request: ClientEdit),
        into actions: inout [CoreAction]
    ) {
        heldDenials.append(held)
        store.denialFetchDue = true
        store.remoteDue = true
    }

    /// The fetch for `heldDenials` begins: it covers the edits held so far.
    mutating func denialFetchBegan() {
        coveredByFetch = heldDenials.count
    }

    /// This listd has taken in everything the database had committed when the fetch began: the
    /// edits held before it are decided again (delegates asked, if the rules allow them now),
    /// and a denial of them stands. Edits held since wait for another fetch.
    mutating func denialFetchDone(at time: Timestamp) -> [CoreAction] {
        let covered = heldDenials.prefix(coveredByFetch)
        heldDenials.removeFirst(coveredByFetch)
        coveredByFetch = 0
        if !heldDenials.isEmpty { store.denialFetchDue = true; store.remoteDue = true }
        var actions: [CoreAction] = []
        for held in covered {
            decidedAfterFetch.insert(held.id)
            actions += propose(held.id, held.request, at: time)
        }
        return actions
    }

    /// The database could not be asked: the edits held before the fetch are denied as any edit
    /// is while the server is gone.
    mutating func denialFetchFailed(_ failure: EditFailure) -> [CoreAction] {
        let covered = heldDenials.prefix(coveredByFetch)
        heldDenials.removeFirst(coveredByFetch)
        coveredByFetch = 0
        let actions: [CoreAction] = covered.map { .reply($0.id, .failure(failure)) }
        if !heldDenials.isEmpty { store.denialFetchDue = true; store.remoteDue = true }
        return actions
    }
}
