// Group commit: the changes a pass applied go to the change log as one batch, one append at a
// time; once it is durable its changes are published and its edits confirmed, and when it
// fails none of them counts.
import ListModel

extension ListCore {
    /// What one append makes durable, and what is due once it is.
    package struct Batch {
        var entries: [LogEntry] = []
        /// Without their lists' items (`ListChange.withoutItems`): the full changes are rebuilt
        /// from the records by whoever needs them (the hub, for subscribers).
        var changes: [ListChange] = []
        var replies: [(Int, Result<EditOutcome, EditFailure>)] = []
        /// The proposals whose changes are in this batch, to be decided again if a shared store
        /// refuses it as behind (`appendBehind`).
        var retries: [(id: Int, proposal: Proposal)] = []
        var after: [CoreAction] = []
        /// The lists once this batch is durable: set when it is sent (`send`), not as edits are
        /// applied (holding the working lists would make every edit copy the list it changes).
        var book = ListBook()
        /// The list file's state before this batch took a save in (restored when it fails).
        var fileBefore: FileState?
        package var isEmpty: Bool { entries.isEmpty && replies.isEmpty && after.isEmpty }
    }

    /// The pass is over: the open batch goes to the log (when no append is under way).
    mutating func sendBatch() -> [CoreAction] {
        var actions: [CoreAction] = []
        send(into: &actions)
        return actions
    }

    private mutating func send(into actions: inout [CoreAction]) {
        guard inFlight == nil, !open.isEmpty else { return }
        if open.entries.isEmpty {
            // Nothing to make durable: what waited on earlier batches is due now.
            actions += open.replies.map { .reply($0.0, $0.1) }
            actions += open.after
            open = Batch()
            return
        }
        // The store is fetching or compacting: the batch waits (and grows) until it is done.
        guard !store.holdsAppends else { return }
        inFlight = open
        if let note = file.noteDue {
            // The file listd last wrote, noted with this append (`fileRendered`): first, since it
            // was written before any of the batch's changes were made (a person's save taken in
            // since logs its own `fileShows` in the batch, and a start takes the last one).
            inFlight!.entries.insert(note, at: 0)
            file.noteDue = nil
        }
        // The lists once it is durable: the working lists now (everything applied since the last
        // batch is in this one). Without their item keys, so the working lists' own stay unshared
        // (a shared set would be copied by the next edit).
        inFlight!.book = working.withoutItemKeys
        open = Batch()
        actions.append(.append(inFlight!.entries))
    }

    /// The append under way is durable.
    mutating func appended(now: ContinuousClock.Instant) -> [CoreAction] {
        guard let batch = inFlight else { return [] }
        inFlight = nil
        let before = durable
        durable = batch.book
        let records = batch.entries.compactMap { entry -> ChangeRecord? in
            if case .change(let record) = entry { return record } else { return nil }
        }
        keep(records, book: batch.book)
        var actions: [CoreAction] = [.publish(batch.changes, records: records, from: before)]
        actions += batch.changes.map { .journal(.applied($0)) }
        actions += batch.replies.map { .reply($0.0, $0.1) }
        actions += batch.after
        if !batch.changes.isEmpty {
            statusChanged()
            file.changedAt = now
        }
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    /// The append under way failed: none of its changes counts, nor any applied after them.
    /// `inDoubt` (a shared store's COMMIT that went unanswered): its changes may have been made
    /// after all, so its confirms are neither sent nor refused until `inDoubtResolved` says.
    mutating func appendFailed(_ error: DaemonError, inDoubt: Revision? = nil) -> [CoreAction] {
        guard let batch = inFlight else { return [] }
        inFlight = nil
        // The journal's entry comes first, once it is known how many edits are held in doubt.
        var actions: [CoreAction] = []
        let failure: EditFailure
        if case .shareUnavailable = error { failure = .unavailable("\(error)") } else { failure = .storageFailed("\(error)") }
        for (index, failed) in [batch, open].enumerated() {
            for (id, outcome) in failed.replies {
                // What was confirmed (or found unchanged) on lost changes fails; a denial stands.
                if case .success = outcome {
                    if let inDoubt, index == 0, failed.retries.contains(where: { $0.id == id }) {
                        heldInDoubt[inDoubt, default: []].append((id, outcome, failure))
                    } else {
                        actions.append(.reply(id, .failure(failure)))
                    }
                } else {
                    actions.append(.reply(id, outcome))
                }
            }
            actions += failed.after.filter { if case .announceRejection = $0 { return false } else { return true } }
        }
        let held = inDoubt.map { heldInDoubt[$0]?.count ?? 0 } ?? 0
        actions.insert(.journal(.storageFailed(error, edits: max(0, batch.changes.count + open.changes.count - held))), at: 0)
        if let inDoubt, held > 0 {
            actions.insert(.journal(.inDoubt(error, edits: held)), at: 1)
            actions.append(.boundDoubt(inDoubt, after: limits.inDoubtAnswerBound))
        }
        working = durable
        if let before = batch.fileBefore ?? open.fileBefore {
            // A save taken in is not in the lists after all: read it again (once the shared
            // lists' server is back, when that is what failed: `storeStatusChanged`). An append
            // on a connection lost before the last reconnection can fail after it: the server is
            // back already, and the save is read now, or it would wait for a reconnection that
            // has been.
            file.restoreShown(from: before)
            if case .shareUnavailable = error, !storeReachable { file.heldForStore = true }
            actions += requestRead()
        }
        open = Batch()
        return actions
    }
}
