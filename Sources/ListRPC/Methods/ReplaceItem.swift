import ListModel

public enum ReplaceItem: RPCMethod {
    public static let name = "replaceItem"

    public struct Params: Codable, Sendable, Hashable {
        public var list: ListReference
        public var item: String
        public var with: String
        public var ifRevision: Revision?
        public init(list: ListReference, item: String, with: String, ifRevision: Revision? = nil) {
            self.list = list
            self.item = item
            self.with = with
            self.ifRevision = ifRevision
        }
    }

    public typealias Result = ShoppingList
}
