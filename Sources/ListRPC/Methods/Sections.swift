// The methods of sections and amounts: moving an item, adding, renaming and removing a section,
// and setting an item's amount.
import ListModel

/// Puts an item into another section and/or before another item of it (absent: at its end).
public enum MoveItem: RPCMethod {
    public static let name = "moveItem"
    public typealias Result = ShoppingList

    /// `{list, item, section?, before?, ifRevision?}`: `section` "" for none; absent: the one
    /// the item is in (or `before`'s).
    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var item: String
        public var section: String?
        public var before: String?
        public var ifRevision: Revision?

        public init(list: ListReference, item: String, section: String? = nil, before: String? = nil, ifRevision: Revision? = nil) {
            self.list = list
            self.item = item
            self.section = section
            self.before = before
            self.ifRevision = ifRevision
        }
    }
}

/// An empty section, before the section `before` or at the end of the list.
public enum AddSection: RPCMethod {
    public static let name = "addSection"
    public typealias Result = ShoppingList

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var section: String
        public var before: String?
        public var ifRevision: Revision?

        public init(list: ListReference, section: String, before: String? = nil, ifRevision: Revision? = nil) {
            self.list = list
            self.section = section
            self.before = before
            self.ifRevision = ifRevision
        }
    }
}

public enum RenameSection: RPCMethod {
    public static let name = "renameSection"
    public typealias Result = ShoppingList

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var section: String
        public var to: String
        public var ifRevision: Revision?

        public init(list: ListReference, section: String, to: String, ifRevision: Revision? = nil) {
            self.list = list
            self.section = section
            self.to = to
            self.ifRevision = ifRevision
        }
    }
}

/// The section goes; its items join the section above it (or none), as deleting its `##` line.
public enum RemoveSection: RPCMethod {
    public static let name = "removeSection"
    public typealias Result = ShoppingList

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var section: String
        public var ifRevision: Revision?

        public init(list: ListReference, section: String, ifRevision: Revision? = nil) {
            self.list = list
            self.section = section
            self.ifRevision = ifRevision
        }
    }
}

/// An item's amount (`2 l`); `null` clears it.
public enum SetQuantity: RPCMethod {
    public static let name = "setQuantity"
    public typealias Result = ShoppingList

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var item: String
        public var quantity: String?
        public var ifRevision: Revision?

        public init(list: ListReference, item: String, quantity: String?, ifRevision: Revision? = nil) {
            self.list = list
            self.item = item
            self.quantity = quantity
            self.ifRevision = ifRevision
        }
    }
}
