import ListModel

/// Adds an item: into `section` ("" for none; one the list lacks is made at its end), else
/// into the section it was last in on this list, with its amount.
public enum AddItem: RPCMethod {
    public static let name = "addItem"
    public typealias Params = AddItemParams
    public typealias Result = ShoppingList
}

/// `{list, item, section?, quantity?, ifRevision?, ifAbsent?}`.
public struct AddItemParams: Codable, Sendable, Hashable {
    public var list: ListReference
    public var item: String
    public var section: String?
    public var quantity: String?
    public var ifRevision: Revision?
    /// True: an item on the list unticked already is confirmed, `unchanged`, as it is (its
    /// amount and section too), where a plain add is denied `itemExists`.
    public var ifAbsent: Bool?

    public init(list: ListReference, item: String, section: String? = nil, quantity: String? = nil, ifRevision: Revision? = nil, ifAbsent: Bool? = nil) {
        self.list = list
        self.item = item
        self.section = section
        self.quantity = quantity
        self.ifRevision = ifRevision
        self.ifAbsent = ifAbsent
    }
}

/// `{list, item, ifRevision?}`: what `removeItem`, `checkItem` and `uncheckItem` take.
public struct ListItemParams: Codable, Sendable, Hashable {
    public var list: ListReference
    public var item: String
    public var ifRevision: Revision?
    public init(list: ListReference, item: String, ifRevision: Revision? = nil) {
        self.list = list
        self.item = item
        self.ifRevision = ifRevision
    }
}
