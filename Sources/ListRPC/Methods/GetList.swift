import ListModel

public enum GetList: RPCMethod {
    public static let name = "getList"

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public init(list: ListReference) { self.list = list }
    }

    public typealias Result = ShoppingList
}
