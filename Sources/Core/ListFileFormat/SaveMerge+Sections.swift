// A save's `##` sections as the lists stand now: a moved block keeps what was added to it, a new one holds its lines.
import ListModel

extension SaveMerge {
    /// A section whose `##` block the save moved (the file's diff says: removed, and added again
    /// elsewhere with the items the copy shows under it) is the same section moved: the items
    /// added to it meanwhile, which the copy never showed, go with it. `before`: the lists before
    /// the save; `after`: once its edits are applied. The moves that put them back in it.
    package func itemsFollowingMovedSections(_ edits: [ListEdit], before: ListBook, after: ListBook) -> [ListEdit] {
        var removed: [ListID: Set<String>] = [:]
        var restored: [ListID: Set<String>] = [:]
        for edit in edits {
            switch edit {
            case .removeSection(let name, .id(let id)): removed[id, default: []].insert(ListText.key(name))
            case .restoreSection(let name, .id(let id), _, _): restored[id, default: []].insert(ListText.key(name))
            default: break
            }
        }
        var moves: [ListEdit] = []
        for (id, names) in removed {
            let moved = names.intersection(restored[id] ?? [])
            guard !moved.isEmpty, let was = try? before.list(.id(id)), let now = try? after.list(.id(id)) else { continue }
            let copy = try? base.list(.id(id))
            for section in was.sections.indices where moved.contains(ListText.key(was.sections[section].name)) {
                let name = was.sections[section].name
                for item in was.items[was.range(ofSection: section)] where copy?.index(ofItem: item) == nil {
                    guard let at = now.index(ofItem: item), ListText.key(now.sectionName(now.section(ofItemAt: at))) != ListText.key(name)
                    else { continue }
                    moves.append(.moveItemInto(item, on: .id(id), section: name, before: nil))
                }
            }
        }
        return moves
    }

    /// A new `##` of a list takes the items that end the part above it as the lists now stand;
    /// when someone added an item there meanwhile (or the copy put its lines in another order),
    /// some lines the copy shows under it are left out. Each goes in, at its place among them,
    /// unless it was moved or added since the copy was read (what was done stands). Only for a
    /// copy read against a known base (a copy without notes makes no moves).
    package func itemsLeftOutOfNewSections(_ edits: [ListEdit], after: ListBook) -> [ListEdit] {
        guard baseKnown else { return [] }
        var moves: [ListEdit] = []
        for edit in edits {
            guard case .restoreSection(let name, .id(let id), _, let items) = edit, let list = try? after.list(.id(id)),
                let section = list.section(named: name)
            else { continue }
            let inside = Set(list.items[list.range(ofSection: section)].map(ListText.key))
            for (position, item) in items.enumerated() where !inside.contains(ListText.key(item)) {
                // Only an item the copy's base had: one added meanwhile elsewhere stays where
                // it was added (that is said when its line is read).
                guard list.index(ofItem: item) != nil, (try? base.list(.id(id)))?.index(ofItem: item) != nil, !movedSince(item, on: id)
                else { continue }
                let next = items[(position + 1)...].first { inside.contains(ListText.key($0)) }
                moves.append(.moveItemInto(item, on: .id(id), section: name, before: next))
            }
        }
        return moves
    }

    /// A new `##` of a list that is there takes, of the lines under it, only the items the
    /// copy's base had: one added meanwhile stays in the section it was added to (its line is
    /// said when read).
    package func takingOnlyKnownItems(_ edit: ListEdit) -> ListEdit {
        guard baseKnown, case .restoreSection(let name, .id(let id), let before, let items) = edit, let then = try? base.list(.id(id))
        else { return edit }
        return .restoreSection(name, on: .id(id), before: before, items: items.filter { then.index(ofItem: $0) != nil })
    }

    /// The item's section now differs from the copy's base: someone moved it since.
    fileprivate func movedSince(_ item: String, on id: ListID) -> Bool {
        guard let then = try? base.list(.id(id)), let was = then.index(ofItem: item), let list = try? now.list(.id(id)),
            let index = list.index(ofItem: item)
        else { return false }
        return ListText.key(then.sectionName(then.section(ofItemAt: was))) != ListText.key(list.sectionName(list.section(ofItemAt: index)))
    }
}
