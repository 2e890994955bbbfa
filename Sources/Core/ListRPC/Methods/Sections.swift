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
        /// The list, by name or id.
        public var list: ListReference
        /// The item, by its text (with or without its amount: `eggs (12)` finds eggs).
        public var item: String
        /// The section it moves into (`""`: none); nil: the one it is in, or `before`'s.
        public var section: String?
        /// The item of that section it goes right before; nil: the section's end.
        public var before: String?
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
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
        /// The list, by name or id.
        public var list: ListReference
        /// The new section's name.
        public var section: String
        /// The section it goes right before; nil: after the last.
        public var before: String?
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference, section: String, before: String? = nil, ifRevision: Revision? = nil) {
            self.list = list
            self.section = section
            self.before = before
            self.ifRevision = ifRevision
        }
    }
}

/// Renames a section of a list.
public enum RenameSection: RPCMethod {
    public static let name = "renameSection"
    public typealias Result = ShoppingList

    public struct Params: Codable, Sendable, Hashable {
        /// The list, by name or id.
        public var list: ListReference
        /// The section, by name.
        public var section: String
        /// Its new name.
        public var to: String
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
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
        /// The list, by name or id.
        public var list: ListReference
        /// The section, by name: its items join the section above it (or none).
        public var section: String
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
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
        /// The list, by name or id.
        public var list: ListReference
        /// The item, by its text (with or without its amount: `eggs (12)` finds eggs).
        public var item: String
        /// The amount (`2 l`, `6`, or a note); nil clears it.
        public var quantity: String?
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference, item: String, quantity: String?, ifRevision: Revision? = nil) {
            self.list = list
            self.item = item
            self.quantity = quantity
            self.ifRevision = ifRevision
        }
    }
}
