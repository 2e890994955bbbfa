import ListModel

/// Renames a list.
public enum RenameList: RPCMethod {
    public static let name = "renameList"

    public struct Params: Codable, Sendable, Hashable {
        /// The list, by name or id.
        public var list: ListReference
        /// Its new name.
        public var name: String
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?
        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference, name: String, ifRevision: Revision? = nil) {
            self.list = list
            self.name = name
            self.ifRevision = ifRevision
        }
    }

    public typealias Result = ShoppingList
}
