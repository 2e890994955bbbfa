// Ticking items off: a check, an uncheck, and clearing what is checked, decided as
// `ListBook.applyRecorded` decides every edit: the rules, then one change with its record.
extension ListBook {
    /// An item checked (`checking`) or unchecked; nil when it already is.
    mutating func setChecked(
        _ checking: Bool,
        _ rawItem: String,
        on reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let position = try lists[index].position(ofItem: rawItem)
        try check(ifRevision, against: lists[index])
        let item = lists[index].items[position]
        if lists[index].isChecked(item) == checking { return nil }
        let id = lists[index].id
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [checking ? .check(item: item) : .uncheck(item: item)],
            operation: checking ? .check(id: id, at: position) : .uncheck(id: id, at: position)
        ) {
            if checking { $0.checked.insert(item) } else { $0.checked.remove(item) }
        }
    }

    /// The checked items taken off, but for those `keeping` names (by key: delegates refused them,
    /// or they were ticked after the lists the clear was made on), and only those `only` names.
    mutating func clearChecked(
        on reference: ListReference,
        keeping: Set<String>,
        only: Set<String>? = nil,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        try check(ifRevision, against: lists[index])
        let list = lists[index]
        let cleared = list.checked.isEmpty ? [] : list.items.indices.compactMap { at -> PlacedItem? in
            let item = list.items[at]
            guard list.checked.contains(item), !keeping.contains(ListText.key(item)),
                only?.contains(ListText.key(item)) ?? true
            else { return nil }
            return list.placed(at: at)
        }
        return try removeAll(cleared, at: index, time: time, origin: origin)
    }
}
