/// Every list at one revision.
public enum GetLists: RPCMethod {
    public static let name = "getLists"
    public typealias Params = NoParams
    public typealias Result = ListsSnapshot
}
