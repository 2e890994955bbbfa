import ListModel

public enum CreateList: RPCMethod {
    public static let name = "createList"

    public struct Params: Codable, Sendable, Hashable {
        public var name: String
        public var items: [String]?
        /// Compared with the daemon-wide revision.
        public var ifRevision: Revision?
        public init(name: String, items: [String]? = nil, ifRevision: Revision? = nil) {
            self.name = name
            self.items = items
            self.ifRevision = ifRevision
        }
    }

    public typealias Result = ShoppingList
}
