// What the change history did after the lists a save was made from: what the save must not
// bring back or undo.
import ListModel

/// What the kept history did after a save's base — items and lists taken off or renamed, ticks
/// changed, sections renamed — with who
/// did it and when: the diff3 "theirs" side, change by change, not only the net difference (an
/// item added and taken off again since is not on either side, yet a copy that shows it must not
/// bring it back; a tick made and taken back since is a change of the tick).
package struct ChangesSince: Sendable {
    package struct Change: Sendable, Hashable {
        /// The text as it was on the list.
        package var text: String
        /// What it became, when it was renamed (nil: taken off).
        package var renamedTo: String?
        package var origin: ChangeOrigin
        package var time: Timestamp
    }

    /// Items taken off or renamed, per list, by item key.
    package private(set) var removedItems: [ListID: [String: Change]] = [:]
    /// Lists deleted or renamed, by name key.
    package private(set) var removedLists: [String: Change] = [:]
    /// The items that went with a deleted list, by item key: the list's name and its deletion.
    package private(set) var itemsOfDeletedLists: [String: (list: String, change: Change)] = [:]
    /// Ticks and unticks, per list, by item key: the last one.
    package private(set) var ticks: [ListID: [String: (checked: Bool, change: Change)]] = [:]
    /// Sections renamed, per list, by the old name's key: the new name (a section's identity
    /// through its renames: an add under `## Dairy` goes to what Dairy is called now).
    package private(set) var sectionRenames: [ListID: [String: String]] = [:]
    /// Read from a history (else nothing is known of what happened since the base).
    package private(set) var isKnown = false

    package init() {}

    /// The newest revision taken into account.
    package private(set) var reaches: Revision = 0

    /// Walks `history` from `revision` on (the base's; nil: all of it) once.
    /// What is on the lists again (put back, added again) is the merge's to see, on the lists as
    /// they are when the save is taken in (`SaveMerge.now`).
    package init(_ history: ChangeHistory, from revision: Revision? = nil) {
        isKnown = true
        reaches = revision ?? history.base.revision
        walk(history, from: reaches)
    }

    /// Takes in what the history did after `reaches`: a save read off the owner's loop is taken
    /// in later, and what came meanwhile (another machine's change, a client's edit) counts too.
    package mutating func catchUp(with history: ChangeHistory) {
        guard isKnown, reaches < history.newest else { return }
        walk(history, from: reaches)
    }

    private mutating func walk(_ history: ChangeHistory, from revision: Revision) {
        try? history.forEachRevision(from: revision) { _, record, change in
            guard let record, let change else { return true }
            take(record, change)
            reaches = record.revision
            return true
        }
    }

    private mutating func take(_ record: ChangeRecord, _ change: ListChange) {
        let made = { (text: String, renamedTo: String?) in
            Change(text: text, renamedTo: renamedTo, origin: record.origin, time: record.time)
        }
        let id = change.list.id
        switch change.kind {
        case .deleted:
            removedLists[ListText.key(change.list.name)] = made(change.list.name, nil)
            for item in change.list.items { itemsOfDeletedLists[ListText.key(item)] = (change.list.name, made(item, nil)) }
        case .renamed:
            for case .rename(let from, let to) in change.steps { removedLists[ListText.key(from)] = made(from, to) }
        case .created, .updated:
            for step in change.steps {
                switch step {
                case .remove(let item): removedItems[id, default: [:]][ListText.key(item)] = made(item, nil)
                case .replace(let item, let with) where ListText.key(item) != ListText.key(with):
                    removedItems[id, default: [:]][ListText.key(item)] = made(item, with)
                case .renameSection(let from, let to): sectionRenames[id, default: [:]][ListText.key(from)] = to
                case .check(let item): ticks[id, default: [:]][ListText.key(item)] = (true, made(item, nil))
                case .uncheck(let item): ticks[id, default: [:]][ListText.key(item)] = (false, made(item, nil))
                default: break
                }
            }
        }
    }

    package var isEmpty: Bool {
        removedItems.isEmpty && removedLists.isEmpty && itemsOfDeletedLists.isEmpty && ticks.isEmpty && sectionRenames.isEmpty
    }

    /// What the section `name` of list `id` is called now, through every rename since the base;
    /// nil when it was not renamed.
    package func sectionName(_ name: String, on id: ListID) -> String? {
        var current = name
        var seen: Set<String> = []
        while let next = sectionRenames[id]?[ListText.key(current)], seen.insert(ListText.key(current)).inserted { current = next }
        return current == name ? nil : current
    }

    /// What `item` on list `id` is called now when the history renamed it since the base (through
    /// every rename since), with the last rename; nil when it was not renamed.
    package func renamed(_ item: String, on id: ListID) -> (now: String, change: Change)? {
        var name = item
        var last: Change?
        var seen: Set<String> = []
        while let change = removedItems[id]?[ListText.key(name)], let next = change.renamedTo, seen.insert(ListText.key(name)).inserted {
            name = next
            last = change
        }
        return last.map { (name, $0) }
    }

    /// The removal of `item` from list `id` since the base, when it is one.
    package func removal(of item: String, on id: ListID) -> Change? { removedItems[id]?[ListText.key(item)] }

    /// Where `item` was taken off since the base on any list but `id` (nil: any list) — another
    /// list, or one deleted with it —: the list's id when it still stands (nil: deleted), its
    /// name then, and the change. What a copy not tied to a version may not bring into list `id`
    /// (its heading may be that other list's).
    package func removalElsewhere(of item: String, besides id: ListID?) -> (list: ListID?, name: String?, change: Change)? {
        let key = ListText.key(item)
        if let (other, removals) = removedItems.first(where: { $0.key != id && $0.value[key] != nil }), let change = removals[key] {
            return (other, nil, change)
        }
        return itemsOfDeletedLists[key].map { (nil, $0.list, $0.change) }
    }

    /// The deletion or rename of the list named `name` since the base, when it is one.
    package func removal(ofList name: String) -> Change? { removedLists[ListText.key(name)] }

    /// The last tick or untick of `item` on list `id` since the base, when there was one.
    package func tick(of item: String, on id: ListID) -> (checked: Bool, change: Change)? { ticks[id]?[ListText.key(item)] }
}

extension ChangesSince.Change {
    /// Who made it and when, as a sentence goes on: "by listctl on 2026-11-27 at 10:02 UTC".
    package var byWhomAndWhen: String {
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
