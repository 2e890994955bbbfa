/// How a change is undone: the edit that puts back what it changed, checked and applied like any
/// other edit (so it is denied when what it would put back no longer fits the lists).
extension ChangeRecord {
    /// The edit that undoes this change; `before` is the lists as they were right before it.
    /// Edits name lists by id and items by text, so they apply to the lists as they are now
    /// (an item's old place is used when it is still inside the list).
    public func inverse(before: ListBook) throws(RedoError) -> ListEdit {
        func fail(_ reason: String) -> RedoError { RedoError(revision: revision, reason: reason) }
        let id = operation.listID
        let list = before.lists.first { $0.id == id }
        func item(at index: Int) throws(RedoError) -> String {
            guard let list, list.items.indices.contains(index) else { throw fail("there is no item at \(index)") }
            return list.items[index]
        }
        switch operation {
        case .create:
            return .deleteList(.id(id))
        case .delete:
            guard let list else { throw fail("there was no list \(id)") }
            return .restoreList(list)
        case .rename:
            guard let list else { throw fail("there was no list \(id)") }
            return .renameList(.id(id), to: list.name)
        case .add(_, let text, _, _, _, _):
            return .removeItem(text, from: .id(id))
        case .remove(_, let at):
            guard let list, list.items.indices.contains(at) else { throw fail("there is no item at \(at)") }
            return .restoreItems([list.placed(at: at)], to: .id(id))
        case .replace(_, let at, let with):
            return .replaceItem(with, with: try item(at: at), on: .id(id))
        case .move(_, let from, _, _):
            let text = try item(at: from)
            guard let list, list.sections.isEmpty == false else {
                return .moveItem(text, on: .id(id), after: from == 0 ? nil : try item(at: from - 1))
            }
            // Back into its section, before the item that followed it there (or at its end).
            let section = list.section(ofItemAt: from)
            let next = from + 1 < list.range(ofSection: section).upperBound ? list.items[from + 1] : nil
            return .moveItemInto(text, on: .id(id), section: list.sectionName(section), before: next)
        case .addSection(_, let name, _, _):
            return .removeSection(name, on: .id(id))
        case .renameSection(_, let at, let to):
            guard let list, list.sections.indices.contains(at) else { throw fail("there is no section \(at)") }
            return .renameSection(to, on: .id(id), to: list.sections[at].name)
        case .removeSection(_, let at):
            guard let list, list.sections.indices.contains(at) else { throw fail("there is no section \(at)") }
            let removed = list.sections[at]
            return .restoreSection(
                removed.name,
                on: .id(id),
                before: list.sections.indices.contains(at + 1) ? list.sections[at + 1].name : nil,
                items: Array(list.items[list.range(ofSection: at)])
            )
        case .setQuantity(_, let at, _):
            let text = try item(at: at)
            return .setQuantity(text, on: .id(id), quantity: list?.quantities[text])
        case .check(_, let at):
            return .uncheckItem(try item(at: at), on: .id(id))
        case .uncheck(_, let at):
            return .checkItem(try item(at: at), on: .id(id))
        case .removeItems(_, let placed):
            return .restoreItems(placed, to: .id(id))
        case .insertItems(_, let placed):
            return .removeItems(placed.map(\.text), from: .id(id))
        case .restate(_, let from, _, _, _, _, _):
            guard let list, list.items.indices.contains(from) else { throw fail("there is no item at \(from)") }
            return .restoreItem(list.placed(at: from), on: .id(id))
        }
    }
}
