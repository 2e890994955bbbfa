import ListModel

public enum DeleteList: RPCMethod {
    public static let name = "deleteList"
    public typealias Params = ListEditParams

    /// The list as it was just before it was deleted.
    public typealias Result = ShoppingList
}

/// `{list, ifRevision?}`: what an edit of a whole list takes (`deleteList`, `clearChecked`).
public struct ListEditParams: Codable, Sendable, Hashable {
    public var list: ListReference
    public var ifRevision: Revision?
    public init(list: ListReference, ifRevision: Revision? = nil) {
        self.list = list
        self.ifRevision = ifRevision
    }
}
