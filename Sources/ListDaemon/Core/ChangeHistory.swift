import ListModel

/// The last changes, kept small: the lists as they were before the oldest kept change (`base`)
/// and each change after it as a `ChangeRecord`. Any kept change's full form (the list after it,
/// as subscribers are told) is rebuilt by redoing the records on the base, so memory and the
/// change log grow with the changes, never with the lists' length.
struct ChangeHistory: Sendable {
    /// The lists before the first kept record.
    private(set) var base: ListBook
    private(set) var records: [ChangeRecord] = []
    /// How many changes are always kept; up to twice as many are, so trimming is rare.
    let limit: Int

    init(base: ListBook, limit: Int) {
        self.base = base
        self.limit = max(limit, 1)
    }

    /// The revision of the oldest change kept, nil when none is.
    var oldest: Revision? { records.first?.revision }
    var newest: Revision { records.last?.revision ?? base.revision }

    /// Keeps `record` (the next change after the newest); trims the oldest once twice the limit
    /// are kept.
    mutating func append(_ record: ChangeRecord) throws(RedoError) {
        records.append(record)
        if records.count >= 2 * limit { try trim(keeping: limit) }
    }

    /// Moves the base forward so that only the last `count` records stay.
    mutating func trim(keeping count: Int) throws(RedoError) {
        let dropped = max(records.count - count, 0)
        guard dropped > 0 else { return }
        for record in records[..<dropped] { try base.redo(record) }
        records.removeFirst(dropped)
    }

    /// Whether every change after `since` is kept (none is missing when nothing changed since).
    func covers(since: Revision) -> Bool {
        let newest = newest
        guard since <= newest else { return false }
        return since == newest || since >= base.revision
    }

    /// Every kept change after `since`, in full, oldest first.
    func changes(after since: Revision) throws(RedoError) -> [ListChange] {
        var book = base
        var changes: [ListChange] = []
        for record in records {
            let change = try book.redo(record)
            if record.revision > since { changes.append(change) }
        }
        return changes
    }

    /// The kept record of the change right after `revision` (nil when it is not kept, or none
    /// came yet): a lagging subscriber's next change, found without a search.
    func record(after revision: Revision) -> ChangeRecord? {
        guard let first = records.first, revision + 1 >= first.revision else { return nil }
        let index = revision + 1 - first.revision
        return index < records.count ? records[index] : nil
    }

    /// The kept change that carried the client's edit id `editId`, if any: a resend of it.
    func revision(ofEdit editId: String) -> Revision? {
        records.last { $0.editId == editId }?.revision
    }

    /// The lists at `revision` (nil when it is not kept): where a subscriber that resumes starts.
    func book(at revision: Revision) throws(RedoError) -> ListBook? {
        guard covers(since: revision) else { return nil }
        var book = base
        for record in records where record.revision <= revision { _ = try book.redo(record) }
        return book
    }

    /// Every kept change after `since`, oldest first, without the lists' items (what history
    /// lists: so no change holds a copy of its list while the next ones are redone).
    func summaries(after since: Revision) throws(RedoError) -> [ListChange] {
        var book = base
        var changes: [ListChange] = []
        for record in records {
            let change = try book.redo(record).withoutItems
            if record.revision > since { changes.append(change) }
        }
        return changes
    }

    /// The id of the list a name means in the history: the list that has it now (in `current`),
    /// else the last one that had it in a kept change, or in the base.
    func listID(named name: String, current: ListBook) -> ListID? {
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
    func undo(_ revision: Revision) throws(ListError) -> (edit: ListEdit, change: ListChange) {
        guard revision >= 1, revision <= newest else { throw .changeNotFound(revision: revision, newest: newest) }
        guard let first = records.first, revision >= first.revision else {
            throw .historyCompacted(revision: revision, oldestKept: oldest)
        }
        var book = base
        for record in records where record.revision < revision {
            guard (try? book.redo(record)) != nil else { throw .historyCompacted(revision: revision, oldestKept: oldest) }
        }
        let record = records[revision - first.revision]
        var after = book
        guard let change = try? after.redo(record), let edit = try? record.inverse(before: book) else {
            throw .historyCompacted(revision: revision, oldestKept: oldest)
        }
        return (edit, change.withoutItems)
    }
}
