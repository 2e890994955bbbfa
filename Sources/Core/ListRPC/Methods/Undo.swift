import ListModel

/// Undoes a kept change by applying its inverse as a new change (same rules, same delegates).
/// Without a revision, the change a person means (`ChangeHistory.latestToUndo`): the latest not
/// yet undone that is not itself an undo — the client's own author's only, with `mine`.
public enum Undo: RPCMethod {
    public static let name = "undo"

    public struct Params: Codable, Sendable, Hashable {
        /// The change to undo; nil: the latest a person means.
        public var revision: Revision?
        /// Without a revision: only changes made by this client's author (the same user and
        /// client name, as `hello` gave it: a paired phone's own changes).
        public var mine: Bool?
        /// Compared with the revision of the list the inverse edits, as for every edit.
        public var ifRevision: Revision?

        /// Each as the protocol names it (docs/protocol.md).
        public init(revision: Revision? = nil, mine: Bool? = nil, ifRevision: Revision? = nil) {
            self.revision = revision
            self.mine = mine
            self.ifRevision = ifRevision
        }
    }

    public struct Result: Sendable, Hashable {
        /// The change that was undone.
        public var undone: HistoryEntry
        /// The list after the undo (for an undone create: its last state, now deleted).
        public var list: ShoppingList
        /// The revision of the undoing change; absent when undoing changed nothing.
        public var revision: Revision?
        /// Written as a brief connection's confirms are: the list's summary only.
        public var brief: Bool

        /// Each as the protocol names it (docs/protocol.md).
        public init(undone: HistoryEntry, list: ShoppingList, revision: Revision?, brief: Bool = false) {
            self.undone = undone
            self.list = list
            self.revision = revision
            self.brief = brief
        }
    }
}

extension Undo.Result: Codable {
    private enum CodingKeys: String, CodingKey {
        case undone, list, revision
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        undone = try container.decode(HistoryEntry.self, forKey: .undone)
        list = try container.decode(ShoppingList.self, forKey: .list)
        revision = try container.decodeIfPresent(Revision.self, forKey: .revision)
        brief = false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(undone, forKey: .undone)
        if brief { try container.encode(ListSummary(list), forKey: .list) } else { try container.encode(list, forKey: .list) }
        try container.encodeIfPresent(revision, forKey: .revision)
    }
}
