// The edits of whole lists — create, rename, delete, and a deleted list put back — decided as
// `ListBook.applyRecorded` decides every edit: the rules, then one change with its record.
import HashTreeCollections

extension ListBook {
    /// A new list with these items (none may repeat), at the end.
    mutating func createList(
        _ rawName: String,
        items rawItems: [String],
        quantities rawQuantities: [String: String] = [:],
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let name = try validName(rawName)
        if let expected = ifRevision, expected != revision {
            throw .conflict(list: "The lists", expected: expected, actual: revision)
        }
        if let existing = lists.first(where: { ListText.key($0.name) == ListText.key(name) }) {
            throw .listExists(name: existing.name)
        }
        var items: [String] = []
        var keys: Set<String> = []
        var quantities: [String: String] = [:]
        for rawItem in rawItems {
            let item = try validItem(rawItem)
            guard keys.insert(ListText.key(item)).inserted else {
                throw .itemExists(item: item, list: name)
            }
            items.append(item)
            if let rawQuantity = rawQuantities[rawItem] ?? rawQuantities[item] {
                quantities[item] = try validQuantity(rawQuantity)
            }
        }
        var list = ShoppingList(id: nextID, name: name, edited: time, revision: revision + 1, items: items)
        if !quantities.isEmpty { list.quantities = TreeDictionary(quantities) }
        nextID += 1
        lists.append(list)
        revision += 1
        return (
            ListChange(kind: .created, revision: revision, list: list, steps: [], origin: origin),
            ChangeRecord(
                revision: revision,
                time: time,
                origin: origin,
                operation: .create(id: list.id, name: name, items: items, quantities: quantities)
            )
        )
    }

    /// A list's new name, unless another list has it.
    mutating func renameList(
        _ reference: ListReference,
        to rawName: String,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let name = try validName(rawName)
        try check(ifRevision, against: lists[index])
        if let other = lists.first(where: {
            $0.id != lists[index].id && ListText.key($0.name) == ListText.key(name)
        }) {
            throw .listExists(name: other.name, renaming: lists[index].name)
        }
        let old = lists[index].name
        if old == name { return nil }
        return commit(
            .renamed,
            at: index,
            time: time,
            origin: origin,
            steps: [.rename(from: old, to: name)],
            operation: .rename(id: lists[index].id, to: name)
        ) {
            $0.name = name
        }
    }

    mutating func deleteList(
        _ reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        try check(ifRevision, against: lists[index])
        let removed = lists.remove(at: index)
        revision += 1
        return (
            ListChange(kind: .deleted, revision: revision, list: removed, steps: [], origin: origin),
            ChangeRecord(revision: revision, time: removed.edited, origin: origin, operation: .delete(id: removed.id))
        )
    }

    /// A deleted list back as it was (an undone delete), unless its id or name is taken meanwhile.
    mutating func restoreList(
        _ old: ShoppingList,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        if let expected = ifRevision, expected != revision {
            throw .conflict(list: "The lists", expected: expected, actual: revision)
        }
        if let existing = lists.first(where: { $0.id == old.id || ListText.key($0.name) == ListText.key(old.name) }) {
            throw .listExists(name: existing.name)
        }
        revision += 1
        var list = old
        list.revision = revision
        list.edited = time
        list.checked = list.checked.intersection(list.items)
        if list.sections.reduce(0, { $0 + $1.count }) > list.items.count { list.sections = [] }
        lists.append(list)
        nextID = Swift.max(nextID, list.id + 1)
        return (
            ListChange(kind: .created, revision: revision, list: list, steps: [], origin: origin),
            ChangeRecord(
                revision: revision,
                time: time,
                origin: origin,
                operation: .create(of: list)
            )
        )
    }
}
