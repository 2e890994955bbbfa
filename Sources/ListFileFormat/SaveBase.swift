// Which lists a save (or an edit made on older lists) is read against: the lists its author saw.
import ListModel

/// A save of the list file listd took in, as its text showed the lists: the person's editor still
/// holds it, and their next save from the same buffer is made from it, not from the revision its
/// headings name. Kept in memory only: after a restart such a save is read against the revision.
public struct FileVersion: Sendable {
    /// The `rev=` its headings carry (nil: none do).
    public var revision: Revision?
    /// The lists its text shows.
    public var book: ListBook

    public init(revision: Revision?, book: ListBook) {
        self.revision = revision
        self.book = book
    }
}

/// What a save is read against: the lists the person's editor read.
///
/// - A save whose headings name a revision the history keeps (`rev=`, on disk, across restarts)
///   is read against the lists at that revision, rebuilt from the history — or, when its text is
///   closer to the last save taken in from that revision (the same person saving again from one
///   buffer), against that save. Another person's save is never its base: theirs differs from
///   it by both people's edits, the revision by its own only.
/// - A save with no usable revision (its notes stripped by a tool, a backup older than the
///   history, another machine's file) is matched by content to the kept lists closest to it,
///   and whatever it shows that was taken off or renamed within the history is not brought back
///   (`removed`).
/// - When no kept lists are close, it is read against the newest, and only what cannot undo
///   anything is taken from it.
public struct SaveBase: Sendable {
    public enum Kind: Sendable, Equatable {
        /// The lists at the revision its headings name, or the person's own save from it.
        case revision
        /// The kept lists closest to it by content, at `revision`.
        case closest(revision: Revision)
        /// Nothing kept is close: the newest lists; additions and ticks only.
        case unrelated
    }

    public var book: ListBook
    public var kind: Kind
    /// What was taken off or renamed within the history and is not on the lists now: a base
    /// found by content may predate it, and the save must not bring it back. Empty for `revision`.
    public var removed: RemovedWithinHistory

    public init(book: ListBook, kind: Kind, removed: RemovedWithinHistory = RemovedWithinHistory()) {
        self.book = book
        self.kind = kind
        self.removed = removed
    }

    /// False: nothing kept is close to the copy (`unrelated`).
    public var known: Bool { kind != .unrelated }

    /// How many lines a copy may differ from the closest kept lists and still be read against
    /// them: a quarter of its lines, at least three.
    static func isClose(_ distance: Int, lines: Int) -> Bool { distance <= max(3, lines / 4) }

    /// The base of `reading` (see the type's comment). `history`: the kept changes (nil when
    /// there are none to read, as in tests of the file alone); `saves`: the saves taken in that
    /// the person's editors may still hold; `newest`: the lists the file last showed.
    public static func base(
        for reading: ListFileReading,
        history: ChangeHistory?,
        saves: [FileVersion],
        newest: ListBook
    ) -> SaveBase {
        if let revision = reading.shownRevision {
            let atRevision: ListBook? =
                if let history { (try? history.book(at: revision)) ?? nil } else { revision == newest.revision ? newest : nil }
            if let atRevision {
                // The last save made from that revision is a person saving again from the same
                // buffer when the text is closer to it (each save from one buffer supersedes the
                // one before, so only the last counts; a tie goes to the revision).
                if let own = saves.last(where: { $0.revision == revision }),
                    distance(reading, own.book) < distance(reading, atRevision)
                {
                    return SaveBase(book: own.book, kind: .revision)
                }
                return SaveBase(book: atRevision, kind: .revision)
            }
            // Without a history, the saves filed under its revision are all there is to go by.
            if history == nil, let own = saves.last(where: { $0.revision == revision }) {
                return SaveBase(book: own.book, kind: .revision)
            }
        }
        return closest(to: reading, history: history, saves: saves, newest: newest)
    }

    /// A copy with no usable revision: the kept lists closest to it by content.
    static func closest(to reading: ListFileReading, history: ChangeHistory?, saves: [FileVersion], newest: ListBook) -> SaveBase {
        let lines = reading.sections.reduce(0) { $0 + $1.items.count + 1 }
        var best = (book: newest, distance: distance(reading, newest))
        func consider(_ book: ListBook) {
            let distance = distance(reading, book)
            if distance < best.distance { best = (book, distance) }
        }
        for save in saves { consider(save.book) }
        var removed = RemovedWithinHistory()
        if let history {
            // Coarse: the base and every checkpoint; then every revision around the closest.
            consider(history.base)
            for checkpoint in history.checkpoints { consider(checkpoint) }
            let around = best.book.revision
            let from = max(history.base.revision, around - ChangeHistory.checkpointSpacing)
            let to = around + ChangeHistory.checkpointSpacing
            try? history.forEachRevision(from: from) { book, _, _ in
                consider(book)
                return book.revision < to
            }
            removed = RemovedWithinHistory(history, now: newest)
        }
        guard isClose(best.distance, lines: lines) else {
            return SaveBase(book: newest, kind: .unrelated, removed: removed)
        }
        return SaveBase(book: best.book, kind: .closest(revision: best.book.revision), removed: removed)
    }

    /// How many lines `reading` differs from `book` in: items one has and the other has not,
    /// ticks that differ, headings renamed, whole lists one has and the other has not.
    static func distance(_ reading: ListFileReading, _ book: ListBook) -> Int {
        var distance = 0
        var seen: Set<ListID> = []
        for section in reading.sections {
            guard let id = section.id, let list = try? book.list(.id(id)) else {
                distance += section.items.count + 1
                continue
            }
            seen.insert(id)
            var common = 0
            for item in section.items {
                if list.items.contains(item.text) {
                    common += 1
                    if list.isChecked(item.text) != item.checked { distance += 1 }
                } else {
                    distance += 1
                }
            }
            distance += list.items.count - common
            if list.name != section.name { distance += 1 }
        }
        for list in book.lists where !seen.contains(list.id) { distance += list.items.count + 1 }
        return distance
    }
}

/// The items and lists the kept history took off or renamed that are not on the lists now, with
/// who did it and when: what a copy read against lists older than its own must not bring back.
public struct RemovedWithinHistory: Sendable {
    public struct Removal: Sendable, Hashable {
        /// The text as it was on the list.
        public var text: String
        /// What it became, when it was renamed (nil: taken off).
        public var renamedTo: String?
        public var origin: ChangeOrigin
        public var time: Timestamp
    }

    /// Per list, by item key.
    public private(set) var items: [ListID: [String: Removal]] = [:]
    /// Deleted or renamed lists, by name key.
    public private(set) var lists: [String: Removal] = [:]

    public init() {}

    /// Walks `history` once; what `now` has again is left out.
    public init(_ history: ChangeHistory, now: ListBook) {
        try? history.forEachRevision { _, record, change in
            guard let record, let change else { return true }
            let removal = { (text: String, renamedTo: String?) in
                Removal(text: text, renamedTo: renamedTo, origin: record.origin, time: record.time)
            }
            switch change.kind {
            case .deleted:
                lists[ListText.key(change.list.name)] = removal(change.list.name, nil)
            case .renamed:
                for case .rename(let from, let to) in change.steps { lists[ListText.key(from)] = removal(from, to) }
            case .created, .updated:
                for step in change.steps {
                    switch step {
                    case .remove(let item): items[change.list.id, default: [:]][ListText.key(item)] = removal(item, nil)
                    case .replace(let item, let with):
                        if ListText.key(item) != ListText.key(with) {
                            items[change.list.id, default: [:]][ListText.key(item)] = removal(item, with)
                        }
                    default: break
                    }
                }
            }
            return true
        }
        // Taken off, then put back (or added again): it is on the lists, nothing to guard.
        for (id, removals) in items {
            guard let list = try? now.list(.id(id)) else {
                items[id] = nil
                continue
            }
            items[id] = removals.filter { list.index(ofItem: $0.value.text) == nil }
        }
        lists = lists.filter { (try? now.list(.name($0.value.text))) == nil }
    }

    public var isEmpty: Bool { items.isEmpty && lists.isEmpty }

    /// The removal of `item` from list `id`, when it is one.
    public func item(_ item: String, on id: ListID) -> Removal? { items[id]?[ListText.key(item)] }

    /// The deletion or rename of the list named `name`, when it is one.
    public func list(named name: String) -> Removal? { lists[ListText.key(name)] }
}

extension RemovedWithinHistory.Removal {
    /// Who made it and when, as a sentence goes on: "by listctl on 2026-11-27 at 10:02 UTC".
    public var byWhomAndWhen: String {
        let who: String =
            switch origin {
            case .client(let pid, _, let name): name ?? "a client (pid \(pid))"
            case .file(nil): "an edit of the list file"
            case .file(let host?): "an edit of the list file on \(host)"
            }
        let stamp = time.rfc3339
        let day = stamp.prefix(10)
        let minute = stamp.dropFirst(11).prefix(5)
        return "by \(who) on \(day) at \(minute) UTC"
    }
}
