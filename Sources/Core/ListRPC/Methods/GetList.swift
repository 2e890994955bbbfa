import ListModel

/// One list, whole.
public enum GetList: RPCMethod {
    public static let name = "getList"

    public struct Params: Codable, Sendable, Hashable {
        /// The list, by name or id.
        public var list: ListReference
        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference) { self.list = list }
    }

    public typealias Result = ShoppingList
}
