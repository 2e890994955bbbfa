import ListModel

/// One request of the protocol: its name and the shapes of its params and result. The daemon's
/// dispatch table and the client's typed calls are both built from these.
public protocol RPCMethod: Sendable {
    /// What the request takes (`NoParams` for none): sent as a JSON object, by name.
    associatedtype Params: Codable & Sendable
    /// What a confirm carries.
    associatedtype Result: Codable & Sendable
    /// The method's name on the wire (`addItem`).
    static var name: String { get }
}

/// For methods that take no params: accepts a missing `params` or `{}`.
public struct NoParams: Codable, Sendable, Hashable {
    /// No params.
    public init() {}
}

/// `{}`.
public struct EmptyResult: Codable, Sendable, Hashable {
    /// An empty result.
    public init() {}
}

/// Every list at one revision: the reply to `getLists` and `subscribe`.
public struct ListsSnapshot: Codable, Sendable, Hashable {
    /// The daemon-wide revision the lists are at.
    public var revision: Revision
    /// Every list, whole, in id order.
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

    /// The lists at a revision.
    public init(revision: Revision, lists: [ShoppingList], instance: String? = nil, share: ShareStatus? = nil) {
        self.revision = revision
        self.lists = lists
        self.instance = instance
        self.share = share
    }
}

/// A delegate registered before and not now: its name, since when, and why.
public struct MissingDelegate: Codable, Sendable, Hashable {
    /// The delegate's name.
    public var name: String
    /// When it went.
    public var since: Timestamp
    /// Why, in words (“its connection closed”).
    public var reason: String

    /// A delegate missed.
    public init(name: String, since: Timestamp, reason: String) {
        self.name = name
        self.since = since
        self.reason = reason
    }
}

/// The PostgreSQL server a listd shares its lists through: `listd@kitchen:5432/lists` (never the
/// password), and whether it is reachable now.
public struct ShareStatus: Codable, Sendable, Hashable {
    /// Where: `user@host:port/database`.
    public var server: String
    /// Whether listd reaches it now.
    public var connected: Bool

    /// Where the lists are shared, and whether it is reachable.
    public init(server: String, connected: Bool) {
        self.server = server
        self.connected = connected
    }
}
