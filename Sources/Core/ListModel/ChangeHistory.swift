/// The last changes, kept small: the lists as they were before the oldest kept change (`base`)
/// and each change after it as a `ChangeRecord`. Any kept change's full form (the list after it,
/// as subscribers are told) is rebuilt by redoing the records on the base, so memory and the
/// change log grow with the changes, never with the lists' length.
///
/// The lists at any kept revision are what a save of an old copy, a phone's queued edit and a
/// resuming subscriber are read against (`book(at:)`). So that finding them never redoes the
/// whole history, the lists are also kept every `checkpointSpacing` changes or so
/// (`checkpoints`): copies of a `ListBook` share all but what changed, so a checkpoint costs
/// what changed since the one before it.
package struct ChangeHistory: Sendable {
    /// The lists before the first kept record.
    package private(set) var base: ListBook
    package private(set) var records: [ChangeRecord] = []
    /// The lists at some kept revisions after the base, oldest first, at least
    /// `checkpointSpacing` changes apart.
    package private(set) var checkpoints: [ListBook] = []
    /// How many changes are always kept; up to twice as many are, so trimming is rare.
    package let limit: Int
    /// How many changes apart checkpoints are (at least): `book(at:)` redoes fewer than about
    /// twice this many records.
    package static let checkpointSpacing = 128

    package init(base: ListBook, limit: Int) {
        self.base = base
        self.limit = max(limit, 1)
    }

    /// The revision of the oldest change kept, nil when none is.
    package var oldest: Revision? { records.first?.revision }
    package var newest: Revision { records.last?.revision ?? base.revision }

    /// Keeps `record` (the next change after the newest); trims the oldest once twice the limit
    /// are kept. `after`: the lists right after it, when the caller has them (kept as a
    /// checkpoint when one is due: no record is redone for it).
    package mutating func append(_ record: ChangeRecord, after book: ListBook? = nil) throws(RedoError) {
        records.append(record)
        if let book, book.revision == record.revision,
            record.revision - (checkpoints.last?.revision ?? base.revision) >= Self.checkpointSpacing
        {
            checkpoints.append(book)
        }
        if records.count >= 2 * limit { try trim(keeping: limit) }
    }

    /// Moves the base forward so that only the last `count` records stay.
    package mutating func trim(keeping count: Int) throws(RedoError) {
        let dropped = max(records.count - count, 0)
        guard dropped > 0 else { return }
        let newBase = records[dropped - 1].revision
        if let checkpoint = checkpoints.last(where: { $0.revision <= newBase }) { base = checkpoint }
        for record in records[..<dropped] where record.revision > base.revision { try base.redo(record) }
        records.removeFirst(dropped)
        checkpoints.removeAll { $0.revision <= base.revision }
    }

    /// Whether every change after `since` is kept (none is missing when nothing changed since).
    package func covers(since: Revision) -> Bool {
        let newest = newest
        guard since <= newest else { return false }
        return since == newest || since >= base.revision
    }

    /// Every kept change after `since`, in full, oldest first.
    package func changes(after since: Revision) throws(RedoError) -> [ListChange] {
        var changes: [ListChange] = []
        try forEachRevision(from: max(since, base.revision)) { _, _, change in
            if let change { changes.append(change) }
            return true
        }
        return changes
    }

    /// The kept record of the change right after `revision` (nil when it is not kept, or none
    /// came yet): a lagging subscriber's next change, found without a search.
    package func record(after revision: Revision) -> ChangeRecord? {
        guard let first = records.first, revision + 1 >= first.revision else { return nil }
        let index = revision + 1 - first.revision
        return index < records.count ? records[index] : nil
    }

    /// The kept change that carried the client's edit id `editId`, if any: a resend of it.
    package func revision(ofEdit editId: String) -> Revision? {
        records.last { $0.editId == editId }?.revision
    }

    /// The lists at `revision` (nil when it is not kept): where a subscriber that resumes starts,
    /// and what a save or an edit made on that revision is merged against. Redone from the
    /// nearest checkpoint before it.
    package func book(at revision: Revision) throws(RedoError) -> ListBook? {
        guard covers(since: revision) else { return nil }
        var book = startingPoint(for: revision)
        guard book.revision < revision, let first = records.first else { return book }
        for record in records[(book.revision + 1 - first.revision)...] {
            guard record.revision <= revision else { break }
            _ = try book.redo(record)
        }
        return book
    }

    /// The newest kept lists at or before `revision`: a checkpoint, or the base.
    func startingPoint(for revision: Revision) -> ListBook {
        var low = 0
        var high = checkpoints.count
        while low < high {
            let middle = (low + high) / 2
            if checkpoints[middle].revision <= revision { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? base : checkpoints[low - 1]
    }

    /// Calls `body` with the lists at each kept revision from `from` on (the base's revision
    /// when nil), oldest first, with the change that made them (nil for the first); stops when
    /// `body` returns false. One pass of redos, for a walk through the whole history.
    package func forEachRevision(
        from: Revision? = nil,
        _ body: (_ book: ListBook, _ record: ChangeRecord?, _ change: ListChange?) -> Bool
    ) throws(RedoError) {
        let start = from ?? base.revision
        guard var book = try book(at: start) else { return }
        guard body(book, nil, nil), let first = records.first, start + 1 >= first.revision else { return }
        for record in records[(start + 1 - first.revision)...] {
            let change = try book.redo(record)
            guard body(book, record, change) else { return }
        }
    }

    /// Every kept change after `since`, oldest first, without the lists' items (what history
    /// lists: so no change holds a copy of its list while the next ones are redone).
    package func summaries(after since: Revision) throws(RedoError) -> [ListChange] {
        var changes: [ListChange] = []
        try forEachRevision(from: max(since, base.revision)) { _, _, change in
            if let change { changes.append(change.withoutItems) }
            return true
        }
        return changes
    }

    /// The id of the list a name means in the history: the list that has it now (in `current`),
    /// else the last one that had it in a kept change, or in the base.
    package func listID(named name: String, current: ListBook) -> ListID? {
        if let list = try? current.list(.name(name)) { return list.id }
        let key = ListText.key(name)
        var book = base
        var found = book.lists.first { ListText.key($0.name) == key }?.id
        for record in records {
            guard let change = try? book.redo(record) else { break }
            if ListText.key(change.list.name) == key { found = change.list.id }
            if case .renamed = change.kind, case .rename(let from, _)? = change.steps.first, ListText.key(from) == key {
                found = change.list.id
            }
        }
        return found
    }

    /// How to undo change `revision`: the inverse edit, and the change as it was.
    /// The change a person's "undo" means: the newest kept change that is not itself an undo,
    /// is not undone (an undo that was undone in turn undoes nothing), and was made by an author
    /// `madeBy` accepts. Undoing it and asking again so steps further back; an undo is undone by
    /// its revision. Nil when no kept change is left to undo.
    package func latestToUndo(madeBy: (ChangeOrigin) -> Bool = { _ in true }) -> Revision? {
        var undone: Set<Revision> = []
        for record in records.reversed() where !undone.contains(record.revision) {
            if let undoes = record.undoes {
                undone.insert(undoes)
            } else if madeBy(record.origin) {
                return record.revision
            }
        }
        return nil
    }

    package func undo(_ revision: Revision) throws(ListError) -> (edit: ListEdit, change: ListChange) {
        guard revision >= 1, revision <= newest else { throw .changeNotFound(revision: revision, newest: newest) }
        guard let first = records.first, revision >= first.revision else {
            throw .historyCompacted(revision: revision, oldestKept: oldest)
        }
        guard let before = try? book(at: revision - 1) else {
            throw .historyCompacted(revision: revision, oldestKept: oldest)
        }
        let record = records[revision - first.revision]
        var after = before
        guard let change = try? after.redo(record), let edit = try? record.inverse(before: before) else {
            throw .historyCompacted(revision: revision, oldestKept: oldest)
        }
        return (edit, change.withoutItems)
    }
}
