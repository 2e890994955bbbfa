import ListModel

/// One request of the protocol: its name and the shapes of its params and result. The daemon's
/// dispatch table and the client's typed calls are both built from these.
public protocol RPCMethod: Sendable {
    associatedtype Params: Codable & Sendable
    associatedtype Result: Codable & Sendable
    static var name: String { get }
}

/// For methods that take no params: accepts a missing `params` or `{}`.
public struct NoParams: Codable, Sendable, Hashable {
    public init() {}
}

/// `{}`.
public struct EmptyResult: Codable, Sendable, Hashable {
    public init() {}
}

/// Every list at one revision: the reply to `getLists` and `subscribe`.
public struct ListsSnapshot: Codable, Sendable, Hashable {
    public var revision: Revision
    public var lists: [ShoppingList]
    /// Names the state these revisions belong to: when it differs from the one a client saw
    /// before, the state was replaced (another list file, say) and revisions do not carry over.
    public var instance: String?
    /// Where the lists are shared, when they are (`listd --share`), and whether listd reaches
    /// it now (while it does not, these are the lists as last seen, and edits are denied).
    public var share: ShareStatus?
    /// Delegates (a household's rules) that were registered and are not now: their connection
    /// closed, or listd stopped asking them. Absent when there are none; one that unregistered
    /// is not missed.
    public var missingDelegates: [MissingDelegate]?

    public init(revision: Revision, lists: [ShoppingList], instance: String? = nil, share: ShareStatus? = nil) {
        self.revision = revision
        self.lists = lists
        self.instance = instance
        self.share = share
    }
}

/// A delegate registered before and not now: its name, since when, and why.
public struct MissingDelegate: Codable, Sendable, Hashable {
    public var name: String
    public var since: Timestamp
    public var reason: String

    public init(name: String, since: Timestamp, reason: String) {
        self.name = name
        self.since = since
        self.reason = reason
    }
}

/// The PostgreSQL server a listd shares its lists through: `listd@kitchen:5432/lists` (never the
/// password), and whether it is reachable now.
public struct ShareStatus: Codable, Sendable, Hashable {
    public var server: String
    public var connected: Bool

    public init(server: String, connected: Bool) {
        self.server = server
        self.connected = connected
    }
}
