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

    /// The lists at `revision` (nil when it is not kept): where a subscriber that resumes starts.
    func book(at revision: Revision) throws(RedoError) -> ListBook? {
        guard covers(since: revision) else { return nil }
        var book = base
        for record in records where record.revision <= revision { _ = try book.redo(record) }
        return book
    }
}
