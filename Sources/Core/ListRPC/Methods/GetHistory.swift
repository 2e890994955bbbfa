import ListModel

/// The changes listd keeps (its `--history`), oldest first: who changed what, and when.
public enum GetHistory: RPCMethod {
    public static let name = "getHistory"
    /// How many changes a reply holds when `limit` is not given.
    public static let defaultLimit = 100

    public struct Params: Codable, Sendable, Hashable {
        /// Only this list's changes (by id, or by a name it has or had: followed through renames).
        public var list: ListReference?
        /// Only changes after this revision.
        public var since: Revision?
        /// At most this many (the newest ones); 100 when absent.
        public var limit: Int?

        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference? = nil, since: Revision? = nil, limit: Int? = nil) {
            self.list = list
            self.since = since
            self.limit = limit
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The latest revision.
        public var revision: Revision
        /// The changes, oldest first.
        public var changes: [HistoryEntry]

        /// Each as the protocol names it (docs/protocol.md).
        public init(revision: Revision, changes: [HistoryEntry]) {
            self.revision = revision
            self.changes = changes
        }
    }
}

/// One kept change: what `getHistory` lists and `undo` reports.
public struct HistoryEntry: Codable, Sendable, Hashable {
    /// A list as history names it: its id and its name after the change.
    public struct ListName: Codable, Sendable, Hashable {
        /// The list's id.
        public var id: ListID
        /// Its name after the change.
        public var name: String

        /// Each as the protocol names it (docs/protocol.md).
        public init(id: ListID, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The change's revision.
    public var revision: Revision
    /// When it was made.
    public var time: Timestamp
    /// The notification it was announced with.
    public var event: ListEventName
    /// The list it changed.
    public var list: ListName
    /// Its steps (absent for a create or a delete).
    public var changes: [ListChange.Step]?
    /// Who made it.
    public var origin: ChangeOrigin
    /// The revision it undid, when it was an `undo`.
    public var undoes: Revision?

    /// The entry that tells `change`.
    public init(_ change: ListChange) {
        revision = change.revision
        time = change.list.edited
        event = ListEventName(change.kind)
        list = ListName(id: change.list.id, name: change.list.name)
        changes = change.steps.isEmpty ? nil : change.steps
        origin = change.origin
        undoes = change.undoes
    }
}
