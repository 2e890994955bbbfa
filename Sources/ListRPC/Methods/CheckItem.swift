import ListModel

/// Ticks an item off: it stays on the list, in `checked`.
public enum CheckItem: RPCMethod {
    public static let name = "checkItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}

public enum UncheckItem: RPCMethod {
    public static let name = "uncheckItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}

/// Takes every checked item off a list as one change; an item a delegate refuses stays.
public enum ClearChecked: RPCMethod {
    public static let name = "clearChecked"

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var ifRevision: Revision?
        /// The ticked items the client showed (its own ticks not yet confirmed among them): only
        /// those are cleared, if still ticked. Absent: every ticked item — or, with `basedOn`,
        /// those ticked at that revision and still.
        public var items: [String]?

        public init(list: ListReference, ifRevision: Revision? = nil, items: [String]? = nil) {
            self.list = list
            self.ifRevision = ifRevision
            self.items = items
        }
    }

    /// The list after the clear (its fields, as every edit's reply), the items the clear took
    /// off, and the checked items that stayed on it because delegates refused, each with why.
    public struct Result: Codable, Sendable, Hashable {
        public var id: ListID
        public var name: String
        public var edited: Timestamp
        public var revision: Revision
        public var items: ItemList
        public var checked: [String]
        /// The items this clear took off, in list order (none when nothing was checked).
        public var cleared: [String]
        public var kept: [KeptItem]

        public init(list: ShoppingList, cleared: [String], kept: [KeptItem]) {
            id = list.id
            name = list.name
            edited = list.edited
            revision = list.revision
            items = list.items
            checked = list.checkedItems
            self.cleared = cleared
            self.kept = kept
        }

        public var list: ShoppingList {
            ShoppingList(id: id, name: name, edited: edited, revision: revision, items: items, checked: .init(checked))
        }
    }
}
