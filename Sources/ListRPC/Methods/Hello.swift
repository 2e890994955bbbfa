/// Optional first request: the client names itself, and the name appears in the origin of every
/// change it makes.
public enum Hello: RPCMethod {
    public static let name = "hello"

    public struct Params: Codable, Sendable, Hashable {
        public var name: String?
        public init(name: String?) { self.name = name }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var server: String
        public var version: String
        public var protocolVersion: Int
        public var pid: Int32
        /// Names the state listd serves (see `ListsSnapshot.instance`).
        public var instance: String?
        public init(server: String, version: String, protocolVersion: Int, pid: Int32, instance: String? = nil) {
            self.server = server
            self.version = version
            self.protocolVersion = protocolVersion
            self.pid = pid
            self.instance = instance
        }
    }
}
