/// Every list the daemon owns, in order, with the counters that make ids and revisions unique.
///
/// `apply` is the single place where an edit is confirmed or denied: it either returns the change
/// it made, or throws why not and leaves the book untouched.
public struct ListBook: Hashable, Sendable {
    public internal(set) var lists: [ShoppingList]
    /// The revision of the last applied change; 0 when nothing ever changed.
    public internal(set) var revision: Revision
    /// The id the next created list gets. Ids of deleted lists are never handed out again.
    public internal(set) var nextID: ListID
    /// Each list's item keys, as of the list's revision, built on the first add that needs them:
    /// an add checks for a duplicate with a lookup instead of a scan (a pasted 10,000-line list
    /// made that scan the whole cost of a save). Kept up by `apply`; any other change of a list
    /// moves its revision on, and the keys are built again when next needed. Not part of the
    /// book's value (`==`, `hash`).
    private var itemKeys: [ListID: ItemKeys] = [:]

    private struct ItemKeys: Sendable {
        var revision: Revision
        var keys: Set<String>
    }

    public static func == (lhs: ListBook, rhs: ListBook) -> Bool {
        lhs.lists == rhs.lists && lhs.revision == rhs.revision && lhs.nextID == rhs.nextID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(lists)
        hasher.combine(revision)
        hasher.combine(nextID)
    }

    /// The same lists without the item keys kept for `apply`: for a copy that is only read (a
    /// snapshot), so that the book that goes on being edited keeps its keys unshared.
    public var withoutItemKeys: ListBook {
        var copy = self
        copy.itemKeys = [:]
        return copy
    }

    /// Whether the list at `index` has an item whose key is `key`.
    private mutating func hasItem(withKey key: String, at index: Int) -> Bool {
        let list = lists[index]
        if itemKeys[list.id]?.revision != list.revision {
            itemKeys[list.id] = ItemKeys(revision: list.revision, keys: Set(list.items.map(ListText.key)))
        }
        return itemKeys[list.id]!.keys.contains(key)
    }

    /// After `apply` changed the list at `index`: its keys follow, when they were up to date.
    private mutating func updateItemKeys(at index: Int, from revision: Revision, removing old: String?, adding new: String?) {
        let list = lists[index]
        guard itemKeys[list.id]?.revision == revision else { return }
        itemKeys[list.id]!.revision = list.revision
        if let old { itemKeys[list.id]!.keys.remove(ListText.key(old)) }
        if let new { itemKeys[list.id]!.keys.insert(ListText.key(new)) }
    }

    public init() {
        self.lists = []
        self.revision = 0
        self.nextID = 1
    }

    /// A book restored from storage. Callers (the file format) have validated the lists.
    public init(lists: [ShoppingList], revision: Revision, nextID: ListID) {
        self.lists = lists
        self.revision = max(revision, lists.map(\.revision).max() ?? 0)
        self.nextID = max(nextID, (lists.map(\.id).max() ?? 0) + 1)
    }

    /// Redoes a change that was applied before (read back from listd's change log): the list
    /// takes the state the change recorded, with no rule checked again. Changes must come in
    /// revision order; one the book already has (its revision is not newer) changes nothing.
    public mutating func replay(_ change: ListChange) {
        guard change.revision > revision else { return }
        revision = change.revision
        nextID = max(nextID, change.list.id + 1)
        let index = lists.firstIndex { $0.id == change.list.id }
        switch (change.kind, index) {
        case (.deleted, let index?): lists.remove(at: index)
        case (.deleted, nil): break
        case (_, let index?): lists[index] = change.list
        case (_, nil): lists.append(change.list)
        }
    }

    /// The list a reference names, or `listNotFound`.
    public func list(_ reference: ListReference) throws(ListError) -> ShoppingList {
        try lists[position(of: reference)]
    }

    func position(of reference: ListReference) throws(ListError) -> Int {
        let found: Int?
        switch reference {
        case .id(let id):
            found = lists.firstIndex { $0.id == id }
        case .name(let name):
            let key = ListText.key(name)
            // A name first; digits that name no list are an id (a list may be called "2026").
            found =
                lists.firstIndex { ListText.key($0.name) == key }
                ?? ListReference.id(inName: name).flatMap { id in lists.firstIndex { $0.id == id } }
        }
        guard let found else { throw .listNotFound(reference) }
        return found
    }

    /// Checks `edit` against every rule and applies it.
    ///
    /// - Parameters:
    ///   - ifRevision: when given, the edit is denied with `conflict` unless the target list's
    ///     revision equals it (compare-and-swap). For `createList` it is compared with the book's
    ///     revision.
    ///   - time: the `edited` stamp the changed list gets.
    /// - Returns: the change, or `nil` when the edit is valid but changes nothing (replacing an item
    ///   with identical text, renaming a list to its own name): nothing to store or notify.
    public mutating func apply(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> ListChange? {
        try applyRecorded(edit, ifRevision: ifRevision, at: time, origin: origin)?.change
    }

    /// `apply`, also returning the change's record (`ChangeRecord`, with the positions the edit
    /// found): nothing is searched again to make it, and nothing holds the list before the change
    /// (which would make the next edit copy its items).
    public mutating func applyRecorded(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> (change: ListChange, record: ChangeRecord)? {
        switch edit {
        case .createList(let rawName, let rawItems):
            let name = try validName(rawName)
            if let expected = ifRevision, expected != revision {
                throw .conflict(list: "The lists", expected: expected, actual: revision)
            }
            if let existing = lists.first(where: { ListText.key($0.name) == ListText.key(name) }) {
                throw .listExists(name: existing.name)
            }
            var items: [String] = []
            var keys: Set<String> = []
            for rawItem in rawItems {
                let item = try validItem(rawItem)
                guard keys.insert(ListText.key(item)).inserted else {
                    throw .itemExists(item: item, list: name)
                }
                items.append(item)
            }
            let list = ShoppingList(id: nextID, name: name, edited: time, revision: revision + 1, items: items)
            nextID += 1
            lists.append(list)
            revision += 1
            return (
                ListChange(kind: .created, revision: revision, list: list, steps: [], origin: origin),
                ChangeRecord(
                    revision: revision,
                    time: time,
                    origin: origin,
                    operation: .create(id: list.id, name: name, items: items)
                )
            )

        case .renameList(let reference, let rawName):
            let index = try position(of: reference)
            let name = try validName(rawName)
            try check(ifRevision, against: lists[index])
            if let other = lists.first(where: {
                $0.id != lists[index].id && ListText.key($0.name) == ListText.key(name)
            }) {
                throw .listExists(name: other.name)
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

        case .deleteList(let reference):
            let index = try position(of: reference)
            try check(ifRevision, against: lists[index])
            let removed = lists.remove(at: index)
            revision += 1
            return (
                ListChange(kind: .deleted, revision: revision, list: removed, steps: [], origin: origin),
                ChangeRecord(revision: revision, time: removed.edited, origin: origin, operation: .delete(id: removed.id))
            )

        case .addItem(let rawItem, let reference, let insertionIndex, let rawSection, let rawQuantity):
            let index = try position(of: reference)
            let item = try validItem(rawItem)
            let quantity = try rawQuantity.map { raw throws(ListError) in try validQuantity(raw) }
            try check(ifRevision, against: lists[index])
            if hasItem(withKey: ListText.key(item), at: index), let existing = lists[index].index(ofItem: item) {
                let list = lists[index]
                let text = list.items[existing]
                guard list.isChecked(text) else {
                    throw .itemExists(
                        item: text,
                        list: list.name,
                        section: list.section(ofItemAt: existing).map { list.sections[$0].name },
                        quantity: quantity,
                        has: list.quantities[text]
                    )
                }
                // Ticked off and added again: it is needed again; into the section and with the
                // amount the add names, when it names them, in the same change.
                if rawSection != nil || quantity != nil {
                    return try restateItem(
                        at: existing,
                        ofListAt: index,
                        section: rawSection,
                        checked: false,
                        quantity: quantity ?? list.quantities[text],
                        time: time,
                        origin: origin
                    )
                }
                return commit(
                    .updated,
                    at: index,
                    time: time,
                    origin: origin,
                    steps: [.uncheck(item: text)],
                    operation: .uncheck(id: lists[index].id, at: existing)
                ) {
                    $0.checked.remove(text)
                }
            }
            // Decided on the list passed borrowed, so that no copy of it outlives the decision: one
            // held across the insertion below would make it copy every item (a 10,000-line paste
            // became quadratic).
            let (section, newSection, at) = try placement(of: item, in: lists[index], at: insertionIndex, section: rawSection)
            let before = lists[index].revision
            defer { updateItemKeys(at: index, from: before, removing: nil, adding: item) }
            let steps: [ListChange.Step] = (newSection.map { [.addSection(section: $0)] } ?? []) + [.add(item: item)]
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: steps,
                operation: .add(id: lists[index].id, item: item, at: at, section: section, newSection: newSection, quantity: quantity)
            ) {
                if let newSection { $0.insertSection(newSection, at: $0.sections.count) }
                $0.insertItem(item, at: at, section: section)
                if let quantity { $0.quantities[item] = quantity }
            }

        case .replaceItem(let rawItem, let rawReplacement, let reference):
            let index = try position(of: reference)
            // No copy of the list: it would make the change below copy the items.
            guard let position = lists[index].index(ofItem: rawItem) else {
                throw .itemNotFound(item: ListText.trimmed(rawItem), list: lists[index].name)
            }
            let replacement = try validItem(rawReplacement)
            try check(ifRevision, against: lists[index])
            if let clash = lists[index].index(ofItem: replacement), clash != position {
                throw .itemExists(item: lists[index].items[clash], list: lists[index].name)
            }
            let old = lists[index].items[position]
            if old == replacement { return nil }
            let before = lists[index].revision
            defer { updateItemKeys(at: index, from: before, removing: old, adding: replacement) }
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: [.replace(item: old, with: replacement)],
                operation: .replace(id: lists[index].id, at: position, with: replacement)
            ) {
                $0.replaceItem(at: position, with: replacement)
            }

        case .removeItem(let rawItem, let reference):
            let index = try position(of: reference)
            // No copy of the list: it would make the change below copy the items.
            guard let position = lists[index].index(ofItem: rawItem) else {
                throw .itemNotFound(item: ListText.trimmed(rawItem), list: lists[index].name)
            }
            try check(ifRevision, against: lists[index])
            let old = lists[index].items[position]
            let before = lists[index].revision
            defer { updateItemKeys(at: index, from: before, removing: old, adding: nil) }
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: [.remove(item: old)],
                operation: .remove(id: lists[index].id, at: position)
            ) {
                $0.removeItem(at: position)
            }

        case .moveItem(let rawItem, let reference, let rawAnchor, let wanted):
            let index = try position(of: reference)
            let list = lists[index]
            guard let position = list.index(ofItem: rawItem) else {
                throw .itemNotFound(item: ListText.trimmed(rawItem), list: list.name)
            }
            try check(ifRevision, against: lists[index])
            var anchor: Int?
            if let rawAnchor {
                // Gone meanwhile (a three-way merge with a client's removal): the item stays.
                guard let found = list.index(ofItem: rawAnchor), found != position else { return nil }
                anchor = found
            }
            var items = list.items
            let destination = ItemAlignment.move(&items, from: position, toFollow: anchor)
            // Into the section wanted when it lies between the sections of the items around its
            // new place (empty sections between them included), else into the section of the
            // item it now follows (none at the top).
            var section = anchor.flatMap { list.section(ofItemAt: $0) }
            if let wanted {
                let target = ListText.trimmed(wanted).isEmpty ? nil : list.section(named: wanted)
                let following = destination + 1 < items.count ? list.index(ofItem: items[destination + 1]) : nil
                let low = section ?? -1
                let high = following.map { list.section(ofItemAt: $0) ?? -1 } ?? Int.max
                if ListText.trimmed(wanted).isEmpty || target != nil, low <= (target ?? -1), (target ?? -1) <= high { section = target }
            }
            if destination == position, section == list.section(ofItemAt: position) { return nil }
            let step = ListChange.Step.move(item: list.items[position], to: destination, section: list.sectionName(section))
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: [step],
                operation: .move(id: list.id, from: position, to: destination, section: section)
            ) { $0.moveItem(from: position, to: destination, section: section) }

        case .moveItemInto(let rawItem, let reference, let rawSection, let rawBefore):
            return try moveItem(rawItem, on: reference, into: rawSection, before: rawBefore, ifRevision: ifRevision, at: time, origin: origin)

        case .addSection(let rawName, let reference, let rawBefore):
            return try addSection(rawName, on: reference, before: rawBefore, ifRevision: ifRevision, at: time, origin: origin)

        case .restoreSection(let rawName, let reference, let rawBefore, let items):
            return try restoreSection(rawName, on: reference, before: rawBefore, items: items, ifRevision: ifRevision, at: time, origin: origin)

        case .renameSection(let rawName, let reference, let rawNew):
            return try renameSection(rawName, on: reference, to: rawNew, ifRevision: ifRevision, at: time, origin: origin)

        case .removeSection(let rawName, let reference):
            return try removeSection(rawName, on: reference, ifRevision: ifRevision, at: time, origin: origin)

        case .setQuantity(let rawItem, let reference, let rawQuantity):
            return try setQuantity(rawItem, on: reference, to: rawQuantity, ifRevision: ifRevision, at: time, origin: origin)

        case .restoreItem(let placed, let reference):
            let index = try position(of: reference)
            guard let position = lists[index].index(ofItem: placed.text) else {
                throw .itemNotFound(item: ListText.trimmed(placed.text), list: lists[index].name)
            }
            try check(ifRevision, against: lists[index])
            return try restateItem(
                at: position,
                ofListAt: index,
                section: placed.section ?? "",
                at: placed.at,
                checked: placed.checked,
                quantity: placed.quantity,
                time: time,
                origin: origin
            )

        case .checkItem(let rawItem, let reference), .uncheckItem(let rawItem, let reference):
            let index = try position(of: reference)
            guard let position = lists[index].index(ofItem: rawItem) else {
                throw .itemNotFound(item: ListText.trimmed(rawItem), list: lists[index].name)
            }
            try check(ifRevision, against: lists[index])
            let item = lists[index].items[position]
            let checking = if case .checkItem = edit { true } else { false }
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

        case .clearChecked(let reference, let keeping):
            let index = try position(of: reference)
            try check(ifRevision, against: lists[index])
            let list = lists[index]
            let cleared = list.checked.isEmpty ? [] : list.items.indices.compactMap { at -> PlacedItem? in
                let item = list.items[at]
                guard list.checked.contains(item), !keeping.contains(ListText.key(item)) else { return nil }
                return list.placed(at: at)
            }
            return try removeAll(cleared, at: index, time: time, origin: origin)

        case .removeItems(let rawItems, let reference):
            let index = try position(of: reference)
            try check(ifRevision, against: lists[index])
            let list = lists[index]
            var positions: Set<Int> = []
            for rawItem in rawItems {
                guard let at = list.index(ofItem: rawItem) else {
                    throw .itemNotFound(item: ListText.trimmed(rawItem), list: list.name)
                }
                positions.insert(at)
            }
            let removed = positions.sorted().map { list.placed(at: $0) }
            return try removeAll(removed, at: index, time: time, origin: origin)

        case .restoreItems(let placed, let reference):
            let index = try position(of: reference)
            try check(ifRevision, against: lists[index])
            var keys: Set<String> = []
            var restored: [PlacedItem] = []
            var count = lists[index].items.count
            var list = lists[index]
            for item in placed.sorted(by: { $0.at < $1.at }) {
                let text = try validItem(item.text)
                if let existing = list.index(ofItem: text) {
                    throw .itemExists(item: list.items[existing], list: list.name)
                }
                guard keys.insert(ListText.key(text)).inserted else {
                    throw .itemExists(item: text, list: list.name)
                }
                // Into its section while it is there (else in none), at its place when that is
                // still within the section (else the nearest end).
                let at = min(max(item.at, 0), count)
                let section = item.section.flatMap { list.section(named: $0) }
                let range = list.range(ofSection: section)
                let place = min(max(at, range.lowerBound), range.upperBound)
                let resolved = PlacedItem(
                    text,
                    at: place,
                    checked: item.checked,
                    section: section.map { list.sections[$0].name },
                    quantity: item.quantity
                )
                list.insertItem(text, at: place, section: section)
                if item.checked { list.checked.insert(text) }
                if let quantity = item.quantity { list.quantities[text] = quantity }
                restored.append(resolved)
                count += 1
            }
            if restored.isEmpty { return nil }
            let steps = restored.flatMap { item -> [ListChange.Step] in
                item.checked ? [.add(item: item.text), .check(item: item.text)] : [.add(item: item.text)]
            }
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: steps,
                operation: .insertItems(id: lists[index].id, restored)
            ) { [list] in $0 = list }

        case .restoreList(let old):
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
                    operation: .create(
                        id: list.id,
                        name: list.name,
                        items: Array(list.items),
                        checked: list.checkedItems,
                        sections: list.sections,
                        quantities: Dictionary(list.quantities)
                    )
                )
            )
        }
    }

    /// Takes `placed` (ascending places on the list at `index`) off as one change; nil when
    /// there is nothing to take.
    private mutating func removeAll(
        _ placed: [PlacedItem],
        at index: Int,
        time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> (change: ListChange, record: ChangeRecord)? {
        if placed.isEmpty { return nil }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: placed.map { .remove(item: $0.text) },
            operation: .removeItems(id: lists[index].id, placed)
        ) {
            for item in placed.reversed() { $0.removeItem(at: item.at) }
        }
    }

    /// Puts the lists in the order of `ids` (the order a person gave them in the file); lists not
    /// named keep their relative order after the named ones. Order is presentation, not a change:
    /// no revision.
    public mutating func reorder(by ids: [ListID]) {
        let rank = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let ordered = lists.enumerated().sorted { lhs, rhs in
            (rank[lhs.element.id] ?? ids.count + lhs.offset, lhs.offset) < (
                rank[rhs.element.id] ?? ids.count + rhs.offset, rhs.offset
            )
        }
        lists = ordered.map(\.element)
    }

    mutating func commit(
        _ kind: ListChange.Kind,
        at index: Int,
        time: Timestamp,
        origin: ChangeOrigin,
        steps: [ListChange.Step],
        operation: ChangeRecord.Operation,
        _ mutate: (inout ShoppingList) -> Void
    ) -> (change: ListChange, record: ChangeRecord) {
        revision += 1
        mutate(&lists[index])
        lists[index].revision = revision
        lists[index].edited = time
        return (
            ListChange(kind: kind, revision: revision, list: lists[index], steps: steps, origin: origin),
            ChangeRecord(revision: revision, time: time, origin: origin, operation: operation)
        )
    }

    func check(_ expected: Revision?, against list: ShoppingList) throws(ListError) {
        if let expected, expected != list.revision {
            throw .conflict(list: list.name, expected: expected, actual: list.revision)
        }
    }
}

private func validName(_ text: String) throws(ListError) -> String {
    switch ListText.validated(text) {
    case .success(let name): name
    case .failure(let violation): throw .invalidName(text, violation)
    }
}




private func validItem(_ text: String) throws(ListError) -> String {
    switch ListText.validated(text) {
    case .success(let item): item
    case .failure(let violation): throw .invalidItem(text, violation)
    }
}
