// What the core has the store do besides appends — fetch what other machines committed, compact
// the log — and when: one thing at a time, appends first, decided at the end of each pass.
import ListModel

/// The store's work besides appends, as the core decides it.
struct StoreWork: Sendable {
    /// Other machines may have committed changes this listd has not taken in (a wake-up, an
    /// append in doubt found made, a fetch overtaken).
    var remoteDue = false
    /// Client edits the rules denied wait for the next fetch (`heldDenials`).
    var denialFetchDue = false
    var fetching = false
    /// The fetch under way was asked for by denials: they are decided again once it is in.
    var fetchCoversDenials = false
    /// The store said enough was appended that the log should be compacted.
    var compactionDue = false
    var compacting = false

    /// An append must wait: the store is busy with a fetch or a compaction.
    var holdsAppends: Bool { fetching || compacting }
}

extension ListCore {
    /// At the end of a pass: a compaction when one is due and the file may be named (before the
    /// next append, which then waits for it); then the batch; then a fetch, when nothing of this
    /// listd's is on its way (an append refused as behind brings others' changes along anyway).
    mutating func passEnded() -> [CoreAction] {
        var actions: [CoreAction] = []
        if store.compactionDue, !store.holdsAppends, inFlight == nil, snapshotMayNameFile {
            store.compactionDue = false
            store.compacting = true
            actions.append(.compact)
        }
        actions += sendBatch()
        if store.remoteDue, !store.holdsAppends, canTakeRemote {
            store.remoteDue = false
            store.fetching = true
            store.fetchCoversDenials = store.denialFetchDue
            store.denialFetchDue = false
            if store.fetchCoversDenials { denialFetchBegan() }
            actions.append(.fetchRemote(after: durable.revision))
        }
        return actions
    }

    /// The fetch brought `remote` (none, perhaps): taken in, and the denials it covered decided
    /// again. Overtaken (this listd appended meanwhile): fetched again, for the same denials.
    mutating func fetched(_ remote: [RemoteChange], now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        store.fetching = false
        let forDenials = store.fetchCoversDenials
        store.fetchCoversDenials = false
        var actions: [CoreAction] = []
        if !remote.isEmpty {
            guard let taken = remoteCommitted(remote, now: now) else {
                store.remoteDue = true
                store.denialFetchDue = store.denialFetchDue || forDenials
                return []
            }
            actions = taken
        }
        return forDenials ? actions + denialFetchDone(at: time) : actions
    }

    /// The store could not be asked: the denials the fetch covered stand as any edit's do while
    /// the server is gone. The next wake-up (the connection made again) fetches.
    mutating func fetchFailed(_ failure: EditFailure) -> [CoreAction] {
        store.fetching = false
        let forDenials = store.fetchCoversDenials
        store.fetchCoversDenials = false
        return forDenials ? denialFetchFailed(failure) : []
    }
}
