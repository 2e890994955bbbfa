/// Every list the daemon owns, in order, with the counters that make ids and revisions unique.
///
/// `apply` is the single place where an edit is confirmed or denied: it either returns the change
/// it made, or throws why not and leaves the book untouched.
package struct ListBook: Hashable, Sendable {
    package internal(set) var lists: [ShoppingList]
    /// The revision of the last applied change; 0 when nothing ever changed.
    package internal(set) var revision: Revision
    /// The id the next created list gets. Ids of deleted lists are never handed out again.
    package internal(set) var nextID: ListID
    /// Each list's item keys, as of the list's revision, built on the first add that needs them:
    /// an add checks for a duplicate with a lookup instead of a scan (a pasted 10,000-line list
    /// made that scan the whole cost of a save). Kept up by `apply`; any other change of a list
    /// moves its revision on, and the keys are built again when next needed. Not part of the
    /// book's value (`==`, `hash`).
    private var itemKeys: [ListID: ItemKeys] = [:]

    /// A change made, with its record (what `applyRecorded` returns).
    package typealias Applied = (change: ListChange, record: ChangeRecord)

    private struct ItemKeys: Sendable {
        var revision: Revision
        var keys: Set<String>
    }

    package static func == (lhs: ListBook, rhs: ListBook) -> Bool {
        lhs.lists == rhs.lists && lhs.revision == rhs.revision && lhs.nextID == rhs.nextID
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(lists)
        hasher.combine(revision)
        hasher.combine(nextID)
    }

    /// The same lists without the item keys kept for `apply`: for a copy that is only read (a
    /// snapshot), so that the book that goes on being edited keeps its keys unshared.
    package var withoutItemKeys: ListBook {
        var copy = self
        copy.itemKeys = [:]
        return copy
    }

    /// Whether the list at `index` has an item whose key is `key`.
    mutating func hasItem(withKey key: String, at index: Int) -> Bool {
        let list = lists[index]
        if itemKeys[list.id]?.revision != list.revision {
            itemKeys[list.id] = ItemKeys(revision: list.revision, keys: Set(list.items.map(ListText.key)))
        }
        return itemKeys[list.id]!.keys.contains(key)
    }

    /// After `apply` changed the list at `index`: its keys follow, when they were up to date.
    mutating func updateItemKeys(at index: Int, from revision: Revision, removing old: String?, adding new: String?) {
        let list = lists[index]
        guard itemKeys[list.id]?.revision == revision else { return }
        itemKeys[list.id]!.revision = list.revision
        if let old { itemKeys[list.id]!.keys.remove(ListText.key(old)) }
        if let new { itemKeys[list.id]!.keys.insert(ListText.key(new)) }
    }

    package init() {
        self.lists = []
        self.revision = 0
        self.nextID = 1
    }

    /// A book restored from storage. Callers (the file format) have validated the lists.
    package init(lists: [ShoppingList], revision: Revision, nextID: ListID) {
        self.lists = lists
        self.revision = max(revision, lists.map(\.revision).max() ?? 0)
        self.nextID = max(nextID, (lists.map(\.id).max() ?? 0) + 1)
    }

    /// Redoes a change that was applied before (read back from listd's change log): the list
    /// takes the state the change recorded, with no rule checked again. Changes must come in
    /// revision order; one the book already has (its revision is not newer) changes nothing.
    package mutating func replay(_ change: ListChange) {
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
    package func list(_ reference: ListReference) throws(ListError) -> ShoppingList {
        try lists[position(of: reference)]
    }

    /// The id of the list a reference names, without a copy of the list; nil when none.
    package func id(of reference: ListReference) -> ListID? {
        (try? position(of: reference)).map { lists[$0].id }
    }

    func position(of reference: ListReference) throws(ListError) -> Int {
        let found: Int?
        switch reference {
        case .id(let id):
            found = lists.firstIndex { $0.id == id }
        case .name(let name):
            // The name's key is built only when a name is not plain ASCII (`sameKeyIfPlain`).
            var key: String?
            // A name first; digits that name no list are an id (a list may be called "2026").
            found =
                lists.firstIndex { list in
                    if let same = ListText.sameKeyIfPlain(list.name, name) { return same }
                    if key == nil { key = ListText.key(name) }
                    return ListText.hasKey(list.name, key!)
                }
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
    package mutating func apply(
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
    package mutating func applyRecorded(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        switch edit {
        case .createList(let rawName, let rawItems, let rawQuantities):
            try createList(rawName, items: rawItems, quantities: rawQuantities, ifRevision: ifRevision, at: time, origin: origin)
        case .renameList(let reference, let rawName):
            try renameList(reference, to: rawName, ifRevision: ifRevision, at: time, origin: origin)
        case .deleteList(let reference):
            try deleteList(reference, ifRevision: ifRevision, at: time, origin: origin)
        case .restoreList(let old):
            try restoreList(old, ifRevision: ifRevision, at: time, origin: origin)
        case .addItem(let rawItem, let reference, let insertionIndex, let rawSection, let rawQuantity):
            try addItem(rawItem, to: reference, at: insertionIndex, section: rawSection, quantity: rawQuantity, ifRevision: ifRevision, at: time, origin: origin)
        case .replaceItem(let rawItem, let rawReplacement, let reference):
            try replaceItem(rawItem, with: rawReplacement, on: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .removeItem(let rawItem, let reference):
            try removeItem(rawItem, from: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .moveItem(let rawItem, let reference, let rawAnchor, let wanted):
            try moveItem(rawItem, on: reference, after: rawAnchor, section: wanted, ifRevision: ifRevision, at: time, origin: origin)
        case .restoreItem(let placed, let reference):
            try restoreItem(placed, on: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .removeItems(let rawItems, let reference):
            try removeItems(rawItems, from: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .restoreItems(let placed, let reference):
            try restoreItems(placed, to: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .moveItemInto(let rawItem, let reference, let rawSection, let rawBefore):
            try moveItem(rawItem, on: reference, into: rawSection, before: rawBefore, ifRevision: ifRevision, at: time, origin: origin)
        case .addSection(let rawName, let reference, let rawBefore):
            try addSection(rawName, on: reference, before: rawBefore, ifRevision: ifRevision, at: time, origin: origin)
        case .restoreSection(let rawName, let reference, let rawBefore, let items):
            try restoreSection(rawName, on: reference, before: rawBefore, items: items, ifRevision: ifRevision, at: time, origin: origin)
        case .renameSection(let rawName, let reference, let rawNew):
            try renameSection(rawName, on: reference, to: rawNew, ifRevision: ifRevision, at: time, origin: origin)
        case .removeSection(let rawName, let reference):
            try removeSection(rawName, on: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .setQuantity(let rawItem, let reference, let rawQuantity):
            try setQuantity(rawItem, on: reference, to: rawQuantity, ifRevision: ifRevision, at: time, origin: origin)
        case .checkItem(let rawItem, let reference):
            try setChecked(true, rawItem, on: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .uncheckItem(let rawItem, let reference):
            try setChecked(false, rawItem, on: reference, ifRevision: ifRevision, at: time, origin: origin)
        case .clearChecked(let reference, let keeping, let only):
            try clearChecked(on: reference, keeping: keeping, only: only, ifRevision: ifRevision, at: time, origin: origin)
        }
    }

    /// Puts the lists in the order of `ids` (the order a person gave them in the file); lists not
    /// named keep their relative order after the named ones. Order is presentation, not a change:
    /// no revision.
    package mutating func reorder(by ids: [ListID]) {
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
    ) -> Applied {
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

func validName(_ text: String) throws(ListError) -> String {
    switch ListText.validated(text) {
    case .success(let name): name
    case .failure(let violation): throw .invalidName(text, violation)
    }
}

func validItem(_ text: String) throws(ListError) -> String {
    switch ListText.validated(text) {
    case .success(let item): item
    case .failure(let violation): throw .invalidItem(text, violation)
    }
}
