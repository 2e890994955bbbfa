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
    /// The list, by name or id.
    public var list: ListReference
    /// The item's text, stored as given: no amount is read out of it (send `quantity`).
    public var item: String
    /// The section it goes into (`""`: none; made when the list lacks it); nil: where it was last
    /// on this list, or where the household keeps it.
    public var section: String?
    /// How much to buy (`2 l`, `6`, or a note).
    public var quantity: String?
    /// Only if the list is still at this revision (else `conflict`).
    public var ifRevision: Revision?
    /// True: an item on the list unticked already is confirmed, `unchanged`, as it is (its
    /// amount and section too), where a plain add is denied `itemExists`.
    public var ifAbsent: Bool?

    /// Each as the protocol names it (docs/protocol.md).
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
    /// The list, by name or id.
    public var list: ListReference
    /// The item, by its text (with or without its amount: `eggs (12)` finds eggs).
    public var item: String
    /// Only if the list is still at this revision (else `conflict`).
    public var ifRevision: Revision?
    /// Each as the protocol names it (docs/protocol.md).
    public init(list: ListReference, item: String, ifRevision: Revision? = nil) {
        self.list = list
        self.item = item
        self.ifRevision = ifRevision
    }
}
