import ListModel

/// Creates a list, with its first items and their amounts, as one change.
public enum CreateList: RPCMethod {
    public static let name = "createList"

    public struct Params: Codable, Sendable, Hashable {
        /// The new list's name.
        public var name: String
        /// Its first items, in order.
        public var items: [String]?
        /// Amounts of some of the items, by item (`{"milk": "2 l"}`), made in the same change.
        public var quantities: [String: String]?
        /// Compared with the daemon-wide revision.
        public var ifRevision: Revision?
        /// True: a list of this name already there is confirmed, `unchanged`, as it is (its
        /// items are not added), where a plain create is denied `listExists`.
        public var ifAbsent: Bool?
        /// Each as the protocol names it (docs/protocol.md).
        public init(name: String, items: [String]? = nil, quantities: [String: String]? = nil, ifRevision: Revision? = nil, ifAbsent: Bool? = nil) {
            self.name = name
            self.items = items
            self.quantities = quantities
            self.ifRevision = ifRevision
            self.ifAbsent = ifAbsent
        }
    }

    public typealias Result = ShoppingList
}
