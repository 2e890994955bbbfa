import ListModel

public enum RenameList: RPCMethod {
    public static let name = "renameList"

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var name: String
        public var ifRevision: Revision?
        public init(list: ListReference, name: String, ifRevision: Revision? = nil) {
            self.list = list
            self.name = name
            self.ifRevision = ifRevision
        }
    }

    public typealias Result = ShoppingList
}
