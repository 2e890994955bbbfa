import ListModel

/// Deletes a list and its items (`undo` brings it back).
public enum DeleteList: RPCMethod {
    public static let name = "deleteList"
    public typealias Params = ListEditParams

    /// The list as it was just before it was deleted.
    public typealias Result = ShoppingList
}

/// `{list, ifRevision?}`: what an edit of a whole list takes (`deleteList`, `clearChecked`).
public struct ListEditParams: Codable, Sendable, Hashable {
    /// The list, by name or id.
    public var list: ListReference
    /// Only if the list is still at this revision (else `conflict`).
    public var ifRevision: Revision?
    /// Each as the protocol names it (docs/protocol.md).
    public init(list: ListReference, ifRevision: Revision? = nil) {
        self.list = list
        self.ifRevision = ifRevision
    }
}
