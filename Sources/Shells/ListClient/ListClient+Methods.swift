// One method per listd request: reads, edits of lists, items and sections, history and undo.
// Each throws `ListClientError`: `.denied` with listd's reason and sentence, or why no answer came.
import ListClientCore
import ListModel
import ListRPC

extension ListClient {
    /// Every list, at one revision, with the `instance` that revision belongs to.
    public func lists() async throws(ListClientError) -> ListsSnapshot {
        try await call(GetLists.self, NoParams())
    }

    /// One list, named by id or name (`"Groceries"` and `3` both work: `ListReference` is
    /// expressible by a string and an integer literal).
    public func list(_ list: ListReference) async throws(ListClientError) -> ShoppingList {
        try await call(GetList.self, .init(list: list))
    }

    /// Creates a list with `items` and their amounts in one change.
    ///
    /// - Parameters:
    ///   - name: the new list's name (unique among lists, compared without case).
    ///   - items: its first items, in order.
    ///   - quantities: amounts of some of them, by item (`["milk": "2 l"]`).
    ///   - ifRevision: only if listd's revision is still this one (else `conflict`).
    ///   - ifAbsent: a list of this name there already is returned as it is (not
    ///     `listExists`); its items are not added.
    public func createList(
        _ name: String,
        items: [String] = [],
        quantities: [String: String] = [:],
        ifRevision: Revision? = nil,
        ifAbsent: Bool = false
    ) async throws(ListClientError) -> ShoppingList {
        try await call(
            CreateList.self,
            .init(
                name: name,
                items: items.isEmpty ? nil : items,
                quantities: quantities.isEmpty ? nil : quantities,
                ifRevision: ifRevision,
                ifAbsent: ifAbsent ? true : nil
            )
        )
    }

    /// Renames a list; `ifRevision`: only if the list is still at that revision (else `conflict`).
    public func renameList(
        _ list: ListReference,
        to name: String,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(RenameList.self, .init(list: list, name: name, ifRevision: ifRevision))
    }

    /// - Returns: the list as it was before the delete.
    public func deleteList(
        _ list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(DeleteList.self, .init(list: list, ifRevision: ifRevision))
    }

    /// Adds `item` to `list`; an item there ticked is unticked instead.
    ///
    /// - Parameters:
    ///   - item: the item's text, as stored (no amount is read out of it: pass `quantity`).
    ///   - list: the list, by name or id.
    ///   - section: the section it goes in (`""` for none; made when the list lacks it); nil:
    ///     where it was last on this list, or where the household keeps it on another.
    ///   - quantity: how much to buy (`"2 l"`, `"6"`, or a note).
    ///   - ifRevision: only if the list is still at this revision (else `conflict`).
    ///   - ifAbsent: an item on the list unticked already is left as it is and returned (not
    ///     `itemExists`): "make sure milk is on it".
    public func addItem(
        _ item: String,
        to list: ListReference,
        section: String? = nil,
        quantity: String? = nil,
        ifRevision: Revision? = nil,
        ifAbsent: Bool = false
    ) async throws(ListClientError) -> ShoppingList {
        try await call(
            AddItem.self,
            .init(list: list, item: item, section: section, quantity: quantity, ifRevision: ifRevision, ifAbsent: ifAbsent ? true : nil)
        )
    }

    /// Moves `item` into `section` ("" for none; nil: the one it is in, or `before`'s), right
    /// before `before` or at the section's end.
    public func moveItem(
        _ item: String,
        on list: ListReference,
        section: String? = nil,
        before: String? = nil,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(MoveItem.self, .init(list: list, item: item, section: section, before: before, ifRevision: ifRevision))
    }

    /// An empty section, before the section `before` or at the end of the list.
    public func addSection(
        _ section: String,
        to list: ListReference,
        before: String? = nil,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(AddSection.self, .init(list: list, section: section, before: before, ifRevision: ifRevision))
    }

    /// Renames `section` of `list` to `name` (denied `sectionExists` when the list has one so
    /// called).
    public func renameSection(
        _ section: String,
        on list: ListReference,
        to name: String,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(RenameSection.self, .init(list: list, section: section, to: name, ifRevision: ifRevision))
    }

    /// Removes a section; its items join the section above it (or none).
    public func removeSection(
        _ section: String,
        from list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(RemoveSection.self, .init(list: list, section: section, ifRevision: ifRevision))
    }

    /// Sets `item`'s amount (`2 l`); nil clears it.
    public func setQuantity(
        _ quantity: String?,
        of item: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(SetQuantity.self, .init(list: list, item: item, quantity: quantity, ifRevision: ifRevision))
    }

    /// Replaces `item`'s text by `replacement`, in its place, with its tick and amount.
    public func replaceItem(
        _ item: String,
        with replacement: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(ReplaceItem.self, .init(list: list, item: item, with: replacement, ifRevision: ifRevision))
    }

    /// Takes `item` off the list (denied `itemNotFound` when it is not on it).
    public func removeItem(
        _ item: String,
        from list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(RemoveItem.self, .init(list: list, item: item, ifRevision: ifRevision))
    }

    /// Ticks `item` off (it stays on the list, checked).
    public func checkItem(
        _ item: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(CheckItem.self, .init(list: list, item: item, ifRevision: ifRevision))
    }

    /// Unticks `item`: it is needed again.
    public func uncheckItem(
        _ item: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(UncheckItem.self, .init(list: list, item: item, ifRevision: ifRevision))
    }

    /// Removes every checked item as one change — or, with `items`, those of them still
    /// checked (what the user saw ticked) — and says which stayed (delegates refused them).
    public func clearChecked(
        _ list: ListReference,
        items: [String]? = nil,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ClearChecked.Result {
        try await call(ClearChecked.self, .init(list: list, ifRevision: ifRevision, items: items))
    }

    /// The kept changes, oldest first (of one list when `list` is given).
    public func history(
        of list: ListReference? = nil,
        since: Revision? = nil,
        limit: Int? = nil
    ) async throws(ListClientError) -> GetHistory.Result {
        try await call(GetHistory.self, .init(list: list, since: since, limit: limit))
    }

    /// Undoes change `revision` as a new change; without one, the latest change not yet undone that is not
    /// itself an undo (this client's author's own, with `mine`).
    public func undo(_ revision: Revision? = nil, mine: Bool = false, ifRevision: Revision? = nil) async throws(ListClientError) -> Undo.Result {
        try await call(Undo.self, .init(revision: revision, mine: mine ? true : nil, ifRevision: ifRevision))
    }
}
