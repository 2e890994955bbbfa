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
        case .add(_, let text, _):
            return .removeItem(text, from: .id(id))
        case .remove(_, let at):
            let text = try item(at: at)
            return .restoreItems([PlacedItem(text, at: at, checked: list!.isChecked(text))], to: .id(id))
        case .replace(_, let at, let with):
            return .replaceItem(with, with: try item(at: at), on: .id(id))
        case .move(_, let from, _):
            let text = try item(at: from)
            return .moveItem(text, on: .id(id), after: from == 0 ? nil : try item(at: from - 1))
        case .check(_, let at):
            return .uncheckItem(try item(at: at), on: .id(id))
        case .uncheck(_, let at):
            return .checkItem(try item(at: at), on: .id(id))
        case .removeItems(_, let placed):
            return .restoreItems(placed, to: .id(id))
        case .insertItems(_, let placed):
            return .removeItems(placed.map(\.text), from: .id(id))
        }
    }
}
