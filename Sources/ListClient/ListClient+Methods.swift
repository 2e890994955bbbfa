import ListClientCore
import ListModel
import ListRPC

extension ListClient {
    public func lists() async throws(ListClientError) -> ListsSnapshot {
        try await call(GetLists.self, NoParams())
    }

    public func list(_ list: ListReference) async throws(ListClientError) -> ShoppingList {
        try await call(GetList.self, .init(list: list))
    }

    public func createList(
        _ name: String,
        items: [String] = [],
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(CreateList.self, .init(name: name, items: items.isEmpty ? nil : items, ifRevision: ifRevision))
    }

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

    public func addItem(
        _ item: String,
        to list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(AddItem.self, .init(list: list, item: item, ifRevision: ifRevision))
    }

    public func replaceItem(
        _ item: String,
        with replacement: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(ReplaceItem.self, .init(list: list, item: item, with: replacement, ifRevision: ifRevision))
    }

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

    public func uncheckItem(
        _ item: String,
        on list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ShoppingList {
        try await call(UncheckItem.self, .init(list: list, item: item, ifRevision: ifRevision))
    }

    /// Removes every checked item as one change; the result says which stayed (delegates refused).
    public func clearChecked(
        _ list: ListReference,
        ifRevision: Revision? = nil
    ) async throws(ListClientError) -> ClearChecked.Result {
        try await call(ClearChecked.self, .init(list: list, ifRevision: ifRevision))
    }

    /// The kept changes, oldest first (of one list when `list` is given).
    public func history(
        of list: ListReference? = nil,
        since: Revision? = nil,
        limit: Int? = nil
    ) async throws(ListClientError) -> GetHistory.Result {
        try await call(GetHistory.self, .init(list: list, since: since, limit: limit))
    }

    /// Undoes change `revision` as a new change.
    public func undo(_ revision: Revision, ifRevision: Revision? = nil) async throws(ListClientError) -> Undo.Result {
        try await call(Undo.self, .init(revision: revision, ifRevision: ifRevision))
    }
}
