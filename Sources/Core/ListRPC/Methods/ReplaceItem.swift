import ListModel

/// Replaces an item's text, in its place, with its tick and amount.
public enum ReplaceItem: RPCMethod {
    public static let name = "replaceItem"

    public struct Params: Codable, Sendable, Hashable {
        /// The list, by name or id.
        public var list: ListReference
        /// The item, by its text (with or without its amount: `eggs (12)` finds eggs).
        public var item: String
        /// The new text.
        public var with: String
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?
        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference, item: String, with: String, ifRevision: Revision? = nil) {
            self.list = list
            self.item = item
            self.with = with
            self.ifRevision = ifRevision
        }
    }

    public typealias Result = ShoppingList
}
