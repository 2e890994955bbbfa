import ListModel

/// Takes an item off a list.
public enum RemoveItem: RPCMethod {
    public static let name = "removeItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}
