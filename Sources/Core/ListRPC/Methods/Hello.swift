/// Optional first request: the client names itself, and the name appears in the origin of every
/// change it makes.
public enum Hello: RPCMethod {
    public static let name = "hello"

    public struct Params: Codable, Sendable, Hashable {
        /// The client's name, shown in the origin of every change it makes (one line of text).
        public var name: String?
        /// Confirms are `ListSummary`s and notifications `BriefChangeParams`: nothing this
        /// connection receives grows with a list's length (the default is the whole list).
        public var brief: Bool?
        /// What this connection will change, by name (`items`, `sections`, `lists`,
        /// `delegate`); listd denies it anything else from then on. Rights only narrow: a later
        /// hello cannot give back what an earlier one left out. Absent: all.
        public var rights: [String]?
        /// Each as the protocol names it (docs/protocol.md).
        public init(name: String?, brief: Bool? = nil, rights: [String]? = nil) {
            self.name = name
            self.brief = brief
            self.rights = rights
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// Always `listd`.
        public var server: String
        /// listd's version.
        public var version: String
        /// The protocol's version: 1.
        public var protocolVersion: Int
        /// listd's process id.
        public var pid: Int32
        /// Names the state listd serves (see `ListsSnapshot.instance`).
        public var instance: String?
        /// Whether this connection is brief (see `Params.brief`).
        public var brief: Bool?
        /// Where the lists are shared (`listd --share`), and whether listd reaches it now.
        public var share: ShareStatus?
        /// What this connection may change (see `Params.rights`).
        public var rights: [String]?
        /// Each as the protocol names it (docs/protocol.md).
        public init(
            server: String,
            version: String,
            protocolVersion: Int,
            pid: Int32,
            instance: String? = nil,
            brief: Bool? = nil,
            share: ShareStatus? = nil,
            rights: [String]? = nil
        ) {
            self.rights = rights
            self.share = share
            self.server = server
            self.version = version
            self.protocolVersion = protocolVersion
            self.pid = pid
            self.instance = instance
            self.brief = brief
        }
    }
}
