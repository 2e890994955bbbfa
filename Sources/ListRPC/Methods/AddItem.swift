import ListModel

public enum AddItem: RPCMethod {
    public static let name = "addItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}

/// `{list, item, ifRevision?}`: what `addItem` and `removeItem` take.
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
